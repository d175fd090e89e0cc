"""Triton kernels of transposes whose output rows are short (a few input rows, each long): AoS from SoA, pixel
channels interleaved from planes.

transpose_narrow: each program writes BLOCK_OW whole 32-bit words of the output, which is contiguous; those words
hold the elements of a run of columns of every input row. The program reads that run of each row (BLOCK_R rows x
BLOCK_CW words) as the aligned words that hold it, funnel-shifted where the run starts inside a word, as the words
kernel does; then each output word's PACK elements are gathered from that tile (through shared memory) and joined
by shifts. Loads are whole words along the input rows, stores 16-byte vectors along the output; no element is
written alone but the last words and bytes of each matrix's output (its last program).

transpose_interleave: output rows of R elements from 2 to 31 input rows of bytes or 2-byte elements: each lane reads
one funnel-shifted word of every row, builds the R output words those hold with byte permutes in registers (from 5
rows on, and for 3 rows of 2-byte elements, each output word from the rows its elements come from: three permutes
for bytes, one for 2-byte elements),
and stores them (as one vector where R is 2 or 4; from 5 rows on the word-column's R words as one run, the lanes'
runs end to end, which the compiler stores through shared memory). In a batch whose matrices' outputs start inside
words (SHIFT) each output word is funnel-shifted into place from that word and the one before; the words a matrix
shares with its neighbours are written byte by byte.
"""

from __future__ import annotations

import triton
import triton.language as tl

from .kernels import (
    _aligned,
    _funnel_shift,
    _group_words,
    _join_bytes,
    _join_halves,
    _prmt,
    _row_words,
    _rows_of_groups,
    _words_of,
)


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


@triton.jit
def _interleaved(v, R: tl.constexpr, E: tl.constexpr, BLOCK_CW: tl.constexpr, ASM: tl.constexpr):
    """The R output words ([BLOCK_CW, R]) that R rows of words v ([R, BLOCK_CW]) hold, word-column by word-column:
    each output row holds one element of every input row."""
    if R == 4 and E == 1:  # 4 x 4 bytes: output word k holds byte k of each row
        w0, w1, w2, w3 = _group_words(v, 1, BLOCK_CW, 4, ASM)
        out = tl.reshape(tl.join(tl.join(w0, w2), tl.join(w1, w3)), [BLOCK_CW, 4])
    elif R == 3:  # 3 rows of bytes (v holds a fourth, zero): (a0 b0 c0 a1), (b1 c1 a2 b2), (c2 a3 b3 c3), then 0
        a, b, c, zero = _rows_of_groups(tl.reshape(v, [1, 4, BLOCK_CW]), 1, BLOCK_CW)
        o0 = _prmt(_prmt(a, b, 0x0140, ASM), c, 0x2410, ASM)
        o1 = _prmt(_prmt(b, c, 0x0251, ASM), a, 0x2610, ASM)
        o2 = _prmt(c, _prmt(a, b, 0x0073, ASM), 0x3542, ASM)
        out = tl.reshape(tl.join(tl.join(o0, o2), tl.join(o1, zero)), [BLOCK_CW, 4])
    elif R == 2:
        a, b = tl.split(tl.permute(tl.reshape(v, [1, 2, BLOCK_CW]), (0, 2, 1)))  # rows 0 and 1
        if E == 1:  # bytes 0 and 1 of rows 0 and 1, then bytes 2 and 3
            lo = _prmt(a, b, 0x5140, ASM)
            hi = _prmt(a, b, 0x7362, ASM)
        else:  # the low halves of rows 0 and 1, then the high ones
            lo = _prmt(a, b, 0x5410, ASM)
            hi = _prmt(a, b, 0x7632, ASM)
        out = tl.join(tl.reshape(lo, [BLOCK_CW]), tl.reshape(hi, [BLOCK_CW]))
    else:  # 4 rows of 2-byte elements: low halves of rows (0, 1) and (2, 3), then the high ones
        a, b = tl.split(tl.permute(tl.reshape(v, [2, 2, BLOCK_CW]), (0, 2, 1)))  # rows (0, 2) and (1, 3)
        lo0, lo1 = tl.split(tl.permute(_prmt(a, b, 0x5410, ASM), (1, 0)))
        hi0, hi1 = tl.split(tl.permute(_prmt(a, b, 0x7632, ASM), (1, 0)))
        out = tl.reshape(tl.join(tl.join(lo0, hi0), tl.join(lo1, hi1)), [BLOCK_CW, 4])
    return out


