"""Naive transposes: no shared memory, so one side of every access is strided.

rows: threads of a warp walk along an input row: the read is coalesced, the write hits 32 output rows (one
32-byte sector each for 4-byte elements). cols: threads walk along an output row: the write is coalesced, the
read strided. one_per_element: one thread per element on a 1-D grid, the row-wise pattern without tiles.
"""

from __future__ import annotations

from numba import cuda, uint32, uint64

from . import u32


def make_naive_rows(dtype, tile: int = 32, rows: int = 8):
    TILE, ROWS = u32(tile), u32(rows)

    @cuda.jit
    def naive_rows(out, x):
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        col = uint32(uint32(cuda.blockIdx.x) * TILE + uint32(cuda.threadIdx.x))
        by = uint32(cuda.blockIdx.y)
        while by < (n_rows + TILE - uint32(1)) // TILE:  # tile rows beyond the grid's y limit
            row = uint32(by * TILE + uint32(cuda.threadIdx.y))
            for j in range(uint32(0), TILE, ROWS):
                r = uint32(row + j)
                if r < n_rows and col < n_cols:
                    out[col, r] = x[r, col]
            by = uint32(by + uint32(cuda.gridDim.y))
    return naive_rows


def make_naive_cols(dtype, tile: int = 32, rows: int = 8):
    TILE, ROWS = u32(tile), u32(rows)

    @cuda.jit
    def naive_cols(out, x):
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])  # out is n_cols x n_rows
        out_col = uint32(uint32(cuda.blockIdx.x) * TILE + uint32(cuda.threadIdx.x))
        by = uint32(cuda.blockIdx.y)
        while by < (n_cols + TILE - uint32(1)) // TILE:  # tile rows beyond the grid's y limit
            out_row = uint32(by * TILE + uint32(cuda.threadIdx.y))
            for j in range(uint32(0), TILE, ROWS):
                r = uint32(out_row + j)
                if r < n_cols and out_col < n_rows:
                    out[r, out_col] = x[out_col, r]
            by = uint32(by + uint32(cuda.gridDim.y))
    return naive_cols


def make_naive_1d(dtype, tile: int = 256, rows: int = 1):
    @cuda.jit
    def naive_1d(out, x):
        n_rows, n_cols = uint64(x.shape[0]), uint64(x.shape[1])
        total = n_rows * n_cols
        start = uint64(cuda.blockIdx.x) * uint64(cuda.blockDim.x) + uint64(cuda.threadIdx.x)
        step = uint64(cuda.gridDim.x) * uint64(cuda.blockDim.x)
        i = start
        while i < total:
            row = i // n_cols
            col = i - row * n_cols
            out[col, row] = x[row, col]
            i += step

    return naive_1d
