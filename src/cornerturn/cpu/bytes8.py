"""8x8 byte blocks held in eight 64-bit words (word r = row r, byte c = column c, little-endian), transposed in
registers by three rounds of masked shifts: 2x2 blocks of bytes, then of 16-bit pairs, then of 32-bit halves.
Both the in-place squares and the out-of-place byte kernel move bytes this way, so no byte moves alone.
"""

from __future__ import annotations

import numba
import numpy as np

_M1, _M2, _M4 = np.uint64(0x00FF00FF00FF00FF), np.uint64(0x0000FFFF0000FFFF), np.uint64(0x00000000FFFFFFFF)
_S8, _S16, _S32 = np.uint64(8), np.uint64(16), np.uint64(32)


@numba.njit(inline="always")
def swap_masked(x, y, shift, mask):
    """Exchange the bytes of x (shifted down) and y that `mask` selects: one round of the 8x8 byte transpose."""
    t = ((x >> shift) ^ y) & mask
    return x ^ (t << shift), y ^ t


@numba.njit(inline="always")
def transpose8(block):
    """The 8x8 byte matrix whose row r is word r of the 8-tuple `block` (byte c = column c), transposed."""
    x0, x1, x2, x3, x4, x5, x6, x7 = block
    x0, x1 = swap_masked(x0, x1, _S8, _M1)
    x2, x3 = swap_masked(x2, x3, _S8, _M1)
    x4, x5 = swap_masked(x4, x5, _S8, _M1)
    x6, x7 = swap_masked(x6, x7, _S8, _M1)
    x0, x2 = swap_masked(x0, x2, _S16, _M2)
    x1, x3 = swap_masked(x1, x3, _S16, _M2)
    x4, x6 = swap_masked(x4, x6, _S16, _M2)
    x5, x7 = swap_masked(x5, x7, _S16, _M2)
    x0, x4 = swap_masked(x0, x4, _S32, _M4)
    x1, x5 = swap_masked(x1, x5, _S32, _M4)
    x2, x6 = swap_masked(x2, x6, _S32, _M4)
    x3, x7 = swap_masked(x3, x7, _S32, _M4)
    return x0, x1, x2, x3, x4, x5, x6, x7


@numba.njit(inline="always")
def load8(w, b, i, j):
    """The 8x8 byte block at word j of rows i..i+7 of matrix b of the word array `w`, as eight words."""
    return (w[b, i, j], w[b, i + 1, j], w[b, i + 2, j], w[b, i + 3, j],
            w[b, i + 4, j], w[b, i + 5, j], w[b, i + 6, j], w[b, i + 7, j])


@numba.njit(inline="always")
def store8(w, b, i, j, block):
    """The eight words of `block` into word j of rows i..i+7 of matrix b of `w`: load8's inverse."""
    x0, x1, x2, x3, x4, x5, x6, x7 = block
    w[b, i, j], w[b, i + 1, j], w[b, i + 2, j], w[b, i + 3, j] = x0, x1, x2, x3
    w[b, i + 4, j], w[b, i + 5, j], w[b, i + 6, j], w[b, i + 7, j] = x4, x5, x6, x7