@triton.jit
def _gathered_words(x_ptr, b, cw, cols, batch_stride, row_stride, nbytes, R: tl.constexpr, E: tl.constexpr,
                    BLOCK_CW: tl.constexpr, IN_WORDS: tl.constexpr, IN_ALIGN: tl.constexpr, WIDE: tl.constexpr,
                    ASM: tl.constexpr):
    """The R output words that word-column cw of R rows of E-byte elements holds (a tuple of [BLOCK_CW] tensors):
    each row's word read alone and kept; each output word built from the rows its elements come from
    (_output_word)."""
    rows = ()
    for r in tl.static_range(R):
        rows = rows + (_row_word(x_ptr, b, r, cw, cols, batch_stride, row_stride, nbytes, R, E, BLOCK_CW, IN_WORDS,
                                 IN_ALIGN, WIDE, ASM),)
    words = ()
    for j in tl.static_range(R):
        words = words + (_output_word(rows, j, R, E, ASM),)
    return words


@triton.jit
def _row_word(x_ptr, b, r: tl.constexpr, cw, cols, batch_stride, row_stride, nbytes, R: tl.constexpr, E: tl.constexpr,
              BLOCK_CW: tl.constexpr, IN_WORDS: tl.constexpr, IN_ALIGN: tl.constexpr, WIDE: tl.constexpr,
              ASM: tl.constexpr):
    """Word-column cw ([BLOCK_CW]) of row r of matrix b (R rows of E-byte elements)."""
    return tl.reshape(_row_words(x_ptr, b, tl.arange(0, 1) + r, cw, R, cols, batch_stride, row_stride, nbytes, 0,
                                 4 // E, IN_WORDS, IN_ALIGN, WIDE, ASM), [BLOCK_CW])


@triton.jit
def _output_word(rows, J: tl.constexpr, R: tl.constexpr, E: tl.constexpr, ASM: tl.constexpr):
    """Output word J of a word-column of R rows (`rows`, each row's word; only those this word reads need be real):
    its element i (of 4 / E) is element (4 J / E + i) // R of row (4 J / E + i) % R. Bytes: 0 and 1 from their two
    rows (the second's through selector 4 + k), then 2 and 3, then the two halves joined; 2-byte elements: one
    permute of their two rows."""
    if E == 1:
        word = _join_bytes(rows[(4 * J) % R], (4 * J) // R, rows[(4 * J + 1) % R], (4 * J + 1) // R,
                           rows[(4 * J + 2) % R], (4 * J + 2) // R, rows[(4 * J + 3) % R], (4 * J + 3) // R, ASM)
    else:  # the half of its row that each element is
        word = _join_halves(rows[(2 * J) % R], (2 * J) // R, rows[(2 * J + 1) % R], (2 * J + 1) // R, ASM)
    return word


@triton.jit
def _shifted_into_place(built, before, o, R: tl.constexpr, ASM: tl.constexpr):
    """The R words `built` (a tuple: a word-column's output words, as if its output started at a whole word) where
    that output starts `o` bytes into a word: each funnel-shifted from the word built before it (`before` for the
    first: the previous word-column's last); as built where o is 0."""
    up = ((4 - o) % 4).to(tl.uint32)  # the shift, in bytes, of the word before: its high o bytes come first
    shifted = ()
    previous = before
    for j in tl.static_range(R):
        shifted = shifted + (tl.where(o > 0, _funnel_shift(previous, built[j], up, ASM), built[j]),)
        previous = built[j]
    return shifted


@triton.jit
def _store_shifted(x_ptr, out_ptr, built, b, t, cw, cols, batch_stride, row_stride, span_bytes, nbytes,
                   R: tl.constexpr, E: tl.constexpr, RP: tl.constexpr, BLOCK_CW: tl.constexpr, IN_WORDS: tl.constexpr,
                   IN_ALIGN: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr):
    """Stores the output words `built` (R [BLOCK_CW] tensors: word-column cw's words, as if matrix b's output
    started at a whole word) where that output starts `o` bytes into a word: the output word that starts at the
    matrix's byte 4 v - o is funnel-shifted from words v - 1 and v (for v = 0 of a word-column, v - 1 is the
    previous word-column's last word, built again from the row words it reads). Whole words are stored as words;
    the first and the last, which the matrix shares with its neighbours, byte by byte."""
    start = b * span_bytes
    o = start % 4
    base = start // 4  # the output word that holds the matrix's first byte
    before = tl.maximum(cw - 1, 0)  # the previous word-column (for cw 0 its bytes are the previous matrix's)
    held = ()  # its rows' words, those that its last output word reads (rows R - 4 / E on, all of them if fewer)
    for r in tl.static_range(R):
        if r >= R - 4 // E:
            held = held + (_row_word(x_ptr, b, r, before, cols, batch_stride, row_stride, nbytes, R, E, BLOCK_CW,
                                     IN_WORDS, IN_ALIGN, WIDE, ASM),)
        else:
            held = held + (built[0],)
    shifted = _shifted_into_place(built, _output_word(held, R - 1, R, E, ASM), o, R, ASM)
    words = _stacked(shifted, R, RP)
    k = tl.arange(0, RP)
    v = cw[:, None] * R + k[None, :]  # the matrix's output words, counted from the one that holds its first byte
    at = base + v
    ends = (span_bytes + o) // 4  # the words before this one lie wholly in the matrix's output
    tl.store(out_ptr + at, words, mask=(v >= (o + 3) // 4) & (v < ends) & (k < R)[None, :])
    holds = (ends // R) // BLOCK_CW  # the program that holds the matrix's partial last word (if it has one)
    if ((t == 0) & (o > 0)) | (t == holds):
        items = _words_of(out_ptr, 1)
        inside = 4 * v - o  # the matrix's byte that each word starts at
        edge = ((v == 0) & (o > 0)) | (v == ends)
        for i in tl.static_range(4):
            byte = ((words.to(tl.uint32, bitcast=True) >> (8 * i)) & 0xFF).to(tl.uint8)
            tl.store(items + at * 4 + i, byte, mask=edge & (inside + i >= 0) & (inside + i < span_bytes)
                     & (k < R)[None, :])


@triton.jit
def _joined_halves(level, HALF: tl.constexpr):
    """Tensor i of the tuple `level` (2 HALF of them) joined with tensor i + HALF, along a new last axis."""
    joined = ()
    for i in tl.static_range(HALF):
        joined = joined + (tl.join(level[i], level[i + HALF]),)
    return joined


@triton.jit
def _stacked(words, R: tl.constexpr, N: tl.constexpr):
    """The R [BLOCK_CW] uint32 tensors of the tuple `words`, then zeros up to N (a power of two, up to 32), as one
    [BLOCK_CW, N] int32 tensor, the j-th at column j: joined in halves, tensor i with tensor i + N / 2 first, so that
    the last axis added is the lowest bit of j."""
    level = words
    for _ in tl.static_range(N - R):
        level = level + (tl.zeros_like(words[0]),)
    if N >= 32:
        level = _joined_halves(level, 16)
    if N >= 16:
        level = _joined_halves(level, 8)
    if N >= 8:
        level = _joined_halves(level, 4)
    if N >= 4:
        level = _joined_halves(level, 2)
    level = _joined_halves(level, 1)
    return tl.reshape(level[0], [level[0].shape[0], N]).to(tl.int32, bitcast=True)


@triton.jit
def transpose_interleave(x_ptr, out_ptr, cols, batch_stride, row_stride, tiles, span_bytes, nbytes,
                         R: tl.constexpr, E: tl.constexpr, BLOCK_CW: tl.constexpr, IN_WORDS: tl.constexpr,
                         IN_ALIGN: tl.constexpr, OUT_ALIGN: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr,
                         R_POW2: tl.constexpr = 1, SHIFT: tl.constexpr = False):
    """Matrices of R x `cols` elements of E bytes (R of 2 to 31, R_POW2 the power of two at least R; R PACK elements
    make R output words), rows `row_stride` bytes apart, matrices `batch_stride`, into
    a C-contiguous output of `span_bytes` a matrix; `tiles` programs a matrix, BLOCK_CW words of each row apiece.
    Without SHIFT each matrix's output starts at a whole word (one matrix, or a whole number of words each); with
    SHIFT a matrix's output may start 1 to 3 bytes into a word: its words are shifted into place, each
    from two of them, and the words it shares with its neighbours are written byte by byte. x_ptr and out_ptr are
    4-byte aligned; the input holds `nbytes` readable bytes from x_ptr."""
    PACK: tl.constexpr = 4 // E
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: 2**31 bytes or more in the input or the output
        pid = pid.to(tl.int64)
    b = pid // tiles
    t = pid - b * tiles
    cw = t * BLOCK_CW + tl.arange(0, BLOCK_CW)  # word-columns: PACK columns of every row, R output words
    if SHIFT:  # the matrix's output starts 1 to 3 bytes into a word (configs.outputs_shifted)
        RP: tl.constexpr = R_POW2
        built = _gathered_words(x_ptr, b, cw, cols, batch_stride, row_stride, nbytes, R, E, BLOCK_CW, IN_WORDS,
                                IN_ALIGN, WIDE, ASM)
        _store_shifted(x_ptr, out_ptr, built, b, t, cw, cols, batch_stride, row_stride, span_bytes, nbytes, R, E,
                       RP, BLOCK_CW, IN_WORDS, IN_ALIGN, WIDE, ASM)
    else:
        if R > 4 or (R == 3 and E == 2):  # each output word from the rows its elements come from
            RP: tl.constexpr = R_POW2
            built = _gathered_words(x_ptr, b, cw, cols, batch_stride, row_stride, nbytes, R, E, BLOCK_CW, IN_WORDS,
                                    IN_ALIGN, WIDE, ASM)
            words = _stacked(built, R, RP)
        else:
            RP: tl.constexpr = 4 if R == 3 else R
            v = _row_words(x_ptr, b, tl.arange(0, RP), cw, R, cols, batch_stride, row_stride, nbytes, 0, PACK, IN_WORDS,
                           IN_ALIGN, WIDE, ASM)
            words = _interleaved(v, R, E, BLOCK_CW, ASM).to(tl.int32, bitcast=True)
        k = tl.arange(0, RP)
        whole = span_bytes // (4 * R)  # word-columns whose R output words all lie in the matrix's output
        at = b * _aligned(span_bytes // 4, OUT_ALIGN) + cw[:, None] * R + k[None, :]
        tl.store(out_ptr + at, words, mask=(cw < whole)[:, None] & (k < R)[None, :])
        if t == tiles - 1:  # the last program: the words of a partial last word-column, then the bytes, one by one
            inside = (cw[:, None] * R + k[None, :]) * 4
            tl.store(out_ptr + at, words, mask=(cw >= whole)[:, None] & (inside + 4 <= span_bytes) & (k < R)[None, :])
            items = _words_of(out_ptr, 1)
            for i in tl.static_range(3):
                byte = ((words >> (8 * i)) & 0xFF).to(tl.uint8)
                tl.store(items + at * 4 + i, byte, mask=(inside < span_bytes) & (inside + 4 > span_bytes)
                         & (inside + i < span_bytes) & (k < R)[None, :])
