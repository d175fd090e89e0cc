"""In-place transpose of a square matrix: tile pairs swapped through shared memory.

The block of tile (by, bx) above the diagonal loads its tile and the mirror tile (bx, by) into two padded
shared tiles, waits, and writes each one transposed into the other's place; a diagonal block transposes its one
tile; blocks below the diagonal have nothing to do. Reads and writes are coalesced as in the padded kernel.
"""

from __future__ import annotations

import numba
from numba import cuda, uint32

from . import u32


def make_inplace(dtype, tile: int = 32, rows: int = 8, pad: int = 1):
    TILE, ROWS = u32(tile), u32(rows)
    SHAPE = (tile, tile + pad)
    T = numba.from_dtype(dtype)

    @cuda.jit
    def inplace(a, unused):
        upper = cuda.shared.array(SHAPE, T)
        lower = cuda.shared.array(SHAPE, T)
        n = uint32(a.shape[0])
        tx, ty = uint32(cuda.threadIdx.x), uint32(cuda.threadIdx.y)
        bx, by = uint32(cuda.blockIdx.x), uint32(cuda.blockIdx.y)
        if bx < by:
            return
        x0, y0 = uint32(bx * TILE), uint32(by * TILE)
        for j in range(uint32(0), TILE, ROWS):
            r = uint32(ty + j)
            row, col = uint32(y0 + r), uint32(x0 + tx)
            if row < n and col < n:
                upper[r, tx] = a[row, col]
            row, col = uint32(x0 + r), uint32(y0 + tx)
            if bx != by and row < n and col < n:
                lower[r, tx] = a[row, col]
        cuda.syncthreads()
        for j in range(uint32(0), TILE, ROWS):
            r = uint32(ty + j)
            row, col = uint32(x0 + r), uint32(y0 + tx)
            if row < n and col < n:
                a[row, col] = upper[tx, r]
            row, col = uint32(y0 + r), uint32(x0 + tx)
            if bx != by and row < n and col < n:
                a[row, col] = lower[tx, r]

    return inplace
