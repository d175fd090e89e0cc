"""Probe: planes whose side a takes the output's next axis (permute.plane_sides' fold_next: the output's innermost
axis rides inside each step along a, as a short one does, so that a tile writes the output's rows of a * ns + k whole,
about PLANE_NEXT_SPAN units of them a tile) against the planner's plane (a the output's innermost axis, its rows
written a tile row at a time), the plane again (the noise between rounds) and torch's copy of the permuted view, on
random permutations of the permute suite's kind (from SEED) that the plane takes with the output's next axis outside
B; each result bit for bit against NumPy into a poisoned output; medians of 3 in as many interleaved rounds as there
are methods, each in another order, against np.copyto.

    python3 scripts/cpu_plane_next_probe.py OUT.json SEED CASES [SPAN,...|rule]

SPAN: the spans timed (next-SPAN), 512 where none is given. With `rule`: the rule (permute.PLANE_NEXT on, its
PLANE_NEXT_MAX_BYTES and PLANE_NEXT_SPAN) against it off, on the cases it folds.
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

torch.set_num_threads(2)
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}
VARIANTS: dict[str, tuple[bool, int]] = {"plane": (False, 512), "plane-again": (False, 512)}  # (PLANE_NEXT, SPAN)


def median_time(f, n: int = 3) -> float:
    f()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2]


def use(variant: str) -> None:
    cpu_permute.PLANE_NEXT, cpu_permute.PLANE_NEXT_SPAN = VARIANTS[variant]
    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()
    cpu_permute._tables.cache_clear()
    cpu_permute._short_rows.cache_clear()


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
    use("plane")  # the planner's
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def main() -> None:
    out_path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rule = len(sys.argv) > 4 and sys.argv[4] == "rule"
    spans = [int(s) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 and not rule else [512]
    if rule:
        VARIANTS["rule"] = (True, cpu_permute.PLANE_NEXT_SPAN)
    for span in [] if rule else spans:
        VARIANTS[f"next-{span}"] = (True, span)
    new = ["rule"] if rule else [f"next-{span}" for span in spans]
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
            if not isinstance(perm, Permutation) or cpu_permute.plan(perm).name != "permute-plane":
                continue
            plain, folded = cpu_permute.plane_sides(perm, False), cpu_permute.plane_sides(perm, True)
            if plain.short is not None or folded.short is None:
                continue
            if rule:
                use("rule")
                ruled = cpu_permute.plane_sides(perm)
                use("plane")
                if ruled.short is None:
                    continue
            m = measure(case, word, rng)
            row = {"case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}", "word": folded.word,
                   "inner": folded.short.extent, "next": folded.a.extent,
                   "b": math.prod(axis.extent for axis in folded.b), "run_b": cpu_permute.plane_run(folded),
                   "inner_stride": folded.short.in_stride * folded.word,
                   "next_stride": folded.a.in_stride * folded.word,
                   "mib": round(math.prod(case.shape) * word.itemsize / 2**20, 1),
                   "pct": {k: round(100 * m["copy"] / m[k], 1) for k in (*VARIANTS, "torch")},
                   "new": {k: m["plane"] / m[k] for k in new}, "again": m["plane"] / m["plane-again"],
                   "torch": m["plane"] / m["torch"]}
            rows.append(row)
            print(f"{row['case']:44s} word {row['word']} inner {row['inner']} next {row['next']} b {row['b']} "
                  f"run_b {row['run_b']} strides {row['inner_stride']} {row['next_stride']} "
                  f"mib {row['mib']} {row['pct']} " + " ".join(f"{k} x{v:.3f}" for k, v in row["new"].items())
                  + f" again x{row['again']:.3f}", flush=True)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                   "command": f"python3 scripts/cpu_plane_next_probe.py OUT.json {seed} {count} "
                   + ("rule" if rule else ",".join(map(str, spans))), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
