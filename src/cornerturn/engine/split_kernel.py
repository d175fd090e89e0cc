"""Triton kernel of transposes whose input rows are short and end to end (pixels split into planes, AoS to SoA).

transpose_split: matrices of `rows` x C elements of 1 or 2 bytes (C small, each matrix's input one contiguous run).
A lane takes a group of 4 / E input rows, C whole words read one by one (the lanes' reads of a word C words apart,
the sectors shared through the L1), and builds from them with byte permutes the word each of the C output rows holds
of that group: the warp's stores along each output row are whole runs. Where output rows start inside words (SHIFT)
each word is funnel-shifted into place from the lane's word and the word of the group before, which the lane reads
too; the words a row shares with its neighbours are written byte by byte.
"""

from __future__ import annotations

import triton
import triton.language as tl

from .kernels import _aligned, _funnel_shift, _join_bytes, _join_halves, _words_of


@triton.jit
def _read_groups(x_ptr, b, g, groups, batch_stride, nbytes, C: tl.constexpr, IN_WORDS: tl.constexpr,
                 WIDE: tl.constexpr, ASM: tl.constexpr):
    """The C words of each group g ([BLOCK]) of matrix b, as a tuple of C [BLOCK] tensors (zero outside the matrix's
    groups): with IN_WORDS the matrix starts at a whole word and the words are loaded as they are; otherwise each is
    funnel-shifted from the two aligned words that hold it. No word past the `nbytes` readable bytes is read."""
    if WIDE:
        g = g.to(tl.int64)
    ok = (g >= 0) & (g < groups)
    start = b * batch_stride  # the matrix's first byte, from x_ptr (4-aligned)
    q = start // 4  # the word that holds it, and its byte there
    s = (start - 4 * q).to(tl.uint32)
    words = ()
    for j in tl.static_range(C):
        at = q + g * C + j
        if IN_WORDS:
            w = tl.load(x_ptr + at, mask=ok & (at * 4 < nbytes), other=0).to(tl.uint32, bitcast=True)
        else:
            lo = tl.load(x_ptr + at, mask=ok & (at * 4 < nbytes), other=0).to(tl.uint32, bitcast=True)
            hi = tl.load(x_ptr + at + 1, mask=ok & (s > 0) & (at * 4 + 4 < nbytes), other=0)
            w = _funnel_shift(lo, hi.to(tl.uint32, bitcast=True), s, ASM)
        words = words + (w,)
    return words


@triton.jit
def _split_word(words, c: tl.constexpr, C: tl.constexpr, E: tl.constexpr, ASM: tl.constexpr):
    """The word of output row c that a group's C words hold: its element i (of 4 / E) is element i C + c of the group
    (input row i, column c), in word (i C + c) E / 4. Bytes: 0 and 1 from their words, then 2 and 3, the two halves
    joined; 2-byte elements: one permute of their two words."""
    if E == 1:
        word = _join_bytes(words[c // 4], c % 4, words[(C + c) // 4], (C + c) % 4,
                           words[(2 * C + c) // 4], (2 * C + c) % 4, words[(3 * C + c) // 4], (3 * C + c) % 4, ASM)
    else:  # the half of its word that each element is
        word = _join_halves(words[c // 2], c % 2, words[(C + c) // 2], (C + c) % 2, ASM)
    return word


@triton.jit
def _index(c: tl.constexpr, WIDE: tl.constexpr):
    """The constant c as a 64-bit integer where WIDE (so that products with it do not overflow 32 bits), else as is."""
    if WIDE:
        return tl.full([], c, tl.int64)
    else:
        return c


# span_bytes is not specialised on its alignment: where a matrix's output (C rows) is a multiple of 16 bytes and its
# rows start inside words (C a multiple of 8 columns), Triton's specialisation made the compiler move each row's words
# between layouts through shared memory (sm_90a: 77 barriers a program for 8 columns, 155 for 16), and uint8
# 43850594 x 8 and 4768889 x 16 ran at 22-24% of the copy. Where output rows start at whole words the alignment is
# written into the stores (OUT_ALIGN) instead.
@triton.jit(do_not_specialize_on_alignment=["span_bytes"])
def transpose_split(x_ptr, out_ptr, rows, batch_stride, groups, tiles, span_bytes, nbytes,
                    C: tl.constexpr, E: tl.constexpr, BLOCK: tl.constexpr, IN_WORDS: tl.constexpr,
                    OUT_ALIGN: tl.constexpr, SHIFT: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr):
    """Matrices of `rows` x C elements of E bytes, rows end to end (C E bytes apart), matrices `batch_stride` bytes
    apart, into a C-contiguous output of `span_bytes` (C rows E bytes) a matrix; `groups` groups of 4 / E rows a
    matrix, `tiles` programs a matrix, BLOCK groups (lanes) apiece. Without SHIFT every output row starts at a whole
    word (rows a multiple of 4 / E); with SHIFT output rows may start 1 to 3 bytes into a word, and the programs
    cover groups + 1 output words a row. x_ptr and out_ptr are 4-byte aligned; the input holds `nbytes` readable
    bytes from x_ptr."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: 2**31 bytes or more in the input or the output
        pid = pid.to(tl.int64)
    b = pid // tiles
    t = pid - b * tiles
    g = t * BLOCK + tl.arange(0, BLOCK)  # a lane's group of input rows: output word g of every output row
    built = _read_groups(x_ptr, b, g, groups, batch_stride, nbytes, C, IN_WORDS, WIDE, ASM)
    if SHIFT:
        before = _read_groups(x_ptr, b, g - 1, groups, batch_stride, nbytes, C, IN_WORDS, WIDE, ASM)
        row_bytes = rows * E
        items = _words_of(out_ptr, 1)
        for c in tl.static_range(C):
            start = b * span_bytes + _index(c, WIDE) * row_bytes  # the output row's first byte
            o = start % 4
            base = start // 4  # the output word that holds it
            up = ((4 - o) % 4).to(tl.uint32)  # word g of the row starts at its byte 4 g - o: bytes of groups g-1, g
            word = _split_word(built, c, C, E, ASM)
            word = tl.where(o > 0, _funnel_shift(_split_word(before, c, C, E, ASM), word, up, ASM), word)
            ends = (row_bytes + o) // 4  # words before this one lie wholly in the row
            tl.store(out_ptr + base + g, word.to(tl.int32, bitcast=True), mask=(g >= (o + 3) // 4) & (g < ends))
            if ((t == 0) & (o > 0)) | (t == ends // BLOCK):  # the programs that hold the row's first or last word
                inside = 4 * g - o  # the row's byte that each word starts at
                edge = ((g == 0) & (o > 0)) | (g == ends)
                for i in tl.static_range(4):
                    byte = ((word >> (8 * i)) & 0xFF).to(tl.uint8)
                    tl.store(items + (base + g) * 4 + i, byte,
                             mask=edge & (inside + i >= 0) & (inside + i < row_bytes))
    else:
        for c in tl.static_range(C):
            word = _split_word(built, c, C, E, ASM)
            at = b * _aligned(span_bytes // 4, OUT_ALIGN) + _index(c, WIDE) * _aligned(groups, OUT_ALIGN) + g
            tl.store(out_ptr + at, word.to(tl.int32, bitcast=True), mask=g < groups)
