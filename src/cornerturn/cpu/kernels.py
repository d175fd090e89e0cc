"""CPU transpose kernels (Numba): square tiles handed to threads, each cut into small micro tiles.

Inside a micro tile of `micro_rows` x `micro_cols` elements the loads walk down a few input rows held in L1 and
the stores run along one output row, so each output cache line is written in one contiguous run; tiles go to
threads column of tiles by column of tiles, so neighbouring threads write neighbouring output rows. The micro
tile's extents are compile-time constants (closure variables), so its loops unroll; each factory call compiles
once per array layout and is kept in Numba's on-disk cache. Bytes whose rows and columns are whole 64-bit words
move as 8x8 blocks held in words (`byte_block_kernel`), so no byte moves alone. A matrix with a side of a few
elements (3 colour channels) moves in runs along its long side (`skinny_kernel`): a few sequential streams on
one side, one on the other. 16-byte elements of matrices of 512 columns or more (cpu/planner.walks) move in column
walks (`column_walk_kernel`): a task reads a band of 16 input columns down up to WALK_ROWS rows, four columns (one
64-byte line) at a time, and writes each output row's part in one contiguous run. 16-byte elements of matrices of
300 to 1,024 columns (cpu/planner.in_input_order) move in the input's order (`input_order_kernel`): a task reads four
input rows and writes them down the output's columns, 64 bytes of each output row at once. Both stream their output
(non-temporal stores, cpu/nontemporal.py) where the planner says so.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import prange

from .bytes8 import load8, store8, transpose8
from .nontemporal import store_fence, streamable, value_stream


@numba.njit(inline="always")
def _tile_of(t, per_matrix, tiles_i):
    """(matrix, tile row, tile column) of task t: tiles numbered down columns of tiles, matrix after matrix."""
    b = t // per_matrix
    r = t - b * per_matrix
    tj = r // tiles_i
    return b, r - tj * tiles_i, tj


@functools.cache
def tile_kernel(tile: int, micro_rows: int, micro_cols: int, parallel: bool):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for a 3-D `x` of any strides and a C-contiguous `out`."""
    U, V = micro_rows, micro_cols

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        tiles_i = (rows + tile - 1) // tile
        per_matrix = tiles_i * ((cols + tile - 1) // tile)
        for t in prange(batch * per_matrix):
            b, ti, tj = _tile_of(t, per_matrix, tiles_i)
            i0 = ti * tile
            j0 = tj * tile
            i1 = min(i0 + tile, rows)
            j1 = min(j0 + tile, cols)
            i_full = i0 + ((i1 - i0) // U) * U
            j_full = j0 + ((j1 - j0) // V) * V
            for jj in range(j0, j_full, V):
                for ii in range(i0, i_full, U):
                    for j in range(jj, jj + V):
                        for i in range(ii, ii + U):
                            out[b, j, i] = x[b, i, j]
                for j in range(jj, jj + V):
                    for i in range(i_full, i1):
                        out[b, j, i] = x[b, i, j]
            for j in range(j_full, j1):
                for i in range(i0, i1):
                    out[b, j, i] = x[b, i, j]

    return kernel


@functools.cache
def byte_block_kernel(tile_blocks: int, parallel: bool):
    """kernel(x, out) for bytes as 64-bit words: `x` (batch, rows, cols // 8) words of any strides, each 8 bytes of
    a row; `out` (batch, cols, rows // 8) C-contiguous. An 8x8 byte block is 8 words loaded from 8 input rows,
    transposed in registers and stored as 8 words of 8 output rows; tiles of tile_blocks x tile_blocks blocks go
    to threads, and inside a tile the blocks run down a block column, so each output row is written in one run."""
    T = tile_blocks

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, col_words = x.shape
        row_blocks = rows // 8
        tiles_i = (row_blocks + T - 1) // T
        per_matrix = tiles_i * ((col_words + T - 1) // T)
        for t in prange(batch * per_matrix):
            b, ti, tj = _tile_of(t, per_matrix, tiles_i)
            for bj in range(tj * T, min(tj * T + T, col_words)):
                j = 8 * bj
                for bi in range(ti * T, min(ti * T + T, row_blocks)):
                    i = 8 * bi
                    store8(out, b, j, bi, transpose8(load8(x, b, i, bj)))

    return kernel


SKINNY_RUN = 2048  # elements of the long side a task moves


@functools.cache
def skinny_kernel(short: int, short_rows: bool, parallel: bool):
    """kernel(x, out): out[b, j, i] = x[b, i, j] where x has `short` rows (short_rows) or `short` columns, a
    compile-time constant, so the short loop unrolls. Tasks are runs of SKINNY_RUN elements of the long side:
    with short rows each task reads `short` input streams and writes one output run; with short columns it
    reads one input run and writes `short` output streams."""
    S, ROWS = short, short_rows

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        long = cols if ROWS else rows
        runs = (long + SKINNY_RUN - 1) // SKINNY_RUN
        for t in prange(batch * runs):
            b = t // runs
            k0 = (t - b * runs) * SKINNY_RUN
            move_elements(x, out, b, k0, min(k0 + SKINNY_RUN, long), S, ROWS)

    return kernel


@numba.njit(inline="always")
def move_elements(x, out, b, k0, k1, short, short_rows):
    """out[b, j, i] = x[b, i, j] for k0 <= k < k1 along the long side of a matrix with `short` rows (short_rows)
    or columns, element by element (inlined, so constant `short` and `short_rows` unroll and fold)."""
    if short_rows:
        for j in range(k0, k1):
            for i in range(short):
                out[b, j, i] = x[b, i, j]
    else:
        for i in range(k0, k1):
            for j in range(short):
                out[b, j, i] = x[b, i, j]


WALK_ROWS = 1024  # rows a column walk's task takes at most (the rows are shared evenly among the tasks of a column)
WALK_COLS = 16  # input columns a task walks down, four at a time


def _streamed_or_plain(streamed, plain):
    """kernel(x, out): `streamed(x, flat view of out)` where `out` is C-contiguous and `streamable`, else
    `plain(x, out)`; the streamed kernel kept as `kernel.streamed` (for tests of what it compiles to)."""

    def kernel(x: np.ndarray, out: np.ndarray) -> None:
        if streamable(out) and out.flags.c_contiguous:
            streamed(x, out.reshape(-1))
        else:
            plain(x, out)

    kernel.streamed = streamed
    return kernel


@numba.njit(inline="always")
def _walk_bounds(t, rows, cols):
    """(matrix, first row, row past the last, first column, column past the last) of column walk task t."""
    col_bands = (cols + WALK_COLS - 1) // WALK_COLS
    row_bands = (rows + WALK_ROWS - 1) // WALK_ROWS
    band_rows = (rows + row_bands - 1) // row_bands
    b, col_band, row_band = _tile_of(t, col_bands * row_bands, col_bands)  # along the column bands of a row band
    i0 = row_band * band_rows
    j0 = col_band * WALK_COLS
    return b, i0, min(i0 + band_rows, rows), j0, min(j0 + WALK_COLS, cols)


@numba.njit(inline="always")
def _walk_tasks(rows, cols):
    """Column walk tasks a matrix: bands of WALK_COLS columns by bands of up to WALK_ROWS rows."""
    return ((cols + WALK_COLS - 1) // WALK_COLS) * ((rows + WALK_ROWS - 1) // WALK_ROWS)


@functools.cache
def column_walk_kernel(parallel: bool, stream: bool = False):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for a 3-D `x` of 16-byte words (any strides) and a C-contiguous
    `out`. A task takes WALK_COLS columns of up to WALK_ROWS rows: for each four columns (the 64 bytes of one input
    line where rows start at lines) it walks down the rows, writing four output rows a run each; the lines it reads
    stay in the L2 for the walk of the next four. Streamed (x86-64), each element is stored as an aligned
    non-temporal vector and each task ends with a store fence, where `out` starts on 16 bytes (plain stores
    elsewhere)."""

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def walk(x, out):
        batch, rows, cols = x.shape
        for t in prange(batch * _walk_tasks(rows, cols)):
            b, i0, i1, j0, j1 = _walk_bounds(t, rows, cols)
            j = j0
            while j + 4 <= j1:
                for i in range(i0, i1):
                    out[b, j, i] = x[b, i, j]
                    out[b, j + 1, i] = x[b, i, j + 1]
                    out[b, j + 2, i] = x[b, i, j + 2]
                    out[b, j + 3, i] = x[b, i, j + 3]
                j += 4
            for jj in range(j, j1):
                for i in range(i0, i1):
                    out[b, jj, i] = x[b, i, jj]

    if not stream:
        return walk

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def walk_streamed(x, of):
        batch, rows, cols = x.shape
        for t in prange(batch * _walk_tasks(rows, cols)):
            b, i0, i1, j0, j1 = _walk_bounds(t, rows, cols)
            first = b * cols * rows  # matrix b's first element in the flat output
            j = j0
            while j + 4 <= j1:
                for i in range(i0, i1):
                    value_stream(of, first + j * rows + i, x[b, i, j])
                    value_stream(of, first + (j + 1) * rows + i, x[b, i, j + 1])
                    value_stream(of, first + (j + 2) * rows + i, x[b, i, j + 2])
                    value_stream(of, first + (j + 3) * rows + i, x[b, i, j + 3])
                j += 4
            for jj in range(j, j1):
                for i in range(i0, i1):
                    value_stream(of, first + jj * rows + i, x[b, i, jj])
            store_fence()

    return _streamed_or_plain(walk_streamed, walk)


INPUT_ORDER_ROWS = 4  # input rows a task of the input's order takes: 64 bytes of each output row it writes
# ... and streamed: 256 bytes of each output row. On 2-core AMD EPYC (2026-12-02, docs/cpu.md), streamed, against 4
# rows a task: 8 rows 1.23x-1.27x over three seeds of 14, 16 rows 1.37x (1.17x-1.67x, none behind; 1.08x-1.11x the
# 8), 32 rows 0.37x the 16; 2 rows 0.76x the 4. With plain stores 8 rows ran 1.02x-1.06x the 4.
INPUT_ORDER_STREAM_ROWS = 16


@functools.cache
def input_order_kernel(parallel: bool, stream: bool = False):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for a 3-D `x` of 16-byte words (any strides) and a C-contiguous
    `out`: INPUT_ORDER_ROWS input rows a task, each column's four elements loaded, then stored together as 64 bytes of
    one output row (a task of one row wrote 16 bytes of each output line it touched and came back for the rest).
    Streamed (x86-64), INPUT_ORDER_STREAM_ROWS rows a task, every element stored as an aligned non-temporal vector
    and each task ended with a store fence, where `out` starts on 16 bytes (plain stores elsewhere)."""

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def rows_in_order(x, out):
        batch, rows, cols = x.shape
        groups = (rows + INPUT_ORDER_ROWS - 1) // INPUT_ORDER_ROWS
        for t in prange(batch * groups):
            b = t // groups
            i = (t - b * groups) * INPUT_ORDER_ROWS
            if i + 4 <= rows:
                for j in range(cols):
                    a0, a1, a2, a3 = x[b, i, j], x[b, i + 1, j], x[b, i + 2, j], x[b, i + 3, j]
                    out[b, j, i], out[b, j, i + 1], out[b, j, i + 2], out[b, j, i + 3] = a0, a1, a2, a3
            else:
                for k in range(i, rows):
                    for j in range(cols):
                        out[b, j, k] = x[b, k, j]

    if not stream:
        return rows_in_order

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def rows_in_order_streamed(x, of):
        batch, rows, cols = x.shape
        groups = (rows + INPUT_ORDER_STREAM_ROWS - 1) // INPUT_ORDER_STREAM_ROWS
        for t in prange(batch * groups):
            b = t // groups
            i = (t - b * groups) * INPUT_ORDER_STREAM_ROWS
            first = b * cols * rows + i  # element (b, 0, i) of the flat output
            if i + INPUT_ORDER_STREAM_ROWS <= rows:
                for j in range(cols):
                    o = first + j * rows
                    for m in range(INPUT_ORDER_STREAM_ROWS):  # unrolled by LLVM: a constant trip count
                        value_stream(of, o + m, x[b, i + m, j])
            else:
                for k in range(i, rows):
                    for j in range(cols):
                        value_stream(of, first - i + j * rows + k, x[b, k, j])
            store_fence()

    return _streamed_or_plain(rows_in_order_streamed, rows_in_order)
