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
        tiles_x = (n_cols + TILE - uint32(1)) // TILE
        tiles_y = (n_rows + TILE - uint32(1)) // TILE
        block_y = uint32(cuda.blockIdx.y)
        while block_y < tiles_y:  # tile rows beyond the grid's y limit
            bx, by = uint32(cuda.blockIdx.x), block_y
            if DIAGONAL:  # renumber along diagonals: consecutive blocks hit different memory partitions
                linear = bx + tiles_x * by
                by = linear % tiles_y
                bx = (linear // tiles_y + by) % tiles_x
            x0 = bx * TILE
            y0 = by * TILE
            for j in range(uint32(0), TILE, ROWS):
                if y0 + ty + j < n_rows and x0 + tx < n_cols:
                    buf[ty + j, tx] = x[y0 + ty + j, x0 + tx]
            cuda.syncthreads()
            for j in range(uint32(0), TILE, ROWS):
                if x0 + ty + j < n_cols and y0 + tx < n_rows:
                    out[x0 + ty + j, y0 + tx] = buf[tx, ty + j]
            cuda.syncthreads()
            block_y += uint32(cuda.gridDim.y)
    return tiled
