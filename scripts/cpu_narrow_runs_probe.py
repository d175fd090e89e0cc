"""Probe: units contiguous on both sides of 16 to 63 bytes in 8-byte words, moved by the runs kernel (runs of constant
length; permute.PLANE_UNIT_BYTES 16, the planner's rule) against the table kernel they took before (PLANE_UNIT_BYTES
64), and torch's copy of the permuted
view, on random permutations of the permute suite's kind (from SEED); each result bit for bit against NumPy into a
poisoned output; medians of 3 in 3 interleaved rounds, against np.copyto.

    python3 scripts/cpu_narrow_runs_probe.py OUT.json SEED CASES [LOW]   (units of LOW (16) to 63 bytes)
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
from cornerturn.bench.suites import Case, random_permutations
from cornerturn.cpu import permute as cpu_permute
from cornerturn.dtypes import itemsize_of
from cornerturn.problem import Permutation, canonical_permutation
from cornerturn.tiling import element_bytes, widest_word

torch.set_num_threads(2)
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}


def median_time(f, n: int = 3) -> float:
    f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def use(below: int) -> None:
    """The runs kernel for 8-byte words (16) or not (8), and the plans cached under the other dropped."""
    cpu_permute.PLANE_UNIT_BYTES = 16 if below == 16 else 64
    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()


def measure(case, word: np.dtype, rng: np.random.Generator) -> dict:
    """Checked bit for bit both ways, then the median times of the table kernel (8), the runs kernel (16), torch and
    the copy."""
    x = rng.integers(0, 256, math.prod(case.shape) * word.itemsize, dtype=np.uint8).view(word).reshape(case.shape)
    out = np.empty(tuple(case.shape[a] for a in case.axes), word)
    want = np.ascontiguousarray(np.permute_dims(x, case.axes))
    for below in (8, 16):
        use(below)
        out.fill(-91)
        cornerturn.permute_dims(x, case.axes, out=out)
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8)), (case, below)
    source, target = torch.from_numpy(x).permute(*case.axes), torch.from_numpy(np.empty_like(out))
    copy = np.empty_like(x)
    times: dict = {}
    for _ in range(3):
        times.setdefault("copy", []).append(median_time(lambda: np.copyto(copy, x)))
        for below in (8, 16):
            use(below)
            times.setdefault(below, []).append(median_time(lambda: cornerturn.permute_dims(x, case.axes, out=out)))
        times.setdefault("torch", []).append(median_time(lambda: target.copy_(source)))
    use(16)
    return {k: sorted(v)[1] for k, v in times.items()}


def main() -> None:
    out_path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    low = int(sys.argv[4]) if len(sys.argv) > 4 else 16  # the shortest unit taken
    rng = np.random.default_rng(seed)
    rows = []
    named = (Case((2514, 37, 8, 14), "float32", (0, 2, 1, 3)),)  # torch 2.05x ahead on seed 15105 (2026-12-04)
    for draw in range(-1, 400):
        if len(rows) >= count:
            break
        for case in named if draw < 0 else random_permutations(seed * 1000 + draw, 16, "cpu"):
            if len(rows) >= count:
                break
            word = np.dtype(WORDS[itemsize_of(case.dtype)])
            strides = tuple(word.itemsize * math.prod(case.shape[k + 1:]) for k in range(len(case.shape)))
            perm = canonical_permutation(case.shape, strides, word.itemsize, case.axes)
            if not isinstance(perm, Permutation):
                continue
            unit = element_bytes(perm)
            if not (low <= unit < 64 and unit != perm.itemsize and widest_word(perm) == 8):
                continue
            use(8)
            before = cpu_permute.plan(perm).name
            use(16)
            if cpu_permute.plan(perm).name != "runs":
                continue
            m = measure(case, word, rng)
            row = {"case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}", "unit": unit,
                   "before": before, "speedup": m[8] / m[16], "vs_torch": m["torch"] / m[16],
                   "pct": {k: round(100 * m["copy"] / m[v], 1) for k, v in
                           (("tables", 8), ("runs", 16), ("torch", "torch"))}}
            rows.append(row)
            print(f"{row['case']:44s} unit {unit} {before} {row['pct']} x{row['speedup']:.3f} "
                  f"torch x{row['vs_torch']:.3f}", flush=True)
    ratios = [r["speedup"] for r in rows]
    summary = {"cases": len(rows), "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
               "min": min(ratios), "max": max(ratios),
               "torch_ahead_tables": sum(r["pct"]["torch"] > r["pct"]["tables"] for r in rows),
               "torch_ahead_runs": sum(r["pct"]["torch"] > r["pct"]["runs"] for r in rows)}
    print(summary)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                   "command": f"python3 scripts/cpu_narrow_runs_probe.py OUT.json {seed} {count} {low}",
                   "summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
