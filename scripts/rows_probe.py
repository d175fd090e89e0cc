"""Probe: permutations of 1- and 2-byte elements whose output's innermost axis holds 2 to 31 elements and whose next
output axis is the input's fastest (engine.permute.interleave_fit), drawn from the permute suite's random cases of a
range of seeds: the planner's plan before permute_interleave against permute_interleave in programs of 64 to 256
word-columns; torch and the copy in the same interleaved CUDA-event rounds, every plan bit-exact against torch first
(output poisoned).

    python scripts/rows_probe.py FIRST_SEED LAST_SEED MAX_CASES OUT.json
"""

from __future__ import annotations

import json
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import suite
from cornerturn.engine import permute
from cornerturn.problem import Permutation, canonical_permutation

CONFIGS = [(128, 4), (256, 8)]
TORCH = {1: torch.uint8, 2: torch.int16}


def cases(first, last, most):
    found = []
    for seed in range(first, last + 1):
        for c in suite("permute", seed=seed, count=32, device="cuda"):
            size = torch.empty(0, dtype=getattr(torch, c.dtype)).element_size()
            if c.axes is None or size > 2:
                continue
            strides, step = [], size
            for e in reversed(c.shape):
                strides.append(step)
                step *= e
            p = canonical_permutation(tuple(c.shape), tuple(reversed(strides)), size, tuple(c.axes))
            if isinstance(p, Permutation) and permute.interleave_fit(p):
                found.append((seed, c, p, size))
                if len(found) == most:
                    return found
    return found


def before(p):
    """The planner's plan as before permute_interleave."""
    taken = permute.interleave_ok
    permute.interleave_ok = lambda _: False
    try:
        return permute.build(p, permute.natural_word(p))
    finally:
        permute.interleave_ok = taken


def timed(fns, repeats=7):
    times = {k: [] for k in fns}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    for _ in range(repeats):
        for k, fn in fns.items():
            fn()
            ev[0].record()
            fn()
            ev[1].record()
            ev[1].synchronize()
            times[k].append(ev[0].elapsed_time(ev[1]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def measure(seed, c, p, size):
    dtype = TORCH[size]
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, tuple(c.shape), dtype=dtype, device="cuda")
    want = x.permute(*c.axes).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    old = before(p)
    plans = {"plan " + old.name: old}
    for block, warps in CONFIGS:
        plans[f"rows {block}-{warps}"] = permute.build(p, 4, permute.PermuteInterleaveConfig(block, warps))
    exact = {}
    for name, plan in plans.items():
        o.fill_(-93 if size == 1 else -23131)
        engine.run(plan, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.permute(*c.axes))}
    fns.update({name: (lambda plan=plan: engine.run(plan, xv, ov)) for name, plan in plans.items()})
    med = timed(fns)
    return {"case": c.name, "seed": seed, "extents": p.extents, "in_strides": p.in_strides, "rows": p.extents[-1],
            "cols": p.extents[-2], "size": size, "shift": p.extents[-1] * p.extents[-2] * size % 4 != 0,
            "exact": exact, "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}


def main() -> None:
    first, last, most, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rows_out = []
    t0 = time.time()
    for seed, c, p, size in cases(first, last, most):
        row = measure(seed, c, p, size)
        pct = row["pct"]
        plan = next(k for k in pct if k.startswith("plan"))
        print(f"{time.time() - t0:5.0f}s {row['case']:44s} R {row['rows']:2d} C {row['cols']:6d} plan {pct[plan]:5.1f} "
              f"({plan[5:]}) " + " ".join(f"{k[5:]} {v:5.1f}" for k, v in pct.items() if k.startswith("rows"))
              + f" torch {pct['torch']:5.1f}" + "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e),
              flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
