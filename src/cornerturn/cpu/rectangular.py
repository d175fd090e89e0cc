"""In-place transposition of non-square matrices on the CPU (Numba, parallel): the three passes of `ckg`.

Column passes: each thread copies a band of whole columns (one cache line wide) into its scratch, then writes the
band back gathered, row by row. Row pass: each thread copies a row into its scratch and scatters it back.
Scratch: threads x max(M x band, N) elements. Matrices small enough go out of place through scratch instead.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ..ckg import Decomposition

SMALL_BYTES = 1 << 20  # matrices up to this size: out of place into scratch, then copied back


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _columns(x, scratch, band, b, a, post):
    """y[i, j] = x[(phi(i) + r(j)) mod m, j]: phi(i) = s(i), r(j) = j if post; phi(i) = i, r(j) = j // b if not."""
    m, n = x.shape
    threads = scratch.shape[0]
    bands = (n + band - 1) // band
    for t in prange(threads):
        buf = scratch[t]
        shift = np.empty(band, np.int64)
        for band_index in range(t, bands, threads):
            j0 = band_index * band
            width = min(band, n - j0)
            r0 = j0 if post else j0 // b
            for jj in range(width):
                shift[jj] = ((j0 + jj if post else (j0 + jj) // b) - r0) % m
            for i in range(m):
                for jj in range(width):
                    buf[i * width + jj] = x[i, j0 + jj]
            for i in range(m):
                start = ((i * n - i // a) % m if post else i) + r0 % m
                for jj in range(width):
                    k = start + shift[jj]
                    while k >= m:
                        k -= m
                    x[i, j0 + jj] = buf[k * width + jj]


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _rows(x, scratch, c, b, a):
    """Row i's column u*b + v moves to column (c * (v*a mod b) + (i + u) mod m) mod n: the scatter form of
    ckg.row_source, walked so that the inner loop needs no division."""
    m, n = x.shape
    threads = scratch.shape[0]
    a_mod_b = a % b
    for t in prange(threads):
        buf = scratch[t]
        for i in range(t, m, threads):
            for j in range(n):
                buf[j] = x[i, j]
            for u in range(c):
                k = i + u
                if k >= m:
                    k -= m
                k %= n
                acc = 0  # v * a mod b
                for v in range(b):
                    dest = c * acc + k
                    if dest >= n:
                        dest -= n
                    x[i, dest] = buf[u * b + v]
                    acc += a_mod_b
                    if acc >= b:
                        acc -= b


def band_width(itemsize: int) -> int:
    """Columns per band: one 64-byte cache line of elements."""
    return max(1, 64 // itemsize)


def scratch_elements(rows: int, cols: int, itemsize: int, threads: int) -> int:
    return threads * max(rows * min(band_width(itemsize), cols), cols)


def transpose_matrix(x: np.ndarray, scratch: np.ndarray) -> None:
    """The three passes on one M x N matrix of words `x` (C-contiguous), with scratch of shape (threads, >= ...)."""
    m, n = x.shape
    d = Decomposition(m, n)
    band = min(band_width(x.itemsize), n)
    if d.rotates_first:
        _columns(x, scratch, band, d.b, d.a, False)
    _rows(x, scratch, d.c, d.b, d.a)
    _columns(x, scratch, band, d.b, d.a, True)


def transpose_batch(words: np.ndarray, small_bytes: int = SMALL_BYTES) -> int:
    """Transpose each matrix of `words` (batch, M, N), C-contiguous, in place; the memory then holds (batch, N, M).

    Returns the scratch bytes it allocated.
    """
    count, m, n = words.shape
    matrix_bytes = m * n * words.itemsize
    if matrix_bytes <= small_bytes:
        return _through_scratch(words, max(1, small_bytes // max(matrix_bytes, 1)))
    threads = numba.get_num_threads()
    scratch = np.empty((threads, scratch_elements(m, n, words.itemsize, threads) // threads), words.dtype)
    for k in range(count):
        transpose_matrix(words[k], scratch)
    return scratch.nbytes


def _through_scratch(words: np.ndarray, per_chunk: int) -> int:
    from ..api import transpose

    count, m, n = words.shape
    chunk = min(per_chunk, count)
    scratch = np.empty((chunk, n, m), words.dtype)
    flat = words.reshape(count, m * n)
    for start in range(0, count, chunk):
        k = min(chunk, count - start)
        transpose(words[start:start + k], out=scratch[:k])
        flat[start:start + k] = scratch[:k].reshape(k, m * n)
    return scratch.nbytes
