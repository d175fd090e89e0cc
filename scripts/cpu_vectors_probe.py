"""Probe: the vector-register block kernel (cpu/vectors.py) against the CPU engine's current plan and np.copyto,
on random-suite shapes of 1- to 8-byte elements. Every output bit-exact; methods timed in interleaved rounds.

    python3 scripts/cpu_vectors_probe.py --seed S --cases N --out FILE.json
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import time

import numba
import numpy as np
from numba import prange

import cornerturn
from cornerturn.bench.suites import Case, random_cases
from cornerturn.cpu.kernels import _tile_of, tile_kernel
from cornerturn.cpu.vectors import block, block_side, vector_kernel


@functools.cache
def staged_kernel(itemsize, tile, pad):
    """The vector kernel with each tile first copied row by row into a per-thread scratch whose rows are
    tile + pad elements apart, and transposed from there."""
    N = block_side(itemsize)
    P = tile + pad
    @numba.njit(parallel=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        out_matrix, out_row, out_col = out.strides
        tiles_i = (rows + tile - 1) // tile
        per_matrix = tiles_i * ((cols + tile - 1) // tile)
        scratch = np.empty((numba.get_num_threads(), tile, P), x.dtype)
        s_row = P * x.itemsize
        for t in prange(batch * per_matrix):
            s = scratch[numba.get_thread_id()]
            b, ti, tj = _tile_of(t, per_matrix, tiles_i)
            i0 = ti * tile
            j0 = tj * tile
            i1 = min(i0 + tile, rows)
            j1 = min(j0 + tile, cols)
            w = j1 - j0
            for i in range(i0, i1):
                s[i - i0, :w] = x[b, i, j0:j1]
            i_full = i0 + ((i1 - i0) // N) * N
            j_full = j0 + ((j1 - j0) // N) * N
            for jj in range(j0, j_full, N):
                for ii in range(i0, i_full, N):
                    s_at = (ii - i0) * s_row + (jj - j0) * x.itemsize
                    out_at = b * out_matrix + jj * out_row + ii * out_col
                    block(s, s_at, s_row, out, out_at, out_row)
                for j in range(jj, jj + N):
                    for i in range(i_full, i1):
                        out[b, j, i] = s[i - i0, j - j0]
            for j in range(j_full, j1):
                for i in range(i0, i1):
                    out[b, j, i] = s[i - i0, j - j0]
    return kernel


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--shapes", default="", help="named cases as dtype:MxN or dtype:BxMxN, comma-separated, "
                    "measured before the random ones")
    ap.add_argument("--cases", type=int, default=24)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=lambda s: tuple(map(int, s.split(","))), default=(1, 2, 4, 8))
    ap.add_argument("--tiles", default="128,256,512,1024", help="tiles (elements square), comma-separated")
    ap.add_argument("--staged", default="", help="tiles of the staged kernel, comma-separated")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed + 1)
    rows = []
    tiles = [int(t) for t in args.tiles.split(",")]
    named = [Case(tuple(map(int, shape.split("x"))), dtype)
             for dtype, shape in (spec.split(":") for spec in args.shapes.split(",") if spec)]
    cases = named + [c for c in random_cases(args.seed, args.cases, "cpu") if c.itemsize in args.sizes]
    for n, case in enumerate(cases):
        it = case.itemsize
        word = np.dtype(f"u{it}") if it <= 8 else np.dtype(np.complex128)
        shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
        bits = rng.integers(0, 2**63, size=(*shape, max(1, it // 8)), dtype=np.uint64)
        x = bits.astype(np.dtype(f"u{it}")).reshape(shape) if it <= 8 else bits.view(word).reshape(shape)
        out = np.empty((shape[0], shape[2], shape[1]), word)
        copy = np.empty_like(x)
        methods = {"copy": lambda copy=copy, x=x: np.copyto(copy, x),
                   "engine": lambda x=x, out=out: cornerturn.transpose(x, out=out)}
        for t in tiles:
            # 16-byte elements: the element kernel's 4x4 micro tiles in tiles of t
            k = vector_kernel(it, t, True) if it <= 8 else tile_kernel(t, 4, 4, True)
            methods[f"t{t}"] = (lambda k=k, x=x, out=out: k(x, out))
        for t in (int(t) for t in args.staged.split(",") if t):
            k = staged_kernel(it, t, 16 // it)
            methods[f"s{t}"] = (lambda k=k, x=x, out=out: k(x, out))
        times = {name: [] for name in methods}
        want = np.ascontiguousarray(x.transpose(0, 2, 1)).view(np.uint8)  # bits, NaN patterns included
        for name, f in methods.items():  # warm-up and check
            out.view(np.uint8).fill(0xA5)
            f()
            if name != "copy" and not np.array_equal(out.view(np.uint8), want):
                raise SystemExit(f"{case.name}: {name} wrong")
        for _ in range(args.repeats):
            for name, f in methods.items():
                t0 = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - t0)
        gbs = {name: 2 * x.nbytes / float(np.median(ts)) / 1e9 for name, ts in times.items()}
        rows.append({"case": case.name, "itemsize": it, "shape": list(shape), "gbs": gbs,
                     "engine_plan": cornerturn.plan(case.shape, case.dtype, device="cpu").method})
        best = max((g, k) for k, g in gbs.items() if k[0] in "ts")
        print(f"{n:2d} {case.name:28s} copy {gbs['copy']:5.1f} engine {gbs['engine']:5.1f} "
              + " ".join(f"{k} {g:5.1f}" for k, g in gbs.items() if k[0] in "ts")
              + f" best {best[1]} {best[0] / gbs['copy']:.0%}", flush=True)
    with open(args.out, "w") as f:
        json.dump({"machine": platform.processor() or platform.machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                   time.gmtime()), "seed": args.seed, "repeats": args.repeats, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
