"""Skinny matrices (a side of S = 2 to 7 elements: colour channels, AoS <-> SoA) moved in 16-byte vectors.

Short rows (interleave): S vectors of n elements (n = 16 / element size) are loaded, one from each input row at the
same column, and one shuffle makes of them the S x n elements of n output rows, stored as S vectors of 16 bytes. (As
one store of S x 16 bytes, which LLVM emits as 32- and 64-byte stores that often straddle cache lines, 4-byte
elements with 3 rows ran at 0.46x the element kernel on a 2-core Intel Xeon; docs/cpu.md.) Short columns
(deinterleave): n input rows of S elements are one run of S x n elements; one shuffle per output row picks its n
elements, stored as one vector. The rest of a run, and inputs whose runs are not contiguous, move element by element.
"""

from __future__ import annotations

import functools

import numba
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic

from .kernels import SKINNY_RUN as RUN
from .kernels import move_elements

VECTOR_BYTES = 16
ELEMENT_SIZES = (1, 2, 4, 8)


def interleave_mask(short: int, n: int) -> list[int]:
    """Over S vectors of n elements laid end to end: element j of every vector, then element j + 1, ..."""
    return [k * n + j for j in range(n) for k in range(short)]


def deinterleave_mask(short: int, n: int, k: int) -> list[int]:
    """Over a run of S x n elements (n rows of S): element k of every row."""
    return [j * short + k for j in range(n)]


def _concat(builder: ir.IRBuilder, vectors: list, n: int):
    """One vector of the given n-element vectors end to end (undefined lanes pad the count to a power of two)."""
    width = 1
    while width < len(vectors):
        width *= 2
    undef = ir.Constant(vectors[0].type, ir.Undefined)
    parts = vectors + [undef] * (width - len(vectors))
    size = n
    while len(parts) > 1:
        mask = ir.Constant(ir.VectorType(ir.IntType(32), 2 * size), list(range(2 * size)))
        parts = [builder.shuffle_vector(parts[k], parts[k + 1], mask) for k in range(0, len(parts), 2)]
        size *= 2
    return parts[0]


def _byte_at(context, builder, array_type, array, at):
    data = context.make_array(array_type)(context, builder, array).data
    return builder.gep(builder.bitcast(data, ir.IntType(8).as_pointer()), [at])


def _typed(x, out, short) -> tuple[int, int, int] | None:
    """(element bits, S, n) where x and out are arrays of the same integer words and S a literal; else None."""
    if not isinstance(x, types.Array) or not isinstance(x.dtype, types.Integer) or x.dtype != out.dtype:
        return None
    if not isinstance(short, types.IntegerLiteral):
        return None
    return x.dtype.bitwidth, short.literal_value, 8 * VECTOR_BYTES // x.dtype.bitwidth


@intrinsic
def interleave(typingctx, x, x_at, x_step, out, out_at, short):
    """interleave(x, x_at, x_step, out, out_at, S): the n elements at byte offset x_at of each of S rows of x
    (x_step bytes apart), interleaved, to S x n elements at byte offset out_at of out. S is a literal."""
    if (typed := _typed(x, out, short)) is None:
        return None
    bits, count, n = typed

    def codegen(context, builder, signature, args):
        x_val, x_at, x_step, out_val, out_at, _ = args
        src = _byte_at(context, builder, signature.args[0], x_val, x_at)
        vector = ir.VectorType(ir.IntType(bits), n)
        rows = [builder.load(builder.bitcast(builder.gep(src, [builder.mul(x_step, ir.Constant(x_step.type, k))]),
                                             vector.as_pointer()), align=1) for k in range(count)]
        whole = _concat(builder, rows, n)
        mask = ir.Constant(ir.VectorType(ir.IntType(32), count * n), interleave_mask(count, n))
        mixed = builder.shuffle_vector(whole, ir.Constant(whole.type, ir.Undefined), mask)
        dst = _byte_at(context, builder, signature.args[3], out_val, out_at)
        for k in range(count):  # S stores of 16 bytes: one store of S x 16 bytes splits cache lines (module notes)
            part = builder.shuffle_vector(mixed, ir.Constant(mixed.type, ir.Undefined),
                                          ir.Constant(ir.VectorType(ir.IntType(32), n), list(range(k * n, k * n + n))))
            at = builder.gep(dst, [ir.Constant(ir.IntType(64), VECTOR_BYTES * k)])
            builder.store(part, builder.bitcast(at, vector.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.void(x, x_at, x_step, out, out_at, short), codegen


@intrinsic
def deinterleave(typingctx, x, x_at, out, out_at, out_step, short):
    """deinterleave(x, x_at, out, out_at, out_step, S): n rows of S elements, one run at byte offset x_at of x, as
    S rows of n elements at byte offset out_at of out (out_step bytes apart). S is a literal."""
    if (typed := _typed(x, out, short)) is None:
        return None
    bits, count, n = typed

    def codegen(context, builder, signature, args):
        x_val, x_at, out_val, out_at, out_step, _ = args
        src = _byte_at(context, builder, signature.args[0], x_val, x_at)
        run = ir.VectorType(ir.IntType(bits), count * n)
        whole = builder.load(builder.bitcast(src, run.as_pointer()), align=1)
        dst = _byte_at(context, builder, signature.args[2], out_val, out_at)
        for k in range(count):
            mask = ir.Constant(ir.VectorType(ir.IntType(32), n), deinterleave_mask(count, n, k))
            row = builder.shuffle_vector(whole, ir.Constant(run, ir.Undefined), mask)
            at = builder.gep(dst, [builder.mul(out_step, ir.Constant(out_step.type, k))])
            builder.store(row, builder.bitcast(at, row.type.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.void(x, x_at, out, out_at, out_step, short), codegen


@functools.cache
def skinny_vector_kernel(short: int, short_rows: bool, itemsize: int, parallel: bool):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for unsigned words of `itemsize` bytes where x has `short` rows
    (short_rows) or `short` columns; `out` C-contiguous. Tasks are runs of RUN elements of the long side. Whole
    vectors where x's runs are contiguous (columns one word apart; with short columns, rows `short` words apart
    too), element by element otherwise and past the last whole vector of a run."""
    if itemsize not in ELEMENT_SIZES:
        raise ValueError(f"skinny vector kernel: element size {itemsize} is not one of {ELEMENT_SIZES}")
    S, ROWS, N = short, short_rows, VECTOR_BYTES // itemsize

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        x_matrix, x_row, x_col = x.strides
        out_matrix, out_row, _ = out.strides
        long = cols if ROWS else rows
        runs = (long + RUN - 1) // RUN
        whole = x_col == itemsize and (ROWS or x_row == S * itemsize)
        for t in prange(batch * runs):
            b = t // runs
            k0 = (t - b * runs) * RUN
            k1 = min(k0 + RUN, long)
            k = k0
            if whole:
                while k + N <= k1:
                    if ROWS:
                        interleave(x, b * x_matrix + k * x_col, x_row, out, b * out_matrix + k * out_row, S)
                    else:
                        deinterleave(x, b * x_matrix + k * x_row, out, b * out_matrix + k * itemsize, out_row, S)
                    k += N
            move_elements(x, out, b, k, k1, S, ROWS)

    return kernel
