"""In-place transposition of square matrices on the CPU (Numba, parallel).

Tiles (ti, tj) with ti <= tj go to threads; a thread swaps every element pair (i, j) <-> (j, i) with i < j of its
tile pair, so each pair is swapped exactly once and no two threads touch the same element. Inside a tile pair the
swaps go by 8x8 micro blocks with constant trip counts: a block's rows and its mirror's columns stay in L1.
"""

from __future__ import annotations

import functools

import numba
from numba import prange


@functools.cache
def square_kernel(tile: int = 64, micro: int = 8):
    U = micro

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(a):
        batch, n, _ = a.shape
        tiles = (n + tile - 1) // tile
        for t in prange(batch * tiles * tiles):
            b = t // (tiles * tiles)
            r = t - b * tiles * tiles
            ti = r // tiles
            tj = r - ti * tiles
            if ti > tj:
                continue
            i0, j0 = ti * tile, tj * tile
            i1, j1 = min(i0 + tile, n), min(j0 + tile, n)
            for ii in range(i0, i1, U):
                for jj in range(j0, j1, U):
                    if ti == tj and jj < ii:
                        continue  # below the diagonal of a diagonal tile: its mirror block swaps it
                    i_end, j_end = min(ii + U, i1), min(jj + U, j1)
                    if ti == tj and ii == jj:
                        for i in range(ii, i_end):
                            for j in range(i + 1, j_end):
                                v = a[b, i, j]
                                a[b, i, j] = a[b, j, i]
                                a[b, j, i] = v
                    elif i_end - ii == U and j_end - jj == U:  # a full micro block: constant trip counts
                        for i in range(ii, ii + U):
                            for j in range(jj, jj + U):
                                v = a[b, i, j]
                                a[b, i, j] = a[b, j, i]
                                a[b, j, i] = v
                    else:
                        for i in range(ii, i_end):
                            for j in range(jj, j_end):
                                v = a[b, i, j]
                                a[b, i, j] = a[b, j, i]
                                a[b, j, i] = v

    return kernel
