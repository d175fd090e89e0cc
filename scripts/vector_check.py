"""GPU check of autotune's VECTOR_TILES candidates: each bit-exact into a poisoned output (--small: run it under
compute-sanitizer), then autotune on int8 permutations that take them, timed against the planner's plan (CUDA
events, median of 9, no L2 flush; with CORNERTURN_CACHE_DIR=off).

    CORNERTURN_CACHE_DIR=off python3 scripts/vector_check.py [--small]
"""
import sys

import torch

import cornerturn
from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation

bad = 0
small = "--small" in sys.argv
SMALL = (((144, 2, 32, 32), (3, 2, 1, 0)), ((16, 1057, 64), (2, 1, 0)), ((48, 2, 16, 272), (3, 0, 2, 1)))
LARGE = (((256, 256, 64, 64), (3, 2, 1, 0)), ((71, 16, 3130, 64), (3, 2, 0, 1)),
         ((144, 332, 7, 36, 16), (1, 4, 3, 2, 0)), ((288, 17020, 16), (2, 1, 0)))
cases = SMALL if small else LARGE
for shape, axes in cases:
    x = torch.randint(-128, 127, shape, dtype=torch.int8, device="cuda")
    want = x.permute(*axes).contiguous()
    strides = tuple(s * 1 for s in x.stride())
    p = canonical_permutation(shape, strides, 1, axes)
    for word, config in permute.candidates(p):
        out = torch.full_like(want, 0x5A)
        engine.run(permute.build(p, word, config), view_of(x), view_of(out))
        torch.cuda.synchronize()
        ok = torch.equal(out, want)
        bad += not ok
        print(shape, axes, config.name, "exact" if ok else "WRONG", flush=True)
    if small:
        continue
    plain = cornerturn.plan(shape, torch.int8, axes=axes, device="cuda")
    tuned = cornerturn.plan(shape, torch.int8, axes=axes, device="cuda", autotune=True)
    out = torch.empty_like(want)
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    ms = {}
    for name, fn in (("copy", lambda x=x, out=out: out.view(-1).copy_(x.view(-1))),
                     ("plan", lambda x=x, out=out, plan=plain: plan.execute(x, out)),
                     ("autotune", lambda x=x, out=out, plan=tuned: plan.execute(x, out))):
        times = []
        for _ in range(9):
            fn()
            ev[0].record()
            fn()
            ev[1].record()
            ev[1].synchronize()
            times.append(ev[0].elapsed_time(ev[1]))
        ms[name] = sorted(times)[4]
    tuned.execute(x, out)
    bad += not torch.equal(out, want)
    print(f"{shape} {axes}: plan {100 * ms['copy'] / ms['plan']:.1f}% ({plain.method}), autotune "
          f"{100 * ms['copy'] / ms['autotune']:.1f}% ({tuned.method})", flush=True)
print("wrong:", bad)
