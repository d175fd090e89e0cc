"""Probe: the element tiles of 2-byte general permutations (permute.TILES[2], narrowed to the sides by the
heuristic) of other sizes and warps against the planner's 256 x 32 on 4 warps, on the permute suite's random 2-byte
cases that the planner gives the element tiles; every plan bit-exact against torch into a poisoned output first,
then timed with torch and the copy in interleaved CUDA-event rounds.

    python scripts/tiles2_probe.py FIRST_SEED LAST_SEED MAX_CASES OUT.json
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

TORCH = {1: torch.uint8, 2: torch.int16}
TILES = [(256, 32, 8), (128, 32, 4), (128, 32, 8), (128, 64, 4), (64, 64, 4), (64, 128, 4)]


def cases(first, last, most):
    found = []
    for seed in range(first, last + 1):
        for c in suite("permute", seed=seed, count=32, device="cuda")[-32:]:
            size = torch.empty(0, dtype=getattr(torch, c.dtype)).element_size()
            if c.axes is None or size != 2:
                continue
            strides, step = [], size
            for e in reversed(c.shape):
                strides.append(step)
                step *= e
            p = canonical_permutation(tuple(c.shape), tuple(reversed(strides)), size, tuple(c.axes))
            if not isinstance(p, Permutation):
                continue
            planner = engine.choose(p, "cuda:0")
            if not isinstance(planner.config, permute.PermuteConfig) or planner.config.packed or planner.word != 2:
                continue
            found.append((seed, c, p, size, planner))
            if len(found) == most:
                return found
    return found


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


def measure(seed, c, p, size, planner):
    dtype = TORCH[size]
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, tuple(c.shape), dtype=dtype, device="cuda")
    want = x.permute(*c.axes).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    plans = {"plan": planner}
    base = permute.TILES[2]
    for tile in TILES:
        permute.TILES[2] = tile
        plans["{}x{}-w{}".format(*tile)] = permute.build(p, 2)
    permute.TILES[2] = base
    exact = {}
    for name, plan in plans.items():
        o.fill_(-23131)
        engine.run(plan, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.permute(*c.axes))}
    fns.update({name: (lambda plan=plan: engine.run(plan, xv, ov)) for name, plan in plans.items()})
    med = timed(fns)
    return {"case": c.name, "seed": seed, "problem": repr(p), "size": size, "planner": planner.config.name,
            "reason": planner.reason, "exact": exact,
            "pct": {n: round(100 * med["copy"] / v, 1) for n, v in med.items() if n != "copy"}}


def main() -> None:
    first, last, most, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rows = []
    t0 = time.time()
    for seed, c, p, size, planner in cases(first, last, most):
        row = measure(seed, c, p, size, planner)
        print(f"{time.time() - t0:5.0f}s {row['case']:44s} {row['planner']:24s} " +
              " ".join(f"{k} {v:5.1f}" for k, v in row["pct"].items()) +
              "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e), flush=True)
        rows.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
