"""In-place transposition of square matrices on the CPU (Numba, parallel).

Tiles (ti, tj) with ti <= tj go to threads; a thread swaps every element pair (i, j) <-> (j, i) with i < j of its
tile pair, so each pair is swapped exactly once and no two threads touch the same element. Rows of one tile are
read while the mirror tile is walked down its columns; both stay in L1 for 64-element tiles.
"""

from __future__ import annotations

import functools

import numba
from numba import prange


@functools.cache
def square_kernel(tile: int = 64):
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
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    v = a[b, i, j]
                    a[b, i, j] = a[b, j, i]
                    a[b, j, i] = v

    return kernel
