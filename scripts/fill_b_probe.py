"""Probe: the general tiles with side B filled too (permute.EXTEND_B: B goes on to the input's next fastest axes)
against the planner's plan, on the permute suite's random permutations whose plan either
changes, and the slowest such cases of the suites' seeds 23 and 8787. Every plan bit-exact against torch into a
poisoned output first, then timed with torch and the copy in interleaved CUDA-event rounds (shuffled, the L2 flushed
before each sample).

    python scripts/fill_b_probe.py FIRST_SEED LAST_SEED MAX_CASES OUT.json [--no-named]
"""

from __future__ import annotations

import json
import random
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import Case, suite
from cornerturn.engine import permute
from cornerturn.problem import Permutation, canonical_permutation

NAMED = tuple(Case(s, d, a) for s, d, a in (
    ((33, 4, 6, 44, 20, 22), "int64", (4, 5, 2, 1, 3, 0)), ((99, 8, 247, 65), "int64", (2, 3, 1, 0)),
    ((3, 99, 47, 57, 58, 5), "bfloat16", (2, 4, 5, 3, 0, 1)), ((3, 5, 55, 67, 56, 22), "bfloat16", (5, 0, 4, 3, 1, 2)),
    ((522, 1005, 8, 7), "float16", (2, 1, 3, 0)), ((557, 10, 391, 37), "int16", (1, 0, 3, 2)),
    ((12, 100, 13, 5, 15, 227), "float16", (1, 3, 5, 4, 2, 0)), ((246, 5, 61, 400), "complex128", (3, 0, 2, 1))))
VARIANTS = {"plan": False, "extb": True}


def planned(p, ext):
    """The planner's plan with side B extended or not."""
    saved, permute.EXTEND_B = permute.EXTEND_B, ext
    try:
        return permute.build(p, permute.natural_word(p))
    finally:
        permute.EXTEND_B = saved


def same(one, two):
    def key(plan):
        return [(x, y, k.kernel, k.programs, k.ints, sorted(k.constexprs.items()), k.num_warps)
                for x, y, k in plan.pieces]
    return key(one) == key(two)


def cases(first, last, most, named):
    found = []
    for seed, c in [(0, c) for c in NAMED if named] + [(s, c) for s in range(first, last + 1)
                                             for c in suite("permute", seed=s, count=32, device="cuda")[-32:]]:
        if True:
            if c.axes is None:
                continue
            size = torch.empty(0, dtype=getattr(torch, c.dtype)).element_size()
            strides, step = [], size
            for e in reversed(c.shape):
                strides.append(step)
                step *= e
            p = canonical_permutation(tuple(c.shape), tuple(reversed(strides)), size, tuple(c.axes))
            if not isinstance(p, Permutation):
                continue
            plans = {}
            for name, flags in VARIANTS.items():
                plan = planned(p, flags)
                if not isinstance(plan.config, permute.PermuteConfig):
                    break
                if not any(same(plan, other) for other in plans.values()):
                    plans[name] = plan
            if len(plans) < 2:
                continue  # not the general tiles, or no variant changes the plan
            found.append((seed, c, p, size, plans))
            if len(found) == most:
                return found
    return found


def timed(fns, repeats=15):
    """Median ms of each function: in each round every one once, in a shuffled order, each after the L2 is flushed
    and an untimed call of itself."""
    flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    times = {k: [] for k in fns}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    order = list(fns)
    for r in range(repeats):
        random.Random(r).shuffle(order)
        for k in order:
            fns[k]()
            flush.zero_()
            ev[0].record()
            fns[k]()
            ev[1].record()
            ev[1].synchronize()
            times[k].append(ev[0].elapsed_time(ev[1]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def data(shape, dtype):
    if dtype.is_complex or dtype.is_floating_point:
        x = torch.randn(shape, dtype=dtype, device="cuda")
        return x if dtype.itemsize > 1 or dtype.is_complex else x
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, dtype=dtype, device="cuda")


def measure(seed, c, p, size, plans):
    dtype = getattr(torch, c.dtype)
    if dtype.itemsize == 1 and dtype.is_floating_point:  # float8: random bytes
        x = torch.randint(-128, 127, tuple(c.shape), dtype=torch.int8, device="cuda").view(dtype)
    else:
        x = data(tuple(c.shape), dtype)
    want = x.permute(*c.axes).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    exact = {}
    for name, plan in plans.items():
        o.view(torch.uint8).fill_(0xA5)
        engine.run(plan, xv, ov)
        exact[name] = bool(torch.equal(o.view(torch.uint8), want.view(torch.uint8)))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.permute(*c.axes))}
    fns.update({name: (lambda plan=plan: engine.run(plan, xv, ov)) for name, plan in plans.items()})
    med = timed(fns)
    return {"case": c.name, "seed": seed, "problem": repr(p), "size": size,
            "plans": {n: f"{plan.config.name} {plan.reason}" for n, plan in plans.items()}, "exact": exact,
            "pct": {n: round(100 * med["copy"] / v, 1) for n, v in med.items() if n != "copy"}}


def main() -> None:
    first, last, most, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rows = []
    t0 = time.time()
    for seed, c, p, size, plans in cases(first, last, most, "--no-named" not in sys.argv):
        row = measure(seed, c, p, size, plans)
        print(f"{time.time() - t0:5.0f}s {row['case']:48s} "
              + " ".join(f"{k} {plans[k].config.name if k in plans else ''} {v:5.1f}" for k, v in row["pct"].items()) +
              "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e), flush=True)
        rows.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
