"""Triton kernel of transposes whose output rows are short (a few input rows, each long): AoS from SoA, pixel
channels interleaved from planes.

transpose_narrow: each program writes BLOCK_OW whole 32-bit words of the output, which is contiguous; those words
hold the elements of a run of columns of every input row. The program reads that run of each row (BLOCK_R rows x
BLOCK_CW words) as the aligned words that hold it, funnel-shifted where the run starts inside a word, as the words
kernel does; then each output word's PACK elements are gathered from that tile (through shared memory) and joined
by shifts. Loads are whole words along the input rows, stores 16-byte vectors along the output; no element is
written alone but the last words and bytes of each matrix's output (its last program).
"""

from __future__ import annotations

import triton
import triton.language as tl

from .kernels import _aligned, _row_words, _words_of


@triton.jit
def transpose_narrow(x_ptr, out_ptr, rows, cols, batch_stride, row_stride, tiles, span_bytes, nbytes, magic,
                     BLOCK_R: tl.constexpr, BLOCK_CW: tl.constexpr, BLOCK_OW: tl.constexpr, E: tl.constexpr,
                     OUT_ALIGN: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr):
    """Matrices of `rows` x `cols` elements of E bytes (rows `row_stride` bytes apart, matrices `batch_stride`),
    transposed into a C-contiguous output of `span_bytes` bytes a matrix (each matrix's output starting at a whole
    word: one matrix, or span_bytes a multiple of 4); `tiles` programs a matrix, BLOCK_OW output words each.
    x_ptr and out_ptr are 4-byte aligned; the input holds `nbytes` readable bytes from x_ptr."""
    PACK: tl.constexpr = 4 // E
    ITEM: tl.constexpr = (1 << (8 * E)) - 1
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: 2**31 bytes or more in the input or the output
        pid = pid.to(tl.int64)
    b = pid // tiles
    t = pid - b * tiles
    first = t * (BLOCK_OW * PACK)  # the program's first element of this matrix's output
    c_lo = first // rows  # the column it lies in: the tile's first column; and the columns after its last one
    c_end = tl.minimum((first + BLOCK_OW * PACK - 1) // rows + 1, cols)
    v = _row_words(x_ptr, b, tl.arange(0, BLOCK_R), tl.arange(0, BLOCK_CW), rows, c_end - c_lo, batch_stride,
                   row_stride, nbytes, c_lo * E, PACK, False, 1, WIDE, ASM)
    flat = tl.reshape(tl.trans(v), [BLOCK_CW * BLOCK_R])  # word w of row r at w BLOCK_R + r: the rows of one
    # output word's elements lie in different banks of shared memory
    k = tl.arange(0, BLOCK_OW)
    j = tl.arange(0, PACK)
    e = ((first - c_lo * rows).to(tl.int32) + k[None, :] * PACK + j[:, None]).to(tl.uint32)  # each word's elements
    c = tl.umulhi(e, magic.to(tl.uint32))  # e // rows (magic: 2**32 / rows, rounded up): their tile columns
    r = e - c * rows  # and rows
    at_tile = ((c // PACK) * BLOCK_R + r).to(tl.int32)
    held = tl.gather(flat, tl.reshape(at_tile, [PACK * BLOCK_OW]), 0)  # the words that hold them
    item = (tl.reshape(held, [PACK, BLOCK_OW]) >> (8 * E * (c % PACK))) & ITEM
    word = tl.sum(item << (8 * E * j[:, None]).to(tl.uint32), axis=0)  # no bits overlap: the sum is their OR
    at = b * _aligned(span_bytes // 4, OUT_ALIGN) + t * BLOCK_OW + k  # output words; matrices start at whole words
    end = span_bytes - t * BLOCK_OW * 4  # bytes of this matrix's output from the program's first word on
    whole = end // 4
    vectors = whole // 4 * 4  # whole words in runs of 4 (a mask that the compiler knows constant across vectors)
    tl.store(out_ptr + at, word.to(tl.int32, bitcast=True), mask=k < vectors)
    if end < BLOCK_OW * 4:  # the last program of a matrix: the words after those, then the bytes, one by one
        tl.store(out_ptr + at, word.to(tl.int32, bitcast=True), mask=(k >= vectors) & (k < whole))
        items = _words_of(out_ptr, 1)
        for i in tl.static_range(3):
            byte = ((word >> (8 * i)) & 0xFF).to(tl.uint8)
            tl.store(items + at * 4 + i, byte, mask=(k == whole) & (whole * 4 + i < end))
