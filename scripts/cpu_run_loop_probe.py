"""Probe: runs contiguous on both sides longer than RUN_INLINE_BYTES copied by a loop over their words (permute.RUN_LOOP
on) against a memcpy call a run as before (off), each with the streamed kernel where it applies (runs of whole 16-byte
vectors from STREAM_MIN_BYTES) and without it (loop, plain stores), and torch's copy of the permuted view, on random
permutations of the permute suite's kind (from SEED) that the runs kernel takes with such runs; each result bit for
bit against NumPy into a poisoned output; medians of 3 in 4 interleaved rounds, each in another order (the
streamed cases, where the first two variants run the same kernel, show what that order leaves), against np.copyto.

    python3 scripts/cpu_run_loop_probe.py OUT.json SEED CASES
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
from cornerturn.dtypes import itemsize_of
from cornerturn.problem import Permutation, canonical_permutation
from cornerturn.tiling import element_bytes

torch.set_num_threads(2)
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}
VARIANTS = {"memcpy": (False, True), "loop": (True, True), "loop-plain": (True, False)}  # (RUN_LOOP, STREAM_RUNS)


def median_time(f, n: int = 3) -> float:
    f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def use(variant: str) -> None:
    cpu_permute.RUN_LOOP, cpu_permute.STREAM_RUNS = VARIANTS[variant]
    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()


def measure(case, word: np.dtype, rng: np.random.Generator) -> dict:
    x = rng.integers(0, 256, math.prod(case.shape) * word.itemsize, dtype=np.uint8).view(word).reshape(case.shape)
    out = np.empty(tuple(case.shape[a] for a in case.axes), word)
    want = np.ascontiguousarray(np.permute_dims(x, case.axes))
    for variant in VARIANTS:
        use(variant)
        out.fill(-91)
        cornerturn.permute_dims(x, case.axes, out=out)
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8)), (case, variant)
    source, target = torch.from_numpy(x).permute(*case.axes), torch.from_numpy(np.empty_like(out))
    copy = np.empty_like(x)
    times: dict = {}
    names = [*VARIANTS, "torch"]
    for turn in range(len(names)):  # each round in another order, so that none is always timed first
        times.setdefault("copy", []).append(median_time(lambda: np.copyto(copy, x)))
        for name in names[turn:] + names[:turn]:
            if name == "torch":
                times.setdefault(name, []).append(median_time(lambda: target.copy_(source)))
                continue
            use(name)
            times.setdefault(name, []).append(median_time(lambda: cornerturn.permute_dims(x, case.axes, out=out)))
    use("memcpy")  # the planner's
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


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
            if not isinstance(perm, Permutation) or cpu_permute.plan(perm).name != "runs":
                continue
            unit = element_bytes(perm)
            if unit <= cpu_permute.RUN_INLINE_BYTES:
                continue
            m = measure(case, word, rng)
            row = {"case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}", "unit": unit,
                   "streams": cpu_permute.streams_runs(perm), "mib": round(x_bytes(case, word) / 2**20, 1),
                   "pct": {k: round(100 * m["copy"] / m[k], 1) for k in (*VARIANTS, "torch")},
                   "speedup": {k: m["memcpy"] / m[k] for k in VARIANTS if k != "memcpy"},
                   "vs_torch": m["torch"] / m["loop"]}
            rows.append(row)
            print(f"{row['case']:44s} unit {unit} {'streams' if row['streams'] else ''} {row['pct']} "
                  f"x{row['speedup']['loop']:.3f} torch x{row['vs_torch']:.3f}", flush=True)
    summary = {}
    for k in ("loop", "loop-plain"):
        for streams in (False, True):
            ratios = [r["speedup"][k] for r in rows if r["streams"] == streams]
            if ratios:
                summary[f"{k} {'streamed' if streams else 'plain'} cases"] = {
                    "cases": len(ratios), "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
                    "min": min(ratios), "max": max(ratios)}
    summary["torch_ahead_memcpy"] = sum(r["pct"]["torch"] > r["pct"]["memcpy"] for r in rows)
    summary["torch_ahead_loop"] = sum(r["pct"]["torch"] > r["pct"]["loop"] for r in rows)
    print(summary)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                   "command": f"python3 scripts/cpu_run_loop_probe.py OUT.json {seed} {count}",
                   "summary": summary, "rows": rows}, f, indent=1)


def x_bytes(case, word) -> int:
    return math.prod(case.shape) * word.itemsize


if __name__ == "__main__":
    main()
