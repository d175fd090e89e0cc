"""Square tiles through shared memory: the classic coalesced transpose.

A block reads a TILE x TILE tile with its threads along input rows (coalesced), waits at a barrier, and writes
the tile's columns along output rows (coalesced). The shared tile is then read down its columns: with TILE = 32
four-byte words per row every thread of a warp hits the same bank (32-way conflict), unless each row is padded
by one element (TILE + 1). ROWS < TILE coarsens: each thread moves TILE / ROWS elements. DIAGONAL renumbers the
blocks along diagonals, the old cure for partition camping.
"""

from __future__ import annotations

import numba
from numba import cuda, uint32

from . import u32


def make_tiled(dtype, tile: int = 32, rows: int = 8, pad: int = 0, diagonal: bool = False):
    TILE, ROWS = u32(tile), u32(rows)
    SHAPE = (tile, tile + pad)
    T = numba.from_dtype(dtype)
    DIAGONAL = diagonal

    @cuda.jit
    def tiled(out, x):
        buf = cuda.shared.array(SHAPE, T)
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        tx, ty = uint32(cuda.threadIdx.x), uint32(cuda.threadIdx.y)
        tiles_x = uint32((n_cols + TILE - uint32(1)) // TILE)
        tiles_y = uint32((n_rows + TILE - uint32(1)) // TILE)
        block_y = uint32(cuda.blockIdx.y)
        while block_y < tiles_y:  # tile rows beyond the grid's y limit
            bx, by = uint32(cuda.blockIdx.x), block_y
            if DIAGONAL:  # renumber along diagonals: consecutive blocks hit different memory partitions
                linear = uint32(bx + tiles_x * by)
                by = uint32(linear % tiles_y)
                bx = uint32((linear // tiles_y + by) % tiles_x)
            x0, y0 = uint32(bx * TILE), uint32(by * TILE)
            for j in range(uint32(0), TILE, ROWS):
                row, col = uint32(y0 + ty + j), uint32(x0 + tx)
                if row < n_rows and col < n_cols:
                    buf[uint32(ty + j), tx] = x[row, col]
            cuda.syncthreads()
            for j in range(uint32(0), TILE, ROWS):
                row, col = uint32(x0 + ty + j), uint32(y0 + tx)
                if row < n_cols and col < n_rows:
                    out[row, col] = buf[tx, uint32(ty + j)]
            cuda.syncthreads()
            block_y = uint32(block_y + uint32(cuda.gridDim.y))
    return tiled
