"""Probe: runs contiguous on both sides moved by loops of vector moves (permute.RUN_VECTORS) in the planner's tiles
of up to 16 x 16 runs (tiles-vec) and in the output's order (ordered-vec: RUN_ORDERED_FROM, ordered_runs_kernel, each
thread's share of the output a contiguous run of runs, as torch writes it), against the tiles with a memcpy a run
(the planner's), the tiles again (the noise between rounds), and torch's copy of the permuted view (`one`: the runs
kernel's tiles of 1 x 1, RUN_ONE_FROM, instead of the vector variants), on random permutations of the permute
suite's kind (from SEED) that the runs kernel takes with runs longer than RUN_INLINE_BYTES; each result bit for bit
against NumPy into a poisoned output; medians of 3 in as many interleaved rounds as there are methods, each in
another order, against np.copyto.

    python3 scripts/cpu_run_order_probe.py OUT.json SEED CASES [one|MIN_UNIT]

MIN_UNIT: only runs of that many bytes or more.
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
# (RUN_ONE_FROM, RUN_ORDERED_FROM, RUN_VECTORS)
VARIANTS = {"tiles": (0, 0, False), "tiles-vec": (0, 0, True), "ordered-vec": (0, 1, True),
            "tiles-again": (0, 0, False)}


NEW = ("tiles-vec", "ordered-vec")  # the variants measured against the tiles


def median_time(f, n: int = 3) -> float:
    f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def use(variant: str) -> None:
    cpu_permute.RUN_ONE_FROM, cpu_permute.RUN_ORDERED_FROM, cpu_permute.RUN_VECTORS = VARIANTS[variant]
    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()


def measure(case, word: np.dtype, rng: np.random.Generator) -> dict:
    x = rng.integers(0, 256, math.prod(case.shape) * word.itemsize, dtype=np.uint8).view(word).reshape(case.shape)
    out = np.empty(tuple(case.shape[a] for a in case.axes), word)
    want = np.ascontiguousarray(np.permute_dims(x, case.axes))
    for variant in VARIANTS:
        use(variant)
        out.view(np.uint8).fill(0xA5)
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
    use("tiles")  # the planner's
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def tasks(perm: Permutation) -> int:
    """The planner's tasks for the runs kernel: tiles of up to RUN_TILE x RUN_TILE runs."""
    plan = cpu_permute.plan(perm)
    _, in_b, _, in_r, _ = cpu_permute._tables(plan)
    n1 = plan.sides.rest[0].extent if plan.sides.rest else 1
    tile_b, tile_r = cpu_permute.run_tiles(in_b.size, n1)
    return in_r.size // n1 * -(-in_b.size // tile_b) * -(-n1 // tile_r)


def main() -> None:
    global NEW
    out_path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    min_unit = cpu_permute.RUN_INLINE_BYTES + 1
    if len(sys.argv) > 4 and sys.argv[4] == "one":
        for name in NEW:
            VARIANTS.pop(name)
        VARIANTS["one"] = (1, 0, False)
        NEW = ("one",)
    elif len(sys.argv) > 4:
        min_unit = int(sys.argv[4])
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
            if unit < min_unit:
                continue
            m = measure(case, word, rng)
            row = {"case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}", "unit": unit,
                   "tasks": tasks(perm), "streams": cpu_permute.streams_runs(perm),
                   "mib": round(math.prod(case.shape) * word.itemsize / 2**20, 1),
                   "pct": {k: round(100 * m["copy"] / m[k], 1) for k in (*VARIANTS, "torch")},
                   "new": {k: m["tiles"] / m[k] for k in NEW}, "again": m["tiles"] / m["tiles-again"]}
            rows.append(row)
            print(f"{row['case']:44s} unit {unit} tasks {row['tasks']} mib {row['mib']} "
                  f"{'streams' if row['streams'] else ''} {row['pct']} "
                  + " ".join(f"{k} x{v:.3f}" for k, v in row["new"].items())
                  + f" again x{row['again']:.3f}", flush=True)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                   "command": f"python3 scripts/cpu_run_order_probe.py OUT.json {seed} {count}"
                   + (" one" if NEW == ("one",) else f" {min_unit}"), "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
