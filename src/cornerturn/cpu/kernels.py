"""CPU transpose kernels (Numba): square tiles handed to threads, each cut into small micro tiles.

Inside a micro tile of `micro_rows` x `micro_cols` elements the loads walk down a few input rows held in L1 and
the stores run along one output row, so each output cache line is written in one contiguous run; tiles go to
threads column of tiles by column of tiles, so neighbouring threads write neighbouring output rows. The micro
tile's extents are compile-time constants (closure variables), so its loops unroll; each factory call compiles
once per array layout and is kept in Numba's on-disk cache.
"""

from __future__ import annotations

import functools

import numba
from numba import prange


@functools.cache
def tile_kernel(tile: int, micro_rows: int, micro_cols: int, parallel: bool):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for a 3-D `x` of any strides and a C-contiguous `out`."""
    U, V = micro_rows, micro_cols

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        tiles_i = (rows + tile - 1) // tile
        tiles_j = (cols + tile - 1) // tile
        per_matrix = tiles_i * tiles_j
        for t in prange(batch * per_matrix):
            b = t // per_matrix
            r = t - b * per_matrix
            tj = r // tiles_i
            ti = r - tj * tiles_i
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
