"""Triton kernel for batches of matrices too small for tiles (both sides short: a tile would pad most of its lanes).

transpose_gather: the output taken as one flat run (the batch's matrices end to end, C-contiguous), BLOCK elements a
program, none idle but the last program's tail. Each lane splits its output index into (matrix, column, row) of the
input, by multiplying where MAGIC (divisor_magic; 31-bit indices), and loads that element: the loads gather inside a
few matrices, which the L1 holds; the stores are whole runs of the output. Elements of WORDS words move word by word.
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
