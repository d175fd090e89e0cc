"""Copy kernels: the ceiling every transpose is measured against.

copy: each 32x8 block copies a 32x32 tile, each thread four elements a column apart; reads and writes are
coalesced (a warp touches one contiguous row segment). copy_shared: the same, staged through a shared-memory
tile, to show what the staging itself costs.
"""

from __future__ import annotations

import numba
from numba import cuda, uint32

from . import u32


def make_copy(dtype, tile: int = 32, rows: int = 8):
    TILE, ROWS = u32(tile), u32(rows)

    @cuda.jit
    def copy(out, x):
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        col = uint32(uint32(cuda.blockIdx.x) * TILE + uint32(cuda.threadIdx.x))
        by = uint32(cuda.blockIdx.y)
        while by < (n_rows + TILE - uint32(1)) // TILE:  # tile rows beyond the grid's y limit
            row = uint32(by * TILE + uint32(cuda.threadIdx.y))
            for j in range(uint32(0), TILE, ROWS):
                r = uint32(row + j)
                if r < n_rows and col < n_cols:
                    out[r, col] = x[r, col]
            by = uint32(by + uint32(cuda.gridDim.y))
    return copy


def make_copy_shared(dtype, tile: int = 32, rows: int = 8):
    TILE, ROWS = u32(tile), u32(rows)
    SHAPE = (tile, tile)
    T = numba.from_dtype(dtype)

    @cuda.jit
    def copy_shared(out, x):
        buf = cuda.shared.array(SHAPE, T)
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        tx, ty = uint32(cuda.threadIdx.x), uint32(cuda.threadIdx.y)
        col = uint32(uint32(cuda.blockIdx.x) * TILE + tx)
        by = uint32(cuda.blockIdx.y)
        while by < (n_rows + TILE - uint32(1)) // TILE:  # tile rows beyond the grid's y limit
            row = uint32(by * TILE + ty)
            for j in range(uint32(0), TILE, ROWS):
                r = uint32(row + j)
                if r < n_rows and col < n_cols:
                    buf[uint32(ty + j), tx] = x[r, col]
            cuda.syncthreads()
            for j in range(uint32(0), TILE, ROWS):
                r = uint32(row + j)
                if r < n_rows and col < n_cols:
                    out[r, col] = buf[uint32(ty + j), tx]
            cuda.syncthreads()
            by = uint32(by + uint32(cuda.gridDim.y))
    return copy_shared
