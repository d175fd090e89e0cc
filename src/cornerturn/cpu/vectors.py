"""Square blocks of n x n elements transposed in vector registers: n rows loaded as n vectors of 16 bytes (n = 16
for bytes, 8, 4, 2 for 2-, 4-, 8-byte elements; at any address), log2(n) rounds of interleaves (LLVM
shufflevector: unpack on x86, zip on Arm), n vectors stored as n output rows. Tiles of blocks go to threads;
inside a tile the blocks run down a block column, so each output row is written in one run.

Each interleave round makes vector 2k from the low halves of vectors k and k + n/2, element by element, and
vector 2k + 1 from their high halves; after log2(n) rounds vector r holds column r. The loads and stores are
unaligned vector accesses, so rows of any pitch and offset take them; the rows and columns past whole blocks (only
in a matrix's last tiles) move element by element.
"""

from __future__ import annotations

import functools
import math

import numba
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic

from .kernels import _tile_of

VECTOR_BYTES = 16  # 32-byte vectors (AVX2 registers) ran slower on every element size (docs/cpu.md)
ELEMENT_SIZES = (1, 2, 4, 8)


def interleave_masks(n: int) -> tuple[list[int], list[int]]:
    """shufflevector masks over two n-element vectors a, b (b's elements numbered n..2n-1): the low halves
    interleaved (a0 b0 a1 b1 ...) and the high halves."""
    half = n // 2
    low = [k for i in range(half) for k in (i, n + i)]
    high = [k for i in range(half, n) for k in (i, n + i)]
    return low, high


def _emit_block(builder: ir.IRBuilder, src, src_step, dst, dst_step, n: int, bits: int) -> None:
    """IR for one block: n rows of n `bits`-bit elements from byte pointer src (rows src_step bytes apart),
    transposed, to byte pointer dst (rows dst_step bytes apart)."""
    vector = ir.VectorType(ir.IntType(bits), n).as_pointer()
    rows = [builder.load(builder.bitcast(builder.gep(src, [builder.mul(src_step, ir.Constant(src_step.type, k))]),
                                         vector), align=1) for k in range(n)]
    low, high = (ir.Constant(ir.VectorType(ir.IntType(32), n), mask) for mask in interleave_masks(n))
    for _ in range(int(math.log2(n))):
        rows = [builder.shuffle_vector(rows[k], rows[k + n // 2], mask) for k in range(n // 2) for mask in (low, high)]
    for k, row in enumerate(rows):
        at = builder.gep(dst, [builder.mul(dst_step, ir.Constant(dst_step.type, k))])
        builder.store(row, builder.bitcast(at, vector), align=1)


@intrinsic
def block(typingctx, x, x_at, x_step, out, out_at, out_step):
    """block(x, x_at, x_step, out, out_at, out_step): the n x n block at byte offset x_at of the integer array x
    (rows x_step bytes apart) transposed into the array out at byte offset out_at (rows out_step bytes apart),
    where n = VECTOR_BYTES / x's element size."""
    if not isinstance(x, types.Array) or not isinstance(x.dtype, types.Integer) or x.dtype != out.dtype:
        return None
    bits = x.dtype.bitwidth
    n = 8 * VECTOR_BYTES // bits

    def codegen(context, builder, signature, args):
        x_val, x_at, x_step, out_val, out_at, out_step = args
        byte = ir.IntType(8).as_pointer()
        src = context.make_array(signature.args[0])(context, builder, x_val).data
        dst = context.make_array(signature.args[3])(context, builder, out_val).data
        _emit_block(builder, builder.gep(builder.bitcast(src, byte), [x_at]), x_step,
                    builder.gep(builder.bitcast(dst, byte), [out_at]), out_step, n, bits)
        return context.get_dummy_value()

    return types.void(x, x_at, x_step, out, out_at, out_step), codegen


def block_side(itemsize: int) -> int:
    """n: the side of a block of `itemsize`-byte elements, one 16-byte vector a row."""
    if itemsize not in ELEMENT_SIZES:
        raise ValueError(f"vector kernel: element size {itemsize} is not one of {ELEMENT_SIZES}")
    return VECTOR_BYTES // itemsize


@functools.cache
def vector_kernel(itemsize: int, tile: int, parallel: bool):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for unsigned-integer words of `itemsize` bytes, `x` 3-D with
    contiguous columns (rows and matrices at any byte stride), `out` C-contiguous; blocks of n = block_side elements
    square in tiles of `tile` elements square (a multiple of n)."""
    N = block_side(itemsize)
    if tile % N:
        raise ValueError(f"vector kernel: tile {tile} is not a multiple of the block side {N}")

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out):
        batch, rows, cols = x.shape
        x_matrix, x_row, x_col = x.strides
        out_matrix, out_row, out_col = out.strides
        tiles_i = (rows + tile - 1) // tile
        per_matrix = tiles_i * ((cols + tile - 1) // tile)
        for t in prange(batch * per_matrix):
            b, ti, tj = _tile_of(t, per_matrix, tiles_i)
            i0 = ti * tile
            j0 = tj * tile
            i1 = min(i0 + tile, rows)
            j1 = min(j0 + tile, cols)
            i_full = i0 + ((i1 - i0) // N) * N
            j_full = j0 + ((j1 - j0) // N) * N
            for jj in range(j0, j_full, N):
                for ii in range(i0, i_full, N):
                    x_at = b * x_matrix + ii * x_row + jj * x_col
                    out_at = b * out_matrix + jj * out_row + ii * out_col
                    block(x, x_at, x_row, out, out_at, out_row)
                for j in range(jj, jj + N):
                    for i in range(i_full, i1):
                        out[b, j, i] = x[b, i, j]
            for j in range(j_full, j1):
                for i in range(i0, i1):
                    out[b, j, i] = x[b, i, j]

    return kernel
