"""Probe: micro tiles of the CPU's permute-plane kernel for 8- and 16-byte words, against the plan and torch.

python3 scripts/cpu_plane_micro_probe.py --seeds S,S --draws N --out FILE [--words 8,16]: draws N cases a seed as the
permute suite does (rank 3-6, 16-128 MiB), keeps those planned as permute-plane in words of --words, checks every
candidate bit for bit against NumPy (output poisoned first), and times them in interleaved rounds (median of every
sample) beside torch's copy_ of the permuted view and np.copyto of the same bytes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

import numpy as np
import torch

import cornerturn
from cornerturn.arrays import byte_range
from cornerturn.bench import suites
from cornerturn.bench.host import numpy_dtype
from cornerturn.cpu import permute as P

# name: (tile and micro tile, or None for the plan's of 8 x 8 (8-byte words) or 4 x 8 (16-byte words); the output's
# innermost axis is short under this many units; short axes of PLANE_COMPILED_SHORT or more moved with run-time
# extents)
CANDIDATES = {"before": ((None), 8, False)}
BEFORE = {8: (128, 8, 8), 16: (64, 4, 8)}
KINDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}


def sides_with(perm, min_a):
    old, P.PLANE_MIN_A = P.PLANE_MIN_A, dict.fromkeys(P.PLANE_MIN_A, min_a)
    try:
        return P.plane_sides(perm)
    finally:
        P.PLANE_MIN_A = old


def kernels(x, out, plan):
    perm = plan.perm
    word = plan.sides.word
    lo, _ = byte_range(perm.extents, perm.in_strides, perm.itemsize)
    fx = x.reshape(-1).view(np.uint8)[lo:].view(KINDS[word])
    fo = out.reshape(-1).view(KINDS[word])
    found = {}
    for name, (shape, min_a, run_time) in CANDIDATES.items():
        sides = sides_with(perm, min_a)
        if sides is None:
            sides = plan.sides
        tables = P._tables(dataclasses.replace(plan, sides=sides))
        short = sides.short
        tile, ma, mb = shape or BEFORE[word]
        n = short.extent if short else 1
        k = P.plane_kernel(ma, mb, 0 if run_time and n >= P.PLANE_COMPILED_SHORT else n, 0)
        found[name] = (lambda k=k, tile=tile, sides=sides, short=short, tables=tables, n=n: k(
            fx, fo, sides.a.extent, sides.a.in_stride, n, short.in_stride if short else 0, *tables, tile, 0))
    return found


def measure(case, rounds=5, repeats=3):
    shape, axes = case.shape, case.axes
    dtype = numpy_dtype(case.dtype)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8).view(dtype).reshape(shape)
    ref = np.ascontiguousarray(np.transpose(x, axes))
    out = np.empty_like(ref)
    p = cornerturn.plan(shape, dtype, axes=axes, device="cpu")
    fns = kernels(x, out, p._backend)
    fns["plan"] = lambda: p.execute(x, out)
    for name, fn in fns.items():
        out.view(np.uint8)[...] = 0xA5
        fn()
        assert np.array_equal(out.view(np.uint8), ref.view(np.uint8)), (case.name, name)
    kind = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}[dtype.itemsize]
    src = torch.from_numpy(x.view(kind)).permute(axes)
    dst = torch.from_numpy(np.empty_like(ref).view(kind))
    copy_out = np.empty_like(x)
    fns["torch"] = lambda: dst.copy_(src)
    fns["copy"] = lambda: np.copyto(copy_out, x)
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            fn()
            for _ in range(repeats):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    gbs = {k: 2 * x.nbytes / 1e9 / float(np.median(v)) for k, v in times.items()}
    return {"case": case.name, "itemsize": dtype.itemsize, "plan": p._backend.reason, "gbs": gbs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="")
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--words", default="8,16")
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", action="append", default=[])
    args = ap.parse_args()
    torch.set_num_threads(2)
    words = {int(w) for w in args.words.split(",")}
    results = []
    named = [(0, suites.parse_case(c)) for c in args.case]
    drawn = [(seed, case) for seed in (int(s) for s in args.seeds.split(",") if s)
             for case in suites.random_permutations(seed, args.draws, "cpu")]
    for seed, case in named + drawn:
        if True:
            p = cornerturn.plan(case.shape, numpy_dtype(case.dtype), axes=case.axes, device="cpu")._backend
            if p.name != "permute-plane" or p.sides.word not in words:
                continue
            r = measure(case)
            r["seed"] = seed
            results.append(r)
            g = r["gbs"]
            print(f"{r['case']:48s} " + " ".join(f"{k} {100 * v / g['copy']:.0f}" for k, v in g.items() if k != "copy"),
                  flush=True)
            with open(args.out, "w") as f:
                json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "results": results}, f, indent=1)
    names = [k for k in CANDIDATES] + ["plan", "torch"]
    for name in names:
        ratios = [r["gbs"][name] / r["gbs"]["before"] for r in results]
        print(f"{name:10s} x before geomean {math.exp(np.mean(np.log(ratios))):.3f} "
              f"min {min(ratios):.2f} max {max(ratios):.2f} over {len(ratios)}")


if __name__ == "__main__":
    main()
