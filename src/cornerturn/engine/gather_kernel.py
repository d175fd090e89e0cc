"""Triton kernels that write the output as one flat run and gather each element from where it lies in the input.

transpose_gather: batches of matrices too small for tiles (both sides short: a tile would pad most of its lanes),
the batch's matrices end to end, C-contiguous, BLOCK elements a program, none idle but the last program's tail. Each
lane splits its output index into (matrix, column, row) of the input, by multiplying where MAGIC (divisor_magic;
31-bit indices), and loads that element: the loads gather inside a few matrices, which the L1 holds; the stores are
whole runs of the output. Elements of WORDS words move word by word.
permute_gather: the same for a general permutation of up to seven axes (in words), each lane's index split into all
of them.
"""

from __future__ import annotations

import triton
import triton.language as tl

from .kernels import _move_elements
from .permute_kernel import _quotient


@triton.jit
def transpose_gather(x_ptr, out_ptr, total, rows, cols, batch_stride, row_stride, col_stride, m_rows, h_rows,
                     m_cols, h_cols, BLOCK: tl.constexpr, WORDS: tl.constexpr, WIDE: tl.constexpr,
                     MAGIC: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    o = pid * BLOCK + tl.arange(0, BLOCK)  # output element: row r of column c of matrix b, rows fastest
    mask = o < total
    if MAGIC:
        t = _quotient(o, m_rows, h_rows)
        b = _quotient(t, m_cols, h_cols)
    else:
        t = o // rows
        b = t // cols
    r = o - t * rows
    c = t - b * cols
    src = b * batch_stride + r * row_stride + c * col_stride  # in words
    _move_elements(x_ptr, out_ptr, src, o, mask, WORDS)


@triton.jit
def _digit_step(q, src, e, s, m, h, MAGIC: tl.constexpr):
    """One axis of an output index: (q // e, src + (q % e) * s), the quotient by multiplying where MAGIC."""
    t = _quotient(q, m, h) if MAGIC else q // e
    return t, src + (q - t * e) * s


@triton.jit
def permute_gather(x_ptr, out_ptr, total, e0, e1, e2, e3, e4, e5, s0, s1, s2, s3, s4, s5, s6, m0, h0, m1, h1, m2,
                   h2, m3, h3, m4, h4, m5, h5, N: tl.constexpr, BLOCK: tl.constexpr, WIDE: tl.constexpr,
                   MAGIC: tl.constexpr):
    """A permutation of N axes (2 to 7, innermost first: extents e_k, input strides s_k in words) as one flat run of
    the output, BLOCK words a program: each lane splits its output index into the axes' digits and loads that word."""
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    mask = o < total
    q, src = _digit_step(o, o * 0, e0, s0, m0, h0, MAGIC)
    if N > 2:
        q, src = _digit_step(q, src, e1, s1, m1, h1, MAGIC)
    if N > 3:
        q, src = _digit_step(q, src, e2, s2, m2, h2, MAGIC)
    if N > 4:
        q, src = _digit_step(q, src, e3, s3, m3, h3, MAGIC)
    if N > 5:
        q, src = _digit_step(q, src, e4, s4, m4, h4, MAGIC)
    if N > 6:
        q, src = _digit_step(q, src, e5, s5, m5, h5, MAGIC)
    last = s1 if N == 2 else s2 if N == 3 else s3 if N == 4 else s4 if N == 5 else s5 if N == 6 else s6
    tl.store(out_ptr + o, tl.load(x_ptr + src + q * last, mask=mask), mask=mask)
