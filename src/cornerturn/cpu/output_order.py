"""16-byte matrices moved in the output's order: each output row written in one contiguous run, read down one input
column with a single strided load; the threads share the output's rows out, one contiguous part each, so each
writes one sequential stream (the loop torch's copy runs; docs/cpu.md, "Torch's loop, found").

Streamed (x86-64, an output aligned to 16 bytes), each element is stored as an aligned non-temporal vector: whole
lines written past the caches, none read first (docs/cpu.md, "Streamed output").

Each output row is walked eight elements at a time, written out by hand (eight loads, then eight stores; streamed,
eight load-store pairs), then the rest one at a time: on 16 random complex128 matrices of seed 12231 (2-core AMD
EPYC, 2026-12-02) 1.09x the one-at-a-time loop with plain stores and 1.12x streamed, and ahead of torch's copy on
all 16 (1.10x-1.57x), where the one-at-a-time streamed loop was behind it on 5 (docs/cpu.md). LLVM must not unroll
the loops further (an 8-byte loop it unrolled by 8 ran at 0.65x, docs/cpu.md, "Torch's loop, found"), so they run
over flat views with unsigned offsets (no wraparound code) and step by a 1 passed at run time, which leaves their
trip counts unknown to LLVM.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import prange, uint64

from .nontemporal import store_fence, streamable, value_stream

STEP = np.uint64(1)  # the inner loop's step, passed at run time (see above)


@numba.njit(cache=True, boundscheck=False, nogil=True)
def _rows_down_columns(xf, of, o, s, rows, count, x_row, one):
    """`count` output rows of `rows` elements from element o of the flat output `of`, output row k read down input
    column s + k of the flat input `xf`, whose rows are x_row elements apart. Compiled on its own and called once a
    part: a loop of many small tasks under prange ran at half torch's speed."""
    eight = one * uint64(8)
    for _ in range(count):
        end = o + rows
        i = s
        while o + eight <= end:
            a0, a1, a2, a3 = xf[i], xf[i + x_row], xf[i + uint64(2) * x_row], xf[i + uint64(3) * x_row]
            a4, a5, a6, a7 = xf[i + uint64(4) * x_row], xf[i + uint64(5) * x_row], xf[i + uint64(6) * x_row], \
                xf[i + uint64(7) * x_row]
            of[o], of[o + uint64(1)], of[o + uint64(2)], of[o + uint64(3)] = a0, a1, a2, a3
            of[o + uint64(4)], of[o + uint64(5)], of[o + uint64(6)], of[o + uint64(7)] = a4, a5, a6, a7
            o += eight
            i += x_row * eight
        while o < end:
            of[o] = xf[i]
            o += one
            i += x_row
        s += one


@numba.njit(cache=True, boundscheck=False, nogil=True)
def _rows_down_columns_streamed(xf, of, o, s, rows, count, x_row, one):
    """_rows_down_columns with each element stored non-temporally (`of` aligned to 16 bytes), then a store fence."""
    eight = one * uint64(8)
    for _ in range(count):
        end = o + rows
        i = s
        while o + eight <= end:
            for m in range(8):  # unrolled by LLVM: a constant trip count
                value_stream(of, o + uint64(m), xf[i + uint64(m) * x_row])
            o += eight
            i += x_row * eight
        while o < end:
            value_stream(of, o, xf[i])
            o += one
            i += x_row
        s += one
    store_fence()


@functools.cache
def output_order_kernel(parallel: bool, stream: bool = False):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for a 3-D `x` whose strides are non-negative multiples of its
    element size, columns contiguous, and a C-contiguous `out`; `stream`: non-temporal stores where `out` is aligned
    to 16 bytes (plain stores elsewhere)."""
    move = _rows_down_columns_streamed if stream else _rows_down_columns

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def spread(xf, of, batch, rows, cols, x_batch, x_row, one, parts, streamed):
        total = batch * cols  # output rows, matrix after matrix
        for w in prange(parts):
            k = total * w // parts
            end = total * (w + 1) // parts
            while k < end:
                b = k // cols
                j = k - b * cols
                count = min(end - k, cols - j)
                o, s = uint64(b * rows * cols + j * rows), uint64(b * x_batch + j)
                if streamed:
                    move(xf, of, o, s, uint64(rows), count, uint64(x_row), one)
                else:
                    _rows_down_columns(xf, of, o, s, uint64(rows), count, uint64(x_row), one)
                k += count

    def kernel(x: np.ndarray, out: np.ndarray) -> None:
        batch, rows, cols = x.shape
        size = x.itemsize
        x_batch, x_row, x_col = (s // size for s in x.strides)
        if x_col != 1 or any(s < 0 or s % size for s in x.strides):
            raise ValueError(f"output_order_kernel: strides {x.strides} of {size}-byte elements")
        x_batch = x_batch if batch > 1 else 0
        span = (batch - 1) * x_batch + (rows - 1) * x_row + cols  # elements from the first to past the last
        flat = np.lib.stride_tricks.as_strided(x, shape=(span,), strides=(size,))
        parts = numba.get_num_threads() if parallel else 1  # read here: inside, it would keep the kernel from the cache
        spread(flat, out.reshape(-1), batch, rows, cols, x_batch, x_row, STEP, parts, stream and streamable(out))

    return kernel
