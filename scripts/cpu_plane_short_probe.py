"""Probe: permute-plane's planes with a short axis (the output's innermost under PLANE_MIN_A elements) in words of 1, 2
or 4 bytes moved in vector blocks along the output's contiguous index, their input rows gathered from a table
(permute.PLANE_SHORT_BLOCKS on, the rule) against element by element as before (off), and torch's copy of the
permuted view, on random permutations of the permute suite's kind (from SEED); each result bit for bit against NumPy
into a poisoned output; medians of 3 in 4 interleaved rounds, each in another order, against np.copyto.

    python3 scripts/cpu_plane_short_probe.py OUT.json SEED CASES
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

import cornerturn
from cornerturn import api
from cornerturn.bench.suites import random_permutations
from cornerturn.cpu import permute as cpu_permute
from cornerturn.cpu.vectors import block_side
from cornerturn.dtypes import itemsize_of
from cornerturn.problem import Permutation, canonical_permutation

torch.set_num_threads(2)
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}
SHARES = (False, True)
RULE = True  # the planner's


def median_time(f, n: int = 3) -> float:
    f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def use(on: bool) -> None:
    """Blocks for short axes on or off, and the plans cached under the other dropped."""
    cpu_permute.PLANE_SHORT_BLOCKS = on
    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()


def measure(case, word: np.dtype, rng: np.random.Generator) -> dict:
    x = rng.integers(0, 256, math.prod(case.shape) * word.itemsize, dtype=np.uint8).view(word).reshape(case.shape)
    out = np.empty(tuple(case.shape[a] for a in case.axes), word)
    want = np.ascontiguousarray(np.permute_dims(x, case.axes))
    for share in SHARES:
        use(share)
        out.fill(-91)
        cornerturn.permute_dims(x, case.axes, out=out)
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8)), (case, share)
    source, target = torch.from_numpy(x).permute(*case.axes), torch.from_numpy(np.empty_like(out))
    copy = np.empty_like(x)
    times: dict = {}
    names = [*SHARES, "torch"]
    for turn in range(len(names) + 1):  # each round in another order, so that none is always timed first
        times.setdefault("copy", []).append(median_time(lambda: np.copyto(copy, x)))
        for name in names[turn % len(names):] + names[:turn % len(names)]:
            if name == "torch":
                times.setdefault(name, []).append(median_time(lambda: target.copy_(source)))
                continue
            use(name)
            times.setdefault(name, []).append(median_time(lambda: cornerturn.permute_dims(x, case.axes, out=out)))
    use(RULE)
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def short_plane(perm) -> int:
    """The short axis's extent where the rule moves the plane in blocks, else 0."""
    plan = cpu_permute.plan(perm)
    sides = plan.sides
    if plan.name != "permute-plane" or sides.short is None or sides.word not in cpu_permute.PLANE_VECTOR_WORDS:
        return 0
    side = block_side(sides.word)
    run = cpu_permute.plane_run(sides)
    enough = sides.a.extent * sides.short.extent >= side and run >= cpu_permute.plane_some_min(side)
    return sides.short.extent if enough else 0


def main() -> None:
    out_path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    rows = []
    for draw in range(2000):
        if len(rows) >= count:
            break
        for case in random_permutations(seed * 1000 + draw, 16, "cpu"):
            if len(rows) >= count:
                break
            word = np.dtype(WORDS[itemsize_of(case.dtype)])
            strides = tuple(word.itemsize * math.prod(case.shape[k + 1:]) for k in range(len(case.shape)))
            perm = canonical_permutation(case.shape, strides, word.itemsize, case.axes)
            if not isinstance(perm, Permutation) or not (a := short_plane(perm)):
                continue
            m = measure(case, word, rng)
            row = {"case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}", "short": a,
                   "word": word.itemsize,
                   "pct": {str(k): round(100 * m["copy"] / m[k], 1) for k in (*SHARES, "torch")},
                   "speedup": m[False] / m[True], "vs_torch": m["torch"] / m[RULE]}
            rows.append(row)
            print(f"{row['case']:44s} short {a} {row['pct']} x{row['speedup']:.3f} torch x{row['vs_torch']:.3f}",
                  flush=True)
    ratios = [r["speedup"] for r in rows]
    summary = {"cases": len(rows), "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
               "min": min(ratios), "max": max(ratios)}
    summary["torch_ahead_before"] = sum(r["pct"]["torch"] > r["pct"]["False"] for r in rows)
    summary["torch_ahead_after"] = sum(r["pct"]["torch"] > r["pct"][str(RULE)] for r in rows)
    print(summary)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                   "command": f"python3 scripts/cpu_plane_short_probe.py OUT.json {seed} {count}",
                   "summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
