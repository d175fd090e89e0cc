"""Rectangular tiles: TILE_R rows x TILE_C columns through shared memory.

The read is the classic one (a warp along an input row of TILE_C elements); the write covers the tile's
TILE_C x TILE_R transpose with rows only TILE_R elements long, so a warp writes TILE_C / TILE_R shorter row
pieces: with 16 four-byte elements, 64 bytes each, two sectors instead of four per row. Padding the shared rows
by one element moves the column reads of the tile off a single bank.
"""

from __future__ import annotations

import numba
from numba import cuda, uint32

from . import u32


def make_rectangular(dtype, tile_r: int = 16, tile_c: int = 32, rows: int = 8, pad: int = 0):
    TILE_R, TILE_C, ROWS = u32(tile_r), u32(tile_c), u32(rows)
    OUT_ROWS_PER_PASS = u32(tile_c * rows // tile_r)  # output rows the block writes per pass
    SHAPE = (tile_r, tile_c + pad)
    T = numba.from_dtype(dtype)

    @cuda.jit
    def rectangular(out, x):
        buf = cuda.shared.array(SHAPE, T)
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        tx, ty = uint32(cuda.threadIdx.x), uint32(cuda.threadIdx.y)
        t = uint32(ty * TILE_C + tx)  # the block's threads renumbered for the write: TILE_R along an output row
        out_c, out_r = uint32(t % TILE_R), uint32(t // TILE_R)
        tiles_y = uint32((n_rows + TILE_R - uint32(1)) // TILE_R)
        block_y = uint32(cuda.blockIdx.y)
        while block_y < tiles_y:  # tile rows beyond the grid's y limit
            x0, y0 = uint32(uint32(cuda.blockIdx.x) * TILE_C), uint32(block_y * TILE_R)
            for j in range(uint32(0), TILE_R, ROWS):
                row, col = uint32(y0 + ty + j), uint32(x0 + tx)
                if row < n_rows and col < n_cols:
                    buf[uint32(ty + j), tx] = x[row, col]
            cuda.syncthreads()
            for j in range(uint32(0), TILE_C, OUT_ROWS_PER_PASS):
                row, col = uint32(x0 + out_r + j), uint32(y0 + out_c)
                if row < n_cols and col < n_rows:
                    out[row, col] = buf[out_c, uint32(out_r + j)]
            cuda.syncthreads()
            block_y = uint32(block_y + uint32(cuda.gridDim.y))
    return rectangular
