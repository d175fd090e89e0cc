"""Probe: byte permutations whose unit contiguous on both sides holds 128 bytes or more that only 1-byte words
divide (with the strides), which the planner moves in permute_runs a byte a lane, against permute_runs_words
(funnel-shifted 32-bit words) in programs of 1,024 words, or of the power of two that holds one unit where that is
more (8 words a lane); the permute suite's random permutations of the given seeds; every plan checked bit for bit
against torch's permute, timed with torch and a copy of the same bytes in interleaved rounds.

    python3 scripts/long_units_probe.py OUT.json SEED_FROM SEED_TO MAX_CASES [--dry] [--rule]

With --rule, only the units the planner now moves in shifted words (permute.SHIFTED_LONG_UNIT), its plan against
permute_runs a byte a lane.
"""

import json
import sys
import time

from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation
from cornerturn.tiling import element_bytes

DRY = "--dry" in sys.argv
RULE = "--rule" in sys.argv


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
    unit = element_bytes(perm)
    if RULE:
        if unit < permute.SHIFTED_LONG_UNIT or not permute.shifted_runs_ok(perm):
            return None
        return permute.build(perm, 1), permute.build(perm, 4), unit
    plan = permute.build(perm, permute.natural_word(perm))
    if not isinstance(plan.config, permute.RunsConfig) or plan.word != 1:
        return None
    block = 1024
    while 4 * block - 3 < unit:
        block *= 2
    if block > 8192 or not permute.shifted_runs_fit(perm, block):
        return None
    config = permute.ShiftedRunsConfig(block, min(16, block // 256))  # 8 words a lane, as at 1,024 on 4 warps
    return plan, permute.build(perm, 4, config), unit


def run_case(case, plan, other) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(getattr(torch, case.dtype)).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in (("plan", plan), ("shifted", other)):
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
            plan, other, unit = got
            if DRY:
                print(f"{case.name:48s} unit {unit:6d} {plan.config.name} -> {other.config.name}")
                continue
            try:
                r = run_case(case, plan, other)
            except Exception as e:  # a wrong result or a launch that fails: recorded, the others still run
                print(f"{case.name}: {type(e).__name__}: {e}", flush=True)
                rows.append({"case": case.name, "error": f"{type(e).__name__}: {e}"})
                continue
            r.update(seed=seed, unit=unit)
            rows.append(r)
            p = r["pct"]
            print(f"{r['case']:48s} unit {unit:6d} {r['plan']:14s} {p['plan']:5.1f}% {r['other']:12s} "
                  f"{p['shifted']:5.1f}% torch {p['torch']:5.1f}%", flush=True)
    if not DRY:
        import torch

        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/long_units_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
