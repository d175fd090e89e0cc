"""Probe: byte permutations that the planner moves in permute_words with output runs along A that are not whole
words: the planner's way of writing them (shifted into place where A holds SHIFTED_OUT_MIN_A bytes or more and B two
axes or more, else element by element) against the other way, the same tile, on the permute suite's random
permutations of the given seeds; every plan checked bit for bit against torch's permute, timed with torch and a copy
of the same bytes in interleaved rounds.

    python3 scripts/words_out_probe.py OUT.json SEED_FROM SEED_TO MAX_CASES [--dry] [--a=LOW:HIGH]

With --a, only permutations whose side A holds LOW to HIGH - 1 bytes and B two axes or more.
"""

import dataclasses
import json
import sys
import time

from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation

DRY = "--dry" in sys.argv
A_BYTES = next((tuple(int(v) for v in a.split("=")[1].split(":")) for a in sys.argv if a.startswith("--a=")), None)


def plans(case):
    if case.itemsize != 1:
        return None
    strides, step = [], case.itemsize
    for n in reversed(case.shape):
        strides.insert(0, step)
        step *= n
    perm = canonical_permutation(case.shape, tuple(strides), case.itemsize, case.axes)
    if getattr(perm, "kind", None) != "permute":
        return None
    plan = permute.build(perm, permute.natural_word(perm))
    if not isinstance(plan.config, permute.PermuteWordsConfig) or plan.pieces[0][2].constexprs["OUT"] == 0:
        return None
    sides = permute.words_sides(perm)
    if A_BYTES and not (A_BYTES[0] <= sides.size_a < A_BYTES[1] and len(sides.b) >= 2):
        return None
    other_out = "items" if plan.config.out == "shifted" else "shifted"
    other = permute.build(perm, 4, dataclasses.replace(plan.config, out=other_out))
    return plan, other, {"size_a": sides.size_a, "na": len(sides.a), "nb": len(sides.b), "size_b": sides.size_b}


def run_case(case, plan, other) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(getattr(torch, case.dtype)).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in (("plan", plan), ("other", other)):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{case.name} {name}: wrong result")
        fns[name] = call
    copy_to = torch.empty_like(x)
    fns["torch"] = lambda: x.permute(case.axes).contiguous()
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    return {"case": case.name, "plan": plan.config.name, "other": other.config.name,
            "pct": {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}}


def main() -> None:
    path, first, last, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rows, found = [], 0
    for seed in range(first, last):
        for case in random_permutations(seed, 30, "cuda"):
            got = plans(case)
            if got is None or found >= limit:
                continue
            found += 1
            plan, other, info = got
            if DRY:
                print(f"{case.name:48s} {plan.config.name} -> {other.config.name} {info}")
                continue
            try:
                r = run_case(case, plan, other)
            except Exception as e:  # a wrong result or a launch that fails: recorded, the others still run
                print(f"{case.name}: {type(e).__name__}: {e}", flush=True)
                rows.append({"case": case.name, "error": f"{type(e).__name__}: {e}"})
                continue
            r.update(seed=seed, **info)
            rows.append(r)
            p = r["pct"]
            print(f"{r['case']:48s} A {info['size_a']:6d} nb {info['nb']} {r['plan']:24s} {p['plan']:5.1f}% "
                  f"{r['other']:24s} {p['other']:5.1f}% torch {p['torch']:5.1f}%", flush=True)
    if not DRY:
        import torch

        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/words_out_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
