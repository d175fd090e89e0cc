"""Probe: tile shapes of the CPU's permute-plane kernel against torch on random permutations.

python3 scripts/cpu_permute_sweep.py SEED COUNT [--json FILE]: draws COUNT cases as the permute suite does (rank
3-6, 16-128 MiB, 1- to 16-byte elements), keeps those planned as permute-plane, checks every candidate bit for bit
against NumPy (output poisoned first), and times them interleaved (median of 5) beside torch's copy_ of the
permuted view and a single-threaded np.copyto of the same bytes.
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

CANDIDATES = ((128, 8, 8, 16), (128, 8, 8, 64), (64, 8, 8, 64), (64, 4, 8, 16), (64, 4, 8, 64), (128, 4, 8, 64))


def candidates(x, out, plan):
    perm = plan.perm
    found = {}
    for tile, ma, mb, min_b in CANDIDATES:
        old, P.PLANE_MIN_B = P.PLANE_MIN_B, min_b
        try:
            sides = P.plane_sides(perm)
        finally:
            P.PLANE_MIN_B = old
        variant = dataclasses.replace(plan, sides=sides)
        word = sides.word
        lo, _ = byte_range(perm.extents, perm.in_strides, perm.itemsize)
        kind = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}[word]
        fx = x.reshape(-1).view(np.uint8)[lo:].view(kind)
        fo = out.reshape(-1).view(kind)
        tables = P._tables(variant)
        kernel = P.plane_kernel(ma, mb)
        found[f"{tile}/{ma}x{mb}/b{min_b}"] = (
            lambda k=kernel, t=tables, tile=tile, s=sides, fx=fx, fo=fo: k(fx, fo, s.a.extent, s.a.in_stride, *t, tile))
    return found


def measure(case, repeats=5):
    shape, axes = case.shape, case.axes
    dtype = numpy_dtype(case.dtype)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8).view(dtype).reshape(shape)
    ref = np.ascontiguousarray(np.transpose(x, axes))
    out = np.empty_like(ref)
    p = cornerturn.plan(shape, dtype, axes=axes)
    fns = candidates(x, out, p._backend)
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
    for fn in fns.values():
        fn()
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    gbs = {k: 2 * x.nbytes / 1e9 / float(np.median(v)) for k, v in times.items()}
    return {"case": case.name, "itemsize": dtype.itemsize, "plan": p._backend.reason, "gbs": gbs}


def summary(rows):
    names = [k for k in rows[0]["gbs"] if k not in ("torch", "copy")]
    for size in sorted({r["itemsize"] for r in rows}) + [None]:
        sel = [r for r in rows if size is None or r["itemsize"] == size]
        line = []
        for k in names:
            ratios = [r["gbs"][k] / r["gbs"]["torch"] for r in sel]
            line.append(f"{k} {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}/{min(ratios):.2f}")
        print(f"{size or 'all'} B ({len(sel)}): x torch geomean/min: " + "  ".join(line))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("seed", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for case in suites.random_permutations(args.seed, args.count, "cpu"):
        if cornerturn.plan(case.shape, case.dtype, axes=case.axes).method != "permute-plane":
            continue
        row = measure(case)
        rows.append(row)
        print(f"{row['case']:44s} " + " ".join(f"{k} {v:5.1f}" for k, v in row["gbs"].items()), flush=True)
    summary(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "count": args.count, "machine": "2-core", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
