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
        # written without the uint32 casts of the other kernels: on an H200 this form ran at 3116 GB/s and the
        # cast form at 2397 (CUDA C: 2877); docs/lab.md
        x0, y0 = bx * TILE, by * TILE
        for j in range(uint32(0), TILE, ROWS):
            if y0 + ty + j < n and x0 + tx < n:
                upper[ty + j, tx] = a[y0 + ty + j, x0 + tx]
            if bx != by and x0 + ty + j < n and y0 + tx < n:
                lower[ty + j, tx] = a[x0 + ty + j, y0 + tx]
        cuda.syncthreads()
        for j in range(uint32(0), TILE, ROWS):
            if x0 + ty + j < n and y0 + tx < n:
                a[x0 + ty + j, y0 + tx] = upper[tx, ty + j]
            if bx != by and y0 + ty + j < n and x0 + tx < n:
                a[y0 + ty + j, x0 + tx] = lower[tx, ty + j]

    return inplace
