"""In-place transposition of square matrices on the CPU (Numba, parallel).

Tiles (ti, tj) with ti <= tj go to threads; a thread swaps every element pair (i, j) <-> (j, i) with i < j of its
tile pair, so each pair is swapped exactly once and no two threads touch the same element. Inside a tile pair the
swaps go by 8x8 micro blocks with constant trip counts: a block's rows and its mirror's columns stay in L1.
Bytes, where the side is a multiple of 8 and the rows 8-byte aligned, move as 8x8 blocks held in eight 64-bit
words (a row each), transposed in registers by three rounds of masked shifts, so no byte moves alone.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import prange

from .bytes8 import load8, store8, transpose8


def transpose_squares(a: np.ndarray) -> None:
    """Transpose each n x n matrix of the (batch, n, n) array `a` in place; its rows contiguous, the rest of its
    strides any (the squares of the grid form lie side by side in a wider matrix)."""
    n = a.shape[-1]
    if a.dtype.itemsize == 1 and n % 8 == 0 and a.ctypes.data % 8 == 0 and a.size:
        byte_square_kernel()(a.view(np.uint64))
    else:
        square_kernel()(a)


@numba.njit(inline="always")
def _tile_of(t, tiles):
    """(matrix, tile row, tile column) of task t, tiles x tiles tasks a matrix."""
    b = t // (tiles * tiles)
    r = t - b * tiles * tiles
    return b, r // tiles, r % tiles


@functools.cache
def byte_square_kernel(tile_words: int = 8):
    """Bytes in place: `w` is (batch, n, n // 8) of uint64, each word 8 bytes of a row; tiles of tile_words words
    (8 x tile_words bytes) a side go to threads as pairs, their 8x8 blocks swapped transposed."""
    T = tile_words

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(w):
        batch, _, nw = w.shape
        tiles = (nw + T - 1) // T
        for t in prange(batch * tiles * tiles):
            b, ti, tj = _tile_of(t, tiles)
            if ti > tj:
                continue  # its pair is (tj, ti)
            for bi in range(ti * T, min(ti * T + T, nw)):
                for bj in range(tj * T, min(tj * T + T, nw)):
                    if bj < bi:
                        continue  # below the diagonal: its mirror block swaps it
                    i, j = 8 * bi, 8 * bj  # block (bi, bj): rows i..i+7, word bj; its mirror: rows j.., word bi
                    a = transpose8(load8(w, b, i, bj))
                    if bi != bj:
                        store8(w, b, i, bj, transpose8(load8(w, b, j, bi)))
                    store8(w, b, j, bi, a)

    return kernel


@functools.cache
def square_kernel(tile: int = 64, micro: int = 8):
    U = micro

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(a):
        batch, n, _ = a.shape
        tiles = (n + tile - 1) // tile
        for t in prange(batch * tiles * tiles):
            b, ti, tj = _tile_of(t, tiles)
            if ti > tj:
                continue  # its pair is (tj, ti)
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
