"""Square blocks of n x n elements transposed in vector registers: n rows loaded as n vectors of 16 bytes (n = 16
for bytes, 8, 4, 2 for 2-, 4-, 8-byte elements; at any address), log2(n) rounds of interleaves (LLVM
shufflevector: unpack on x86, zip on Arm), n vectors stored as n output rows. Tiles of blocks go to threads;
inside a tile the blocks run down a block column, so each output row is written in one run.

Each interleave round makes vector 2k from the low halves of vectors k and k + n/2, element by element, and
vector 2k + 1 from their high halves; after log2(n) rounds vector r holds column r. The loads and stores are
unaligned vector accesses, so rows of any pitch and offset take them; the rows and columns past whole blocks (only
in a matrix's last tiles) move element by element. Staged tiles are first copied row by row into a scratch of
each worker's own, for inputs whose rows lie a whole number of pages apart. Streamed tiles store the blocks as
aligned non-temporal vectors (past the caches, no line read before it is written; x86 only), for output rows that
lie a whole number of vectors apart.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic

from .kernels import _tile_of
from .nontemporal import STREAM_HOST, mark_nontemporal, store_fence, streamable

VECTOR_BYTES = 16  # 32-byte vectors (AVX2 registers) fell behind in tiles of 512 on every element size (docs/cpu.md)
ELEMENT_SIZES = (1, 2, 4, 8)
STAGE_PAD = 16  # bytes by which the staged kernel's scratch rows are longer than a tile's row


def interleave_masks(n: int) -> tuple[list[int], list[int]]:
    """shufflevector masks over two n-element vectors a, b (b's elements numbered n..2n-1): the low halves
    interleaved (a0 b0 a1 b1 ...) and the high halves."""
    half = n // 2
    low = [k for i in range(half) for k in (i, n + i)]
    high = [k for i in range(half, n) for k in (i, n + i)]
    return low, high


def _transposed(builder: ir.IRBuilder, src, src_step, n: int, bits: int) -> list:
    """IR for n rows of n `bits`-bit elements loaded from byte pointer src (rows src_step bytes apart) and
    transposed: vector r holds column r."""
    return _transposed_rows(builder, [builder.gep(src, [builder.mul(src_step, ir.Constant(src_step.type, k))])
                                      for k in range(n)], n, bits)


def _transposed_rows(builder: ir.IRBuilder, starts: list, n: int, bits: int) -> list:
    """IR for n rows of n `bits`-bit elements loaded from the byte pointers `starts` and transposed: vector r holds
    column r."""
    vector = ir.VectorType(ir.IntType(bits), n).as_pointer()
    rows = [builder.load(builder.bitcast(start, vector), align=1) for start in starts]
    low, high = (ir.Constant(ir.VectorType(ir.IntType(32), n), mask) for mask in interleave_masks(n))
    for _ in range(int(math.log2(n))):
        rows = [builder.shuffle_vector(rows[k], rows[k + n // 2], mask) for k in range(n // 2) for mask in (low, high)]
    return rows


def _emit_block(builder: ir.IRBuilder, src, src_step, dst, dst_step, n: int, bits: int, stream: bool) -> None:
    """IR for one block: n rows of n `bits`-bit elements from byte pointer src (rows src_step bytes apart),
    transposed, to byte pointer dst (rows dst_step bytes apart); with `stream`, as aligned non-temporal stores."""
    vector = ir.VectorType(ir.IntType(bits), n).as_pointer()
    for k, row in enumerate(_transposed(builder, src, src_step, n, bits)):
        at = builder.gep(dst, [builder.mul(dst_step, ir.Constant(dst_step.type, k))])
        store = builder.store(row, builder.bitcast(at, vector), align=VECTOR_BYTES if stream else 1)
        if stream:
            mark_nontemporal(builder, store)


def _block_intrinsic(stream: bool):
    def block(typingctx, x, x_at, x_step, out, out_at, out_step):
        """block(x, x_at, x_step, out, out_at, out_step): the n x n block at byte offset x_at of the integer array x
        (rows x_step bytes apart) transposed into the array out at byte offset out_at (rows out_step bytes apart),
        where n = VECTOR_BYTES / x's element size; streamed, out_at and out_step must be multiples of VECTOR_BYTES
        and out aligned to it."""
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
                        builder.gep(builder.bitcast(dst, byte), [out_at]), out_step, n, bits, stream)
            return context.get_dummy_value()

        return types.void(x, x_at, x_step, out, out_at, out_step), codegen

    block.__name__ = "block_stream" if stream else "block"
    return intrinsic(block)


block = _block_intrinsic(False)
block_stream = _block_intrinsic(True)


def _rows_typer(x, rows) -> bool:
    return (isinstance(x, types.Array) and isinstance(x.dtype, types.Integer) and isinstance(rows, types.Array)
            and rows.dtype == types.int64)


def _emit_block_rows(context, builder, signature, args, vector_bytes: int, count=None) -> None:
    """IR for block_rows (count None: every row stored) and block_rows_some (rows k < count only), in rows of
    `vector_bytes`."""
    x_val, x_at, x_step, out_val, out_at, rows_val, first = args[:7]
    bits = signature.args[0].dtype.bitwidth
    n = 8 * vector_bytes // bits
    byte = ir.IntType(8).as_pointer()
    vector = ir.VectorType(ir.IntType(bits), n).as_pointer()
    src = context.make_array(signature.args[0])(context, builder, x_val).data
    dst = builder.bitcast(context.make_array(signature.args[3])(context, builder, out_val).data, byte)
    table = context.make_array(signature.args[5])(context, builder, rows_val).data
    size = ir.Constant(out_at.type, bits // 8)
    columns = _transposed(builder, builder.gep(builder.bitcast(src, byte), [x_at]), x_step, n, bits)
    _store_rows(builder, columns, table, first, out_at, size, dst, vector, count)


def _store_rows(builder, columns, table, first, out_at, size, dst, vector, count=None) -> None:
    """IR storing each transposed column k at element offset out_at + table[first + k] of dst (`size` bytes an
    element); with `count`, only the columns k < count (a branch on each after the first)."""
    for k, row in enumerate(columns):
        if count is not None and k:
            with builder.if_then(builder.icmp_signed("<", ir.Constant(count.type, k), count)):
                _store_row(builder, table, first, k, out_at, size, dst, row, vector)
        else:
            _store_row(builder, table, first, k, out_at, size, dst, row, vector)


def _store_row(builder, table, first, k, out_at, size, dst, row, vector) -> None:
    offset = builder.load(builder.gep(table, [builder.add(first, ir.Constant(first.type, k))]))
    at = builder.mul(builder.add(out_at, offset), size)
    builder.store(row, builder.bitcast(builder.gep(dst, [at]), vector), align=1)


def _block_rows_intrinsics(vector_bytes: int):
    """block_rows and block_rows_some for blocks whose rows are `vector_bytes` long (n = vector_bytes / x's element
    size)."""

    @intrinsic
    def block_rows(typingctx, x, x_at, x_step, out, out_at, rows, first):
        """block_rows(x, x_at, x_step, out, out_at, rows, first): the n x n block at byte offset x_at of the integer
        array x (rows x_step bytes apart) transposed into the array out, its row k at element offset out_at +
        rows[first + k]: output rows placed by a table (int64, in elements), as permute-plane's B is."""
        if not _rows_typer(x, rows) or x.dtype != out.dtype:
            return None

        def codegen(context, builder, signature, args):
            _emit_block_rows(context, builder, signature, args, vector_bytes)
            return context.get_dummy_value()

        return types.void(x, x_at, x_step, out, out_at, rows, first), codegen

    @intrinsic
    def block_rows_some(typingctx, x, x_at, x_step, out, out_at, rows, first, count):
        """block_rows for a block of `count` (int64, 1 to n) input neighbours: the loads read n elements a row all
        the same (the caller sees that they lie inside x), and only output rows k < count are stored."""
        if not _rows_typer(x, rows) or x.dtype != out.dtype or count != types.int64:
            return None

        def codegen(context, builder, signature, args):
            _emit_block_rows(context, builder, signature, args, vector_bytes, args[7])
            return context.get_dummy_value()

        return types.void(x, x_at, x_step, out, out_at, rows, first, count), codegen

    return block_rows, block_rows_some


def _emit_gathered_rows(context, builder, signature, args, count=None) -> None:
    """IR for gathered_rows (count None: every output row stored) and gathered_rows_some."""
    x_val, x_at, in_rows_val, in_first, out_val, out_at, out_rows_val, out_first = args[:8]
    bits = signature.args[0].dtype.bitwidth
    n = 8 * VECTOR_BYTES // bits
    byte = ir.IntType(8).as_pointer()
    vector = ir.VectorType(ir.IntType(bits), n).as_pointer()
    size = ir.Constant(out_at.type, bits // 8)
    src = builder.gep(builder.bitcast(context.make_array(signature.args[0])(context, builder, x_val).data, byte),
                      [x_at])
    in_rows = context.make_array(signature.args[2])(context, builder, in_rows_val).data
    word = ir.Constant(ir.IntType(64), bits // 8)
    starts = [builder.gep(src, [builder.mul(builder.load(builder.gep(
        in_rows, [builder.add(in_first, ir.Constant(in_first.type, k))])), word)]) for k in range(n)]
    dst = builder.bitcast(context.make_array(signature.args[4])(context, builder, out_val).data, byte)
    table = context.make_array(signature.args[6])(context, builder, out_rows_val).data
    _store_rows(builder, _transposed_rows(builder, starts, n, bits), table, out_first, out_at, size, dst, vector, count)


@intrinsic
def gathered_rows(typingctx, x, x_at, in_rows, in_first, out, out_at, out_rows, out_first):
    """gathered_rows(x, x_at, in_rows, in_first, out, out_at, out_rows, out_first): block_rows whose n input rows
    lie where a table says: row k at byte offset x_at + in_rows[in_first + k] * x's element size (int64, negative
    too), each n elements long; output row k at element offset out_at + out_rows[out_first + k]."""
    if not (_rows_typer(x, in_rows) and _rows_typer(out, out_rows)) or x.dtype != out.dtype:
        return None

    def codegen(context, builder, signature, args):
        _emit_gathered_rows(context, builder, signature, args)
        return context.get_dummy_value()

    return types.void(x, x_at, in_rows, in_first, out, out_at, out_rows, out_first), codegen


@intrinsic
def gathered_rows_some(typingctx, x, x_at, in_rows, in_first, out, out_at, out_rows, out_first, count):
    """gathered_rows storing only output rows k < count (int64): a block of fewer than n input neighbours, whose
    loads read n elements a row all the same (the caller sees that they lie inside x)."""
    if not (_rows_typer(x, in_rows) and _rows_typer(out, out_rows)) or x.dtype != out.dtype or count != types.int64:
        return None

    def codegen(context, builder, signature, args):
        _emit_gathered_rows(context, builder, signature, args, args[8])
        return context.get_dummy_value()

    return types.void(x, x_at, in_rows, in_first, out, out_at, out_rows, out_first, count), codegen


block_rows, block_rows_some = _block_rows_intrinsics(VECTOR_BYTES)
# blocks of 8 x 8 bytes (rows of 8 bytes), for planes whose side along the output is under a block of 16 bytes
half_rows, half_rows_some = _block_rows_intrinsics(VECTOR_BYTES // 2)


def block_side(itemsize: int) -> int:
    """n: the side of a block of `itemsize`-byte elements, one 16-byte vector a row."""
    if itemsize not in ELEMENT_SIZES:
        raise ValueError(f"vector kernel: element size {itemsize} is not one of {ELEMENT_SIZES}")
    return VECTOR_BYTES // itemsize


def _tile_mover(move_block):
    @numba.njit(inline="always")
    def move_tile(src, sb, si, sj, out, b, i0, i1, j0, j1, n):
        """out[b, j, i] = src[sb, si + i - i0, sj + j - j0] for i0 <= i < i1, j0 <= j < j1: whole n x n blocks
        through the vector registers, the rows and columns past them element by element."""
        src_matrix, src_row, src_col = src.strides
        out_matrix, out_row, out_col = out.strides
        i_full = i0 + ((i1 - i0) // n) * n
        j_full = j0 + ((j1 - j0) // n) * n
        for jj in range(j0, j_full, n):
            for ii in range(i0, i_full, n):
                src_at = sb * src_matrix + (si + ii - i0) * src_row + (sj + jj - j0) * src_col
                move_block(src, src_at, src_row, out, b * out_matrix + jj * out_row + ii * out_col, out_row)
            for j in range(jj, jj + n):
                for i in range(i_full, i1):
                    out[b, j, i] = src[sb, si + i - i0, sj + j - j0]
        for j in range(j_full, j1):
            for i in range(i0, i1):
                out[b, j, i] = src[sb, si + i - i0, sj + j - j0]

    return move_tile


_move_tile = _tile_mover(block)
_move_tile_streamed = _tile_mover(block_stream)


@numba.njit(inline="always")
def _tile_bounds(t, per_matrix, tiles_i, tile_rows, tile_cols, rows, cols):
    """(matrix, first row, row past the last, first column, column past the last) of task t's tile."""
    b, ti, tj = _tile_of(t, per_matrix, tiles_i)
    i0 = ti * tile_rows
    j0 = tj * tile_cols
    return b, i0, min(i0 + tile_rows, rows), j0, min(j0 + tile_cols, cols)


def vector_kernel(itemsize: int, tile: int | tuple[int, int], parallel: bool, staged: bool = False,
                  stream: bool = False):
    """kernel(x, out): out[b, j, i] = x[b, i, j] for unsigned-integer words of `itemsize` bytes, `x` 3-D with
    contiguous columns (rows and matrices at any byte stride), `out` C-contiguous; blocks of n = block_side elements
    square in tiles of `tile` (rows, columns; one number: square) elements, multiples of n. Staged: the tiles are
    shared out in runs, one run a worker (at most NUMBA_NUM_THREADS), and each tile is first copied, row by row,
    into the worker's own scratch, whose rows are STAGE_PAD bytes longer than the tile's, then transposed from
    there, so that input rows whose pitch is a multiple of a page are not read down a column of them. Streamed (x86
    only): the blocks are stored as aligned non-temporal vectors where `out` is `streamable`, else as plain ones.
    One compiled kernel serves every tile."""
    n = block_side(itemsize)
    tile_rows, tile_cols = (tile, tile) if isinstance(tile, int) else tile
    if min(tile_rows, tile_cols) <= 0 or tile_rows % n or tile_cols % n:
        raise ValueError(f"vector kernel: tile {tile} is not a multiple of the block side {n}")
    if stream and not STREAM_HOST:
        raise ValueError("vector kernel: streamed tiles need an x86-64 host")
    compiled = _compiled_vector_kernel(itemsize, parallel, staged)
    streamed = _compiled_vector_kernel(itemsize, parallel, staged, True) if stream else None

    def kernel(x, out):
        (streamed if streamed is not None and streamable(out) else compiled)(x, out, tile_rows, tile_cols)

    return kernel


@functools.cache
def _compiled_vector_kernel(itemsize: int, parallel: bool, staged: bool, stream: bool = False):
    N = block_side(itemsize)
    STAGED = staged
    STREAM = stream
    move_tile = _move_tile_streamed if stream else _move_tile
    PAD = STAGE_PAD // itemsize
    WORKERS = numba.config.NUMBA_NUM_THREADS if parallel else 1

    @numba.njit(parallel=parallel, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, tile_rows, tile_cols):
        batch, rows, cols = x.shape
        tiles_i = (rows + tile_rows - 1) // tile_rows
        per_matrix = tiles_i * ((cols + tile_cols - 1) // tile_cols)
        tasks = batch * per_matrix
        if STAGED:
            workers = max(1, min(WORKERS, tasks))
            scratch = np.empty((workers, tile_rows, tile_cols + PAD), x.dtype)
            for w in prange(workers):
                for t in range(w * tasks // workers, (w + 1) * tasks // workers):
                    b, i0, i1, j0, j1 = _tile_bounds(t, per_matrix, tiles_i, tile_rows, tile_cols, rows, cols)
                    for i in range(i0, i1):
                        scratch[w, i - i0, : j1 - j0] = x[b, i, j0:j1]
                    move_tile(scratch, w, 0, 0, out, b, i0, i1, j0, j1, N)
                    if STREAM:
                        store_fence()
        else:
            for t in prange(tasks):
                b, i0, i1, j0, j1 = _tile_bounds(t, per_matrix, tiles_i, tile_rows, tile_cols, rows, cols)
                move_tile(x, b, i0, j0, out, b, i0, i1, j0, j1, N)
                if STREAM:
                    store_fence()

    return kernel
