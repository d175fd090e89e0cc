"""Triton kernels of the GPU engine.

transpose_tiles: one program per BLOCK_R x BLOCK_C tile of one matrix of the batch, on a 1-D grid (no grid
axis limit to hit). The load runs along the input's columns (coalesced when col_stride is one word), the store
along the output's rows (always contiguous); Triton moves the tile between the two layouts through shared
memory. An element of WORDS machine words (16-byte elements as two 8-byte words) is a third tile axis, so
each thread still moves whole elements. Tiles are numbered down a column of tiles first, so neighbouring
programs write neighbouring stretches of the same output rows.

transpose_words: 1- and 2-byte elements moved as 32-bit words. A program loads BLOCK_R rows x BLOCK_CW words
(PACK elements each): as they are where every row starts at a whole word, else each row as the aligned words that
hold it, two neighbours funnel-shifted into each word. Byte permutes regroup the elements of PACK consecutive rows
into output words, stored whole along the output rows where those start at whole words. Output rows that start
inside a word are written either as words shifted into place from two groups of rows (OUT 1: each group's successor
gathered from the tile where NEXT_BY_GATHER, else the tile read a second time, PACK rows lower; the elements
before the first whole word and after the last one are stored one by one, except with JOIN, where output rows lie
end to end: the word where row c ends and row c + 1 begins, both from one input word, is then built whole from
row c's last elements and the first PACK rows, read again), or element by element along the output rows (OUT 2).
Arrays that start x_off and out_off bytes past a whole word (slices) are passed as the words before
them, and every row is then read (and written) as unaligned.

transpose_pairs: 16-byte elements whose columns are contiguous, as a flat tile of 8-byte words: each input row
segment of 2 x BLOCK_C words is loaded whole, the tile is regrouped (reshape to pairs, swap the row and column
axes) and each output row segment of 2 x BLOCK_R words is stored whole.

transpose_square_funnel: transpose_square_inplace for 1- and 2-byte elements whose rows are not whole 32-bit words
(odd sides): each row of both tiles of an inner pair read as the aligned words that hold it, two neighbours
funnel-shifted into each word, so loads move 4 bytes a lane; stored element by element after the barrier. Pairs on
the diagonal or in the last column of tiles move element by element (only their reads could pass the buffer's end).

transpose_square_inplace: one program per tile pair (ti, tj), ti <= tj, of a square matrix: it loads the tile
and its mirror, waits at a barrier (a thread may store where another has yet to load), and stores each one
transposed into the other's place. Programs are numbered over the pairs only (t = tj (tj + 1) / 2 + ti), or with
GROUP over blocks of GROUP x GROUP tiles, a block's pairs together (large squares: fewer rows touched at once). With
READDRESS (sides whose rows are not whole 16-byte runs, so every element has its own address) the store pointers
are computed after the barrier instead of being kept across it. With GRID the squares lie side by side in a
wider matrix (the grid form of cornerturn.blocks), each transposed where it is.

The tile kernels take the output's row stride (in words or bytes; rows x WORDS for a C-contiguous output) so that
a matrix can be transposed into a column block of a wider output; batched launches have C-contiguous outputs.
transpose_words takes IN_ALIGN and OUT_ALIGN, powers of two that divide the input's row and batch strides and the
output's row stride in words (OUT_ALIGN also the whole words of an output row, the stores' mask bound, which is
written as its multiple: a mask the compiler cannot tell aligned splits each vector store into words a lane, 8 to 16
bytes apart): Triton specialises integer arguments only on divisibility by 16, so without them a row pitch of, say,
3000 words is taken as unaligned and every access narrowed to one word (bfloat16 8192x6000 ran at 11% of the copy
so, 91% with them; on an H200, docs/engine.md). The element kernels are not told: there, 16-byte accesses on one
side only ran slower than one word a lane on both.

cycles_save, cycles_move: a permutation of equal chunks in place (cornerturn.cycles), for the block form of the
in-place transpose (cornerturn.blocks). A program moves one BLOCK-word part of every chunk of one segment, down
the chain: each chunk read and written whole, in contiguous runs.

copy_2d, restride_rows: the peeled form's edge (saved, then written back transposed) and its rows moved in place
from one row stride to another, a row part per work item, in the order that reads every part before any write
lands on it (descending when rows spread out, ascending when they close up).

copy_strided: the disguised copies (one row, one column, already-transposed input): contiguous writes, reads
with one stride per batch and column.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _tile_of_program(tiles_r, tiles_c, band, WIDE: tl.constexpr):
    """(matrix, tile row, tile column) of this program: tiles numbered in bands of `band` tile rows, down a column
    of a band's tiles first, then the band's next column (the last band may hold fewer rows); band = tiles_r
    numbers them down whole columns of tiles."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: more than 2**31 words in the input or the output
        pid = pid.to(tl.int64)
    per_matrix = tiles_r * tiles_c
    b = pid // per_matrix
    t = pid - b * per_matrix
    per_band = band * tiles_c
    first = t // per_band * band  # the band's first tile row
    t = t - first * tiles_c
    height = tl.minimum(band, tiles_r - first)
    tc = t // height
    return b, first + t - tc * height, tc


@triton.jit
def _aligned(value, ALIGN: tl.constexpr):
    """`value`, a multiple of ALIGN, written so that the compiler knows it is one."""
    return value // ALIGN * ALIGN


@triton.jit
def transpose_tiles(x_ptr, out_ptr, rows, cols, batch_stride, row_stride, col_stride, tiles_r, tiles_c, out_row_stride,
                    band, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WORDS: tl.constexpr, WIDE: tl.constexpr,
                    OUT_ALIGN: tl.constexpr = 1):
    """OUT_ALIGN divides the output's row stride (in words) and, for one-word elements, the rows: written into the
    arithmetic so that the stores along output rows widen (the loads are left to Triton's own specialisation)."""
    b, tr, tc = _tile_of_program(tiles_r, tiles_c, band, WIDE)
    r = tr * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tc * BLOCK_C + tl.arange(0, BLOCK_C)
    x_base = x_ptr + b * batch_stride
    ors = _aligned(out_row_stride, OUT_ALIGN)
    out_base = out_ptr + b * cols * ors  # batched outputs are C-contiguous: rows x WORDS words a row
    if WORDS == 1:
        mask = (r[:, None] < _aligned(rows, OUT_ALIGN)) & (c[None, :] < cols)
        tile = tl.load(x_base + r[:, None] * row_stride + c[None, :] * col_stride, mask=mask)
        tl.store(out_base + c[None, :] * ors + r[:, None], tile, mask=mask)
    else:
        w = tl.arange(0, WORDS)
        mask3 = ((r[:, None] < rows) & (c[None, :] < cols))[:, :, None]
        src = x_base + r[:, None, None] * row_stride + c[None, :, None] * col_stride + w[None, None, :]
        tile = tl.load(src, mask=mask3)
        dst = out_base + c[None, :, None] * ors + r[:, None, None] * WORDS + w[None, None, :]
        tl.store(dst, tile, mask=mask3)


@triton.jit
def _rows_of_groups(words, BLOCK_RW: tl.constexpr, BLOCK_CW: tl.constexpr):
    """Words of BLOCK_RW groups of 4 rows x BLOCK_CW columns ([BLOCK_RW, 4, BLOCK_CW]) as four [BLOCK_RW,
    BLOCK_CW] tensors, the first to the fourth row of each group, to be combined elementwise."""
    grouped = tl.permute(words, (0, 2, 1))
    even, odd = tl.split(tl.reshape(grouped, [BLOCK_RW, BLOCK_CW, 2, 2]))
    w0, w2 = tl.split(even)
    w1, w3 = tl.split(odd)
    return w0, w1, w2, w3


@triton.jit
def _prmt(a, b, SEL: tl.constexpr, ASM: tl.constexpr):
    """PTX prmt.b32 with selector SEL: byte k of the result is byte (SEL >> 4 k) & 7 of the pair (b:a). In
    shifts and masks where ASM is off (Triton's interpreter)."""
    if ASM:  # the selector as a register operand: a constant, folded into the instruction by ptxas
        return tl.inline_asm_elementwise("prmt.b32 $0, $1, $2, $3;", "=r,r,r,r", [a, b, tl.zeros_like(a) + SEL],
                                         dtype=tl.uint32, is_pure=True, pack=1)
    else:
        out = tl.zeros_like(a)
        for k in tl.static_range(4):
            i: tl.constexpr = (SEL >> (4 * k)) & 7
            if i < 4:  # noqa: SIM108 - a branch on a constexpr, resolved when the kernel is compiled
                byte = (a >> (8 * i)) & 0xFF
            else:
                byte = (b >> (8 * (i - 4))) & 0xFF
            out = out | (byte << (8 * k))
        return out


@triton.jit
def _join_bytes(a, A: tl.constexpr, b, B: tl.constexpr, c, C: tl.constexpr, d, D: tl.constexpr, ASM: tl.constexpr):
    """The word of byte A of a, byte B of b, byte C of c and byte D of d, lowest first: two byte permutes of a pair
    each, then the pairs joined."""
    return _prmt(_prmt(a, b, A | ((4 + B) << 4), ASM), _prmt(c, d, C | ((4 + D) << 4), ASM), 0x5410, ASM)


@triton.jit
def _join_halves(a, A: tl.constexpr, b, B: tl.constexpr, ASM: tl.constexpr):
    """The word of half A of a (low) and half B of b (high): one byte permute."""
    return _prmt(a, b, (2 * A) | ((2 * A + 1) << 4) | ((4 + 2 * B) << 8) | ((5 + 2 * B) << 12), ASM)


@triton.jit
def _funnel_shift(lo, hi, s, ASM: tl.constexpr):
    """(hi:lo) >> 8 s, s bytes (0 to one less than a word), for unsigned words lo and hi of one width: the word
    that starts s bytes into lo. With ASM (32-bit words only) one shf.r instruction."""
    if ASM:
        return tl.inline_asm_elementwise("shf.r.clamp.b32 $0, $1, $2, $3;", "=r,r,r,r", [lo, hi, s * 8],
                                         dtype=tl.uint32, is_pure=True, pack=1)
    else:
        bits: tl.constexpr = lo.dtype.primitive_bitwidth
        up = (8 * s).to(lo.dtype)
        down = ((bits - 8 * s) % bits).to(lo.dtype)
        return tl.where(s > 0, (lo >> up) | (hi << down), lo)


@triton.jit
def _row_words(x_ptr, b, r, cw, rows, cols, batch_stride, row_stride, nbytes, x_off, PACK: tl.constexpr,
               IN_WORDS: tl.constexpr, IN_ALIGN: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr):
    """Words cw of input rows r ([BLOCK_R] x [BLOCK_CW]) of matrix b: PACK elements each, the row's elements 4 cw / E
    onwards; the first matrix starts x_off bytes after x_ptr (0 with IN_WORDS). With IN_WORDS every row starts at a
    whole word and the words are loaded as they are; otherwise each row is read as the aligned words that hold it,
    two neighbours funnel-shifted into each word (the high one only where it lies inside the `nbytes` readable
    bytes from x_ptr)."""
    if WIDE:
        r = r.to(tl.int64)
    ok = (r[:, None] < rows) & (cw[None, :] < (cols + PACK - 1) // PACK)  # in words: vector loads stay possible
    if IN_WORDS:
        q = b * _aligned(batch_stride // 4, IN_ALIGN) + r * _aligned(row_stride // 4, IN_ALIGN)
        return tl.load(x_ptr + q[:, None] + cw[None, :], mask=ok, other=0).to(tl.uint32, bitcast=True)
    start = x_off + b * batch_stride + r * row_stride  # byte of each row's first element, from x_ptr (4-aligned)
    q = start // 4
    s = (start - 4 * q).to(tl.uint32)
    at = q[:, None] + cw[None, :]
    lo = tl.load(x_ptr + at, mask=ok, other=0).to(tl.uint32, bitcast=True)
    hi = tl.load(x_ptr + at + 1, mask=ok & (s[:, None] > 0) & (at * 4 + 4 < nbytes), other=0)
    return _funnel_shift(lo, hi.to(tl.uint32, bitcast=True), s[:, None], ASM)


@triton.jit
def _group_words(v, BLOCK_RW: tl.constexpr, BLOCK_CW: tl.constexpr, PACK: tl.constexpr, ASM: tl.constexpr):
    """Words of BLOCK_RW groups of PACK rows ([BLOCK_RW * PACK, BLOCK_CW]) regrouped by element position: the k-th
    tensor ([BLOCK_RW, BLOCK_CW]) holds, for each group, element k of its PACK rows, first row lowest (byte
    permutes; for PACK 2 the last two repeat the first two)."""
    if PACK == 4:
        w0, w1, w2, w3 = _rows_of_groups(tl.reshape(v, [BLOCK_RW, 4, BLOCK_CW]), BLOCK_RW, BLOCK_CW)
        t0 = _prmt(w0, w1, 0x5140, ASM)  # bytes 0 and 1 of rows 0 and 1, interleaved
        t1 = _prmt(w0, w1, 0x7362, ASM)
        t2 = _prmt(w2, w3, 0x5140, ASM)
        t3 = _prmt(w2, w3, 0x7362, ASM)
        return (_prmt(t0, t2, 0x5410, ASM), _prmt(t0, t2, 0x7632, ASM), _prmt(t1, t3, 0x5410, ASM),
                _prmt(t1, t3, 0x7632, ASM))
    else:
        w0, w1 = tl.split(tl.permute(tl.reshape(v, [BLOCK_RW, 2, BLOCK_CW]), (0, 2, 1)))
        g0 = _prmt(w0, w1, 0x5410, ASM)  # the low halves of rows 0 and 1
        g1 = _prmt(w0, w1, 0x7632, ASM)
        return g0, g1, g0, g1


@triton.jit
def _next_groups(x_ptr, b, tr, cw, rows, cols, batch_stride, row_stride, nbytes, x_off, a0, a1, a2, a3,
                 BLOCK_R: tl.constexpr, BLOCK_RW: tl.constexpr, BLOCK_CW: tl.constexpr, PACK: tl.constexpr,
                 IN_WORDS: tl.constexpr, IN_ALIGN: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr):
    """The grouped words a0..a3 ([BLOCK_RW, BLOCK_CW]) of tile row tr one group of rows on: the next tile's first
    group loaded, PACK rows, the others gathered from the tile (_successors)."""
    e = _row_words(x_ptr, b, tr * BLOCK_R + BLOCK_R + tl.arange(0, PACK), cw, rows, cols, batch_stride, row_stride,
                   nbytes, x_off, PACK, IN_WORDS, IN_ALIGN, WIDE, ASM)
    e0, e1, e2, e3 = _group_words(e, 1, BLOCK_CW, PACK, ASM)
    return _successors(a0, a1, a2, a3, e0, e1, e2, e3, BLOCK_RW, BLOCK_CW, PACK)


@triton.jit
def _successors(a0, a1, a2, a3, e0, e1, e2, e3, BLOCK_RW: tl.constexpr, BLOCK_CW: tl.constexpr,
                PACK: tl.constexpr):
    """Each group's successor in the grouped words a0..a3 ([BLOCK_RW, BLOCK_CW]): the next group, gathered from the
    tile (warp shuffles), and for the last one e0..e3 ([1, BLOCK_CW], the group after the tile)."""
    i = tl.arange(0, BLOCK_RW)[:, None] + tl.zeros([BLOCK_RW, BLOCK_CW], tl.int32)
    up = tl.minimum(i + 1, BLOCK_RW - 1)
    last = i == BLOCK_RW - 1
    n0 = tl.where(last, e0, tl.gather(a0, up, 0))
    n1 = tl.where(last, e1, tl.gather(a1, up, 0))
    if PACK == 4:
        n2 = tl.where(last, e2, tl.gather(a2, up, 0))
        n3 = tl.where(last, e3, tl.gather(a3, up, 0))
    else:
        n2, n3 = n0, n1
    return n0, n1, n2, n3


@triton.jit
def _pick(k: tl.constexpr, w0, w1, w2, w3):
    """The k-th of four tensors (k a compile-time constant)."""
    if k == 0:  # noqa: SIM116 - branches on a constexpr, resolved when the kernel is compiled
        return w0
    elif k == 1:
        return w1
    elif k == 2:
        return w2
    else:
        return w3


@triton.jit
def transpose_words(x_ptr, out_ptr, rows, cols, batch_stride, row_stride, tiles_r, tiles_c, out_row_stride, nbytes,
                    x_off, out_off, band, BLOCK_R: tl.constexpr, BLOCK_CW: tl.constexpr, E: tl.constexpr,
                    IN_WORDS: tl.constexpr, OUT: tl.constexpr, EDGES: tl.constexpr, WIDE: tl.constexpr,
                    ASM: tl.constexpr, IN_ALIGN: tl.constexpr = 1, OUT_ALIGN: tl.constexpr = 1,
                    NEXT_BY_GATHER: tl.constexpr = False, JOIN: tl.constexpr = False):
    PACK: tl.constexpr = 4 // E
    BLOCK_RW: tl.constexpr = BLOCK_R // PACK
    ITEM: tl.constexpr = (1 << (8 * E)) - 1
    b, tr, tc = _tile_of_program(tiles_r, tiles_c, band, WIDE)
    r = tr * BLOCK_R + tl.arange(0, BLOCK_R)
    cw = tc * BLOCK_CW + tl.arange(0, BLOCK_CW)
    v = _row_words(x_ptr, b, r, cw, rows, cols, batch_stride, row_stride, nbytes, x_off, PACK, IN_WORDS, IN_ALIGN,
                   WIDE, ASM)
    out_base = out_off + b * cols * out_row_stride  # bytes from out_ptr; batched outputs are C-contiguous
    if OUT == 2:  # element by element along the output rows
        items = _words_of(out_ptr, E)
        for k in tl.static_range(PACK):
            c = cw * PACK + k
            item = ((v >> (8 * E * k)) & ITEM).to(items.dtype.element_ty)
            tl.store(items + ((out_base + c * out_row_stride) // E)[None, :] + r[:, None], item,
                     mask=(r[:, None] < rows) & (c[None, :] < cols))
    else:
        a0, a1, a2, a3 = _group_words(v, BLOCK_RW, BLOCK_CW, PACK, ASM)
        if OUT == 1:  # the next group of rows too: a word starting inside a group takes the next group's elements
            if NEXT_BY_GATHER:
                n0, n1, n2, n3 = _next_groups(x_ptr, b, tr, cw, rows, cols, batch_stride, row_stride, nbytes, x_off,
                                              a0, a1, a2, a3, BLOCK_R, BLOCK_RW, BLOCK_CW, PACK, IN_WORDS, IN_ALIGN,
                                              WIDE, ASM)
            else:
                v = _row_words(x_ptr, b, r + PACK, cw, rows, cols, batch_stride, row_stride, nbytes, x_off, PACK,
                               IN_WORDS, IN_ALIGN, WIDE, ASM)
                n0, n1, n2, n3 = _group_words(v, BLOCK_RW, BLOCK_CW, PACK, ASM)
        rw = tr * BLOCK_RW + tl.arange(0, BLOCK_RW)  # groups of PACK rows: the output words' places in their rows
        ors_w = _aligned(out_row_stride // 4, OUT_ALIGN)
        if JOIN:  # the first PACK rows of every column, read where a tile holds the last words of output rows
            ends = tr * BLOCK_R + BLOCK_R + 2 * PACK > rows
            h = _row_words(x_ptr, b, tl.arange(0, PACK), cw, tl.where(ends, rows, 0), cols, batch_stride, row_stride,
                           nbytes, x_off, PACK, IN_WORDS, IN_ALIGN, WIDE, ASM)
            h0, h1, h2, h3 = _group_words(h, 1, BLOCK_CW, PACK, ASM)
        for k in tl.static_range(PACK):
            group = _pick(k, a0, a1, a2, a3)  # element k of each input word: output rows c, rows of groups rw
            c = cw * PACK + k
            if OUT == 0:  # output rows start at whole words
                shift = 0
                words = group
                at = ((b * cols + c) * ors_w)[None, :] + rw[:, None]
            else:  # output row c starts `shift` bytes before a whole word; the same for every column of this k
                shift = (4 - (out_base + k * out_row_stride) % 4) % 4
                words = _funnel_shift(group, _pick(k, n0, n1, n2, n3), (tl.zeros_like(group) + shift).to(tl.uint32),
                                      ASM)
                at = ((out_base + c * out_row_stride + shift) // 4)[None, :] + rw[:, None]
            first = shift // E  # the elements of each output row before its first whole word, and from `last` on
            last = first + (rows - first) // PACK * PACK
            whole = (rows - first) // PACK  # whole words a row
            if OUT == 0:  # a multiple of OUT_ALIGN (the planner's promise), written so that the compiler knows it
                whole = _aligned(whole, OUT_ALIGN)  # and the masked stores stay vectors
            stored = (rw[:, None] < whole) & (c[None, :] < cols)
            loose = rows - last  # elements of the row's last, partial word
            if JOIN and k < PACK - 1:  # noqa: SIM102 - a constexpr (compiled out) around a run-time test
                if ends:  # rows end to end: output row c + 1 (same input word) completes row c's last word
                    joined = ((c + 1 < cols) & (loose > 0))[None, :] & (rw[:, None] == whole)
                    head = _pick(k + 1, h0, h1, h2, h3) << (8 * E * loose).to(tl.uint32)
                    words = tl.where(joined, words | head, words)
                    stored = stored | joined
            tl.store(out_ptr + at, words.to(tl.int32, bitcast=True), mask=stored)
            if EDGES:
                heads = tr == 0
                tails = tr * BLOCK_R + BLOCK_R + PACK > rows
                if JOIN:  # a row's first elements only where k is 0; its last where row c + 1 did not join them
                    after = c >= 0  # the columns whose last elements go one by one
                    tails = (loose > 0) & ends
                    if k == 0:  # noqa: SIM108 - a branch on a constexpr, resolved when the kernel is compiled
                        heads = heads & (first > 0)
                    else:
                        heads = tr < 0
                    if k < PACK - 1:
                        tails = tails & (tc * BLOCK_CW * PACK + BLOCK_CW * PACK >= cols)
                        after = c + 1 >= cols
                    if heads | tails:  # this tile holds some: one by one
                        _store_ends(out_ptr, out_base, c, out_row_stride, group, rw, first, last, rows, cols, heads,
                                    tails, after, E, PACK, True)
                elif heads | tails:  # the same without the joins' conditions, which cost registers (1 block an
                    _store_ends(out_ptr, out_base, c, out_row_stride, group, rw, first, last, rows, cols, heads,
                                tails, c, E, PACK, False)  # SM instead of 2 for 256 x 32 words on 8 warps)


@triton.jit
def _store_ends(out_ptr, out_base, c, out_row_stride, group, rw, first, last, rows, cols, heads, tails, after,
                E: tl.constexpr, PACK: tl.constexpr, JOIN: tl.constexpr):
    """The elements of output rows c before their first whole word and from `last` on, one by one, from the grouped
    words `group` of groups rw; with JOIN only the first where `heads` and the last where `tails` and `after`."""
    ITEM: tl.constexpr = (1 << (8 * E)) - 1
    items = _words_of(out_ptr, E)
    row0 = ((out_base + c * out_row_stride) // E)[None, :]
    for t in tl.static_range(PACK):
        item = ((group >> (8 * E * t)) & ITEM).to(items.dtype.element_ty)
        rr = (rw * PACK + t)[:, None]
        if JOIN:  # noqa: SIM108 - a branch on a constexpr, resolved when the kernel is compiled
            at_ends = ((rr < first) & heads) | ((rr >= last) & tails & after[None, :])
        else:
            at_ends = (rr < first) | (rr >= last)
        tl.store(items + row0 + rr, item, mask=at_ends & (rr < rows) & (c[None, :] < cols))


@triton.jit
def transpose_pairs(x_ptr, out_ptr, rows, cols, batch_stride, row_stride, tiles_r, tiles_c, out_row_stride,
                    band, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WIDE: tl.constexpr):
    b, tr, tc = _tile_of_program(tiles_r, tiles_c, band, WIDE)
    r = tr * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tc * (2 * BLOCK_C) + tl.arange(0, 2 * BLOCK_C)  # word columns of the input rows
    words = tl.load(x_ptr + b * batch_stride + r[:, None] * row_stride + w[None, :],
                    mask=(r[:, None] < rows) & (w[None, :] < 2 * cols))
    pairs = tl.reshape(words, [BLOCK_R, BLOCK_C, 2])
    flipped = tl.reshape(tl.permute(pairs, (1, 0, 2)), [BLOCK_C, 2 * BLOCK_R])
    c = tc * BLOCK_C + tl.arange(0, BLOCK_C)
    v = tr * (2 * BLOCK_R) + tl.arange(0, 2 * BLOCK_R)  # word columns of the output rows
    tl.store(out_ptr + b * cols * out_row_stride + c[:, None] * out_row_stride + v[None, :], flipped,
             mask=(c[:, None] < cols) & (v[None, :] < 2 * rows))


@triton.jit
def _tile_pair_of_program(tiles, WIDE: tl.constexpr, GROUP: tl.constexpr = 1):
    """(matrix, ti, tj, valid), ti <= tj, of this program: pairs numbered t = tj (tj + 1) / 2 + ti, so that no
    program is launched for a tile below the diagonal (about 4% faster for complex128 8192x8192, where tiles are 16 x
    16). With GROUP > 1 the same numbering over blocks of GROUP x GROUP tiles, the pairs of a block together (ti
    fastest); the slots of a block that hold no pair (below the diagonal, past the last tile) are not valid."""
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    groups = (tiles + GROUP - 1) // GROUP
    per_matrix = groups * (groups + 1) // 2 * (GROUP * GROUP)
    b = pid // per_matrix
    t = pid - b * per_matrix
    local = t % (GROUP * GROUP)
    t = t // (GROUP * GROUP)
    tj = ((tl.sqrt((8 * t + 1).to(tl.float64)) - 1) / 2).to(t.dtype)  # then corrected by one either way
    tj = tl.where((tj + 1) * (tj + 2) // 2 <= t, tj + 1, tj)
    tj = tl.where(tj * (tj + 1) // 2 > t, tj - 1, tj)
    ti = t - tj * (tj + 1) // 2
    ti = ti * GROUP + local % GROUP
    tj = tj * GROUP + local // GROUP
    return b, ti, tj, (ti <= tj) & (tj < tiles)


@triton.jit
def _flip_words(words, BLOCK: tl.constexpr, WORDS: tl.constexpr):
    """A BLOCK x BLOCK tile of elements of WORDS words, held as BLOCK rows of WORDS x BLOCK words, transposed."""
    if WORDS == 1:
        return tl.trans(words)
    return tl.reshape(tl.permute(tl.reshape(words, [BLOCK, BLOCK, WORDS]), (1, 0, 2)), [BLOCK, WORDS * BLOCK])


@triton.jit
def _again(t):
    """`t` plus program_id(1), which is 0 on the 1-D grids here but unknown to the compiler: pointers computed
    from it after a barrier are computed anew instead of being kept in registers across it. With element-wide
    accesses each element has its own 64-bit address, and keeping a tile pair's addresses took all 255
    registers of an int8 64-tile program (80 with them recomputed; docs/inplace.md)."""
    return t + tl.program_id(1)


@triton.jit
def transpose_square_inplace(a_ptr, same_ptr, n, batch_stride, tiles, row_stride, across, BLOCK: tl.constexpr,
                             WORDS: tl.constexpr, WIDE: tl.constexpr, FLAT: tl.constexpr,
                             READDRESS: tl.constexpr = False, GRID: tl.constexpr = False, ALIGN: tl.constexpr = 1,
                             SPLIT: tl.constexpr = False, GROUP: tl.constexpr = 1):
    """Tile pair (ti, tj), ti <= tj, of a square of side n swapped: both tiles loaded, a barrier, each stored
    transposed into the other's place. With SPLIT, pairs that lie inside the square (tj short of the last column
    of tiles) move without masks, and the compiler is told that rows start at multiples of ALIGN elements (a power
    of two that divides n) and squares at multiples of ALIGN x WORDS words: rows of 4 or 8 bytes then move in words
    of that size, not one element an access (a mask on a side that is not a multiple of 16 keeps every access one
    element wide), and 16-byte elements in 16-byte accesses."""
    b, ti, tj, valid = _tile_pair_of_program(tiles, WIDE, GROUP)
    if valid:
        _square_pair(a_ptr, b, ti, tj, n, batch_stride, row_stride, across, BLOCK, WORDS, FLAT, READDRESS, GRID, ALIGN,
                     SPLIT)


@triton.jit
def _square_pair(a_ptr, b, ti, tj, n, batch_stride, row_stride, across, BLOCK: tl.constexpr, WORDS: tl.constexpr,
                 FLAT: tl.constexpr, READDRESS: tl.constexpr, GRID: tl.constexpr, ALIGN: tl.constexpr,
                 SPLIT: tl.constexpr):
    origin, stride = _square_origin(b, n, batch_stride, row_stride, across, WORDS, GRID)
    if SPLIT:  # n, the row stride and every square's origin are multiples of ALIGN elements, of WORDS words each
        if ALIGN * WORDS > 1:
            origin = _aligned(origin, ALIGN * WORDS)
        if ALIGN > 1:
            stride = _aligned(stride, ALIGN)
    base = a_ptr + origin
    if SPLIT and (tj + 1) * BLOCK <= n:  # (ti <= tj) both tiles inside the square
        _move_pair(base, ti, tj, n, stride, BLOCK, WORDS, FLAT, READDRESS, False)
    else:
        _move_pair(base, ti, tj, n, stride, BLOCK, WORDS, FLAT, READDRESS, True)


@triton.jit
def _move_pair(base, ti, tj, n, stride, BLOCK: tl.constexpr, WORDS: tl.constexpr, FLAT: tl.constexpr,
               READDRESS: tl.constexpr, MASKED: tl.constexpr):
    """One tile pair swapped, as whole rows of words flipped in registers (FLAT) or element by element; MASKED where
    a tile may reach past the square's side."""
    if FLAT:
        here, mask_here = _flat_tile(base, ti, tj, n, stride, BLOCK, WORDS)
        mirror, mask_mirror = _flat_tile(base, tj, ti, n, stride, BLOCK, WORDS)
        upper = _load_within(here, mask_here, MASKED)
        lower = _load_within(mirror, mask_mirror, MASKED)
        tl.debug_barrier()
        if READDRESS:
            ti, tj = _again(ti), _again(tj)
            here, mask_here = _flat_tile(base, ti, tj, n, stride, BLOCK, WORDS)
            mirror, mask_mirror = _flat_tile(base, tj, ti, n, stride, BLOCK, WORDS)
        _store_within(mirror, _flip_words(upper, BLOCK, WORDS), mask_mirror, MASKED)
        _store_within(here, _flip_words(lower, BLOCK, WORDS), mask_here, MASKED)
    else:
        _swap_tile_pair(base, ti, tj, n, stride, BLOCK, WORDS, READDRESS, MASKED)


@triton.jit
def _load_within(pointers, mask, MASKED: tl.constexpr):
    """tl.load, masked only where MASKED (an unmasked load of a side the compiler cannot prove a multiple of 16 may
    be vectorised, a masked one not)."""
    if MASKED:
        return tl.load(pointers, mask=mask)
    else:
        return tl.load(pointers)


@triton.jit
def _store_within(pointers, values, mask, MASKED: tl.constexpr):
    """tl.store, masked only where MASKED."""
    if MASKED:
        tl.store(pointers, values, mask=mask)
    else:
        tl.store(pointers, values)


@triton.jit
def _swap_tile_pair(base, ti, tj, n, stride, BLOCK: tl.constexpr, WORDS: tl.constexpr, READDRESS: tl.constexpr,
                    MASKED: tl.constexpr = True):
    """Tile (ti, tj) and its mirror loaded element by element (3-D tiles of WORDS words an element), a barrier, each
    stored transposed into the other's place; with READDRESS the store pointers computed after the barrier; without
    MASKED both tiles lie inside the square."""
    here, mirror, mask = _tile_pair_pointers(base, ti, tj, n, stride, BLOCK, WORDS)
    upper = _load_within(here, mask, MASKED)
    lower = _load_within(mirror, mask, MASKED)
    tl.debug_barrier()
    if READDRESS:
        here, mirror, mask = _tile_pair_pointers(base, _again(ti), _again(tj), n, stride, BLOCK, WORDS)
    _store_within(mirror, upper, mask, MASKED)
    _store_within(here, lower, mask, MASKED)


@triton.jit
def _square_origin(b, n, batch_stride, row_stride, across, WORDS: tl.constexpr, GRID: tl.constexpr):
    """Where square b starts (in words) and its row stride (in elements)."""
    if GRID:  # squares side by side, `across` of them to a row of squares, their rows row_stride elements apart
        down = b // across
        return down * batch_stride + (b - down * across) * n * WORDS, row_stride
    else:
        return b * batch_stride, n


@triton.jit
def transpose_square_funnel(a_ptr, same_ptr, n, batch_stride, tiles, row_stride, across, BLOCK: tl.constexpr,
                            ITEM: tl.constexpr, WORD: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr,
                            GRID: tl.constexpr = False, GROUP: tl.constexpr = 1):
    """transpose_square_inplace for elements of ITEM bytes whose rows do not start at whole WORD-byte words (a
    WORD-aligned a_ptr; batch_stride in elements): each row of an inner tile pair read as the aligned words that hold
    it, funnel-shifted, stored element by element after the barrier; pairs on the diagonal or in the last column of
    tiles (the only ones whose reads could run past the buffer's end) element by element."""
    b, ti, tj, valid = _tile_pair_of_program(tiles, WIDE, GROUP)
    if valid:
        _funnel_pair(a_ptr, b, ti, tj, n, batch_stride, tiles, row_stride, across, BLOCK, ITEM, WORD, ASM, GRID)


@triton.jit
def _funnel_pair(a_ptr, b, ti, tj, n, batch_stride, tiles, row_stride, across, BLOCK: tl.constexpr,
                 ITEM: tl.constexpr, WORD: tl.constexpr, ASM: tl.constexpr, GRID: tl.constexpr):
    origin, stride = _square_origin(b, n, batch_stride, row_stride, across, 1, GRID)
    items = _words_of(a_ptr, ITEM)
    if (ti == tj) | (tj == tiles - 1):
        _swap_tile_pair(items + origin, ti, tj, n, stride, BLOCK, 1, True)
    else:  # both tiles lie inside the square, and a row follows each of their rows
        upper_words = _funnel_tile(a_ptr, origin, ti, tj, stride, BLOCK, ITEM, WORD, ASM)
        lower_words = _funnel_tile(a_ptr, origin, tj, ti, stride, BLOCK, ITEM, WORD, ASM)
        tl.debug_barrier()
        _store_flipped(items + origin, _again(ti), _again(tj), stride, upper_words, BLOCK, ITEM, WORD)
        _store_flipped(items + origin, _again(tj), _again(ti), stride, lower_words, BLOCK, ITEM, WORD)


@triton.jit
def _funnel_tile(a_ptr, origin, ti, tj, stride, BLOCK: tl.constexpr, ITEM: tl.constexpr, WORD: tl.constexpr,
                 ASM: tl.constexpr):
    """Tile (ti, tj) as BLOCK rows of BLOCK ITEM / WORD words: each the word that starts at its first element,
    funnel-shifted from the two aligned words holding it."""
    words = _words_of(a_ptr, WORD)
    i = ti * BLOCK + tl.arange(0, BLOCK)
    start = (origin + i * stride + tj * BLOCK) * ITEM  # bytes
    q = start // WORD
    s = (start - q * WORD).to(words.dtype.element_ty)
    at = q[:, None] + tl.arange(0, BLOCK * ITEM // WORD)[None, :]
    lo = tl.load(words + at)
    hi = tl.load(words + at + 1, mask=s[:, None] > 0, other=0)
    return _funnel_shift(lo, hi, s[:, None], ASM and WORD == 4)


@triton.jit
def _store_flipped(items, ti, tj, stride, v, BLOCK: tl.constexpr, ITEM: tl.constexpr, WORD: tl.constexpr):
    """Tile (ti, tj), held as _funnel_tile returns it, stored transposed into tile (tj, ti), element by element."""
    PER: tl.constexpr = WORD // ITEM
    BITS: tl.constexpr = 8 * ITEM
    i = ti * BLOCK + tl.arange(0, BLOCK)
    c = tl.arange(0, BLOCK // PER)
    for k in tl.static_range(PER):
        j = tj * BLOCK + c * PER + k
        e = ((v >> (BITS * k)) & ((1 << BITS) - 1)).to(items.dtype.element_ty)
        tl.store(items + j[None, :] * stride + i[:, None], e)


@triton.jit
def _flat_tile(base, ti, tj, n, stride, BLOCK: tl.constexpr, WORDS: tl.constexpr):
    """Pointers and mask of tile (ti, tj) as BLOCK rows of WORDS x BLOCK words, rows `stride` elements apart."""
    i = ti * BLOCK + tl.arange(0, BLOCK)
    w = tj * (WORDS * BLOCK) + tl.arange(0, WORDS * BLOCK)
    return base + i[:, None] * (WORDS * stride) + w[None, :], (i[:, None] < n) & (w[None, :] < WORDS * n)


@triton.jit
def _tile_pair_pointers(base, ti, tj, n, stride, BLOCK: tl.constexpr, WORDS: tl.constexpr):
    """Pointers of tile (ti, tj) and of its mirror (tj, ti) in the same (i, j) shape, and their mask; rows
    `stride` elements apart."""
    i = ti * BLOCK + tl.arange(0, BLOCK)
    j = tj * BLOCK + tl.arange(0, BLOCK)
    mask = (i[:, None] < n) & (j[None, :] < n)
    w = tl.arange(0, WORDS)[None, None, :]
    here = base + ((i[:, None] * stride + j[None, :]) * WORDS)[:, :, None] + w  # tile (ti, tj)
    mirror = base + ((j[None, :] * stride + i[:, None]) * WORDS)[:, :, None] + w  # tile (tj, ti), same shape
    return here, mirror, mask[:, :, None]


@triton.jit
def copy_strided(x_ptr, out_ptr, total, cols, batch_stride, col_stride,
                 BLOCK: tl.constexpr, WORDS: tl.constexpr, CONTIGUOUS: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    o = pid * BLOCK + tl.arange(0, BLOCK)  # output element index
    mask = o < total
    if CONTIGUOUS:
        src_elem = o * WORDS
    else:
        b = o // cols
        k = o - b * cols
        src_elem = b * batch_stride + k * col_stride
    _move_elements(x_ptr, out_ptr, src_elem, o, mask, WORDS)


@triton.jit
def _move_elements(x_ptr, out_ptr, src, o, mask, WORDS: tl.constexpr):
    """out[o] = x[src] for the lanes in `mask`, elements of WORDS words (offsets in elements of the output, in words
    of the input): a flat run of the output, each element loaded from where it lies."""
    if WORDS == 1:
        tl.store(out_ptr + o, tl.load(x_ptr + src, mask=mask), mask=mask)
    else:
        w = tl.arange(0, WORDS)
        m2 = mask[:, None]
        v = tl.load(x_ptr + src[:, None] + w[None, :], mask=m2)
        tl.store(out_ptr + o[:, None] * WORDS + w[None, :], v, mask=m2)


# In-place transposition of non-square matrices: the three passes of cornerturn.ckg.
#
# inplace_rows: pass 2 with whole rows held by one program. It loads ROWS rows gathered (each element from its
# source column: the row's own cache lines, reused through L1), waits at a barrier, and stores them back in order.
#
# inplace_rows_banded: pass 2 for rows too long to hold on chip. Launch t copies band t of rows into one half of
# a scratch slot (contiguous) while gathering band t - 1 back from the other half (reads scattered within a row).
#
# inplace_columns: passes 1 and 3 in one launch each, a band of columns at a time through a ring of scratch
# slots small enough to stay in L2. Phase A transposes each H x K tile of a band into its slot (slot[column,
# position]: rows of the slot are the band's columns), with pass 3's rows in an order that makes every column's
# sources in a tile of output rows one contiguous run of positions; phase B reads those runs and transposes them
# back into rows of x. Items are handed out by a ticket counter and wait on per-band counters. Both
# global sides of both phases move whole 128-byte lines; the transposes go through shared memory.
#
# inplace_columns_banded: the same phases, one launch per band, double-buffered in two slots: launch t copies
# band t into one slot while band t - 1 is gathered back from the other.


@triton.jit
def _row_source(i, j, m, n, c, b, a_inverse):
    """cornerturn.ckg.row_source: the column of row i (int32) that moves to column j (int32)."""
    u = (j + c - i % c) % c
    k = i + u
    k = tl.where(k >= m, k - m, k)
    w = (j + n - k % n) % n // c
    return u * b + ((w.to(tl.int64) * a_inverse) % b).to(tl.int32)


@triton.jit
def inplace_rows(x_ptr, unused_ptr, m, n, c, b, a_inverse,
                 ROWS: tl.constexpr, BLOCK: tl.constexpr, WORDS: tl.constexpr):
    i = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    q = tl.arange(0, BLOCK)[None, :]  # word within the row
    j = q // WORDS
    mask = (i < m) & (j < n)
    row = x_ptr + i.to(tl.int64) * n * WORDS
    source = _row_source(i, j, m, n, c, b, a_inverse) * WORDS + q % WORDS
    moved = tl.load(row + source, mask=mask)  # the rows' own lines, gathered through L1
    tl.debug_barrier()  # every load of the rows done before any store
    tl.store(row + q, moved, mask=mask)


@triton.jit(do_not_specialize=["copy_row", "copy_half", "gather_row"])
def inplace_rows_banded(x_ptr, slot_ptr, m, n, c, b, a_inverse, band, row_tiles, copy_row, copy_half, gather_row,
                        BLOCK: tl.constexpr, WORDS: tl.constexpr):
    pid = tl.program_id(0)
    per_phase = band * row_tiles
    gathering = pid >= per_phase
    p = pid - per_phase * gathering.to(tl.int32)
    r = p // row_tiles  # row within the band
    q = (p - r * row_tiles) * BLOCK + tl.arange(0, BLOCK)  # word within the row
    row_words = n * WORDS
    if gathering:
        i = gather_row + r
        if (gather_row >= 0) & (i < m):
            mask = q < row_words
            j = q // WORDS
            source = _row_source(i, j, m, n, c, b, a_inverse) * WORDS + q % WORDS
            half = slot_ptr + (1 - copy_half).to(tl.int64) * band * row_words + r.to(tl.int64) * row_words
            tl.store(x_ptr + i.to(tl.int64) * row_words + q, tl.load(half + source, mask=mask), mask=mask)
    else:
        i = copy_row + r
        if (copy_row >= 0) & (i < m):
            mask = q < row_words
            half = slot_ptr + copy_half.to(tl.int64) * band * row_words + r.to(tl.int64) * row_words
            tl.store(half + q, tl.load(x_ptr + i.to(tl.int64) * row_words + q, mask=mask), mask=mask)


@triton.jit
def _wait_for(counter_ptr, target):
    """Spin until the count at counter_ptr reaches target; an acquire, so what its signallers stored is seen."""
    seen = tl.atomic_add(counter_ptr, 0, sem="acquire")
    while seen < target:
        seen = tl.atomic_add(counter_ptr, 0, sem="acquire")


@triton.jit
def _signal(counter_ptr):
    """Count one finished item: a barrier (every thread's loads and stores done), then a release."""
    tl.debug_barrier()
    tl.atomic_add(counter_ptr, 1, sem="release")


@triton.jit
def _columns_copy_tile(x_ptr, half, tile, live, m, n, a, b, c, band, col, col_tiles,
                       MODE: tl.constexpr, H: tl.constexpr, K: tl.constexpr, WORDS: tl.constexpr):
    """Phase A, one H x K tile: half[jl, k] = x[sigma(k), col + jl] (positions of length m per column)."""
    w = tl.arange(0, WORDS)[None, None, :]
    kt = tile // col_tiles
    jl = (tile - kt * col_tiles) * K + tl.arange(0, K)[None, :, None]
    k = kt * H + tl.arange(0, H)[:, None, None]
    if MODE == 1:  # position k = q * a + r holds source row c * (r * b mod a) + q
        q = k // a
        source = c * ((k - q * a).to(tl.int64) * b % a).to(tl.int32) + q
    else:
        source = k
    mask = live & (k < m) & (jl < band) & (col + jl < n)
    values = tl.load(x_ptr + (source.to(tl.int64) * n + col + jl) * WORDS + w, mask=mask)
    tl.store(half + (jl.to(tl.int64) * m + k) * WORDS + w, values, mask=mask)


@triton.jit
def _columns_gather_tile(x_ptr, half, tile, live, m, n, a, b, c, b_inverse, band, col, outer_tiles, inner_tiles,
                         MODE: tl.constexpr, H: tl.constexpr, K: tl.constexpr, WORDS: tl.constexpr):
    """Phase B, one tile: x[i, col + jl] = half[jl, position(i, j)], each column's positions a contiguous run."""
    w = tl.arange(0, WORDS)[None, None, :]
    per_col = outer_tiles * inner_tiles
    ct = tile // per_col
    p = tile - ct * per_col
    outer = p // inner_tiles
    inner = (p - outer * inner_tiles) * H + tl.arange(0, H)[:, None, None]
    jl = ct * K + tl.arange(0, K)[None, :, None]
    j = col + jl
    if MODE == 0:  # y[i, j] = x[(i + j // b) mod m, j]
        i = outer * H + inner
        row_ok = i < m
        position = i + j // b
    elif MODE == 1:  # i = alpha * a + beta, alpha = outer: position q_e * a + (beta + p_e / b) mod a
        i = outer * a + inner
        row_ok = inner < a
        e = j % m - outer
        e = tl.where(e < 0, e + m, e)
        p_e = e // c
        turn = (p_e.to(tl.int64) * b_inverse % a).to(tl.int32)
        r = inner + turn
        position = (e - p_e * c) * a + tl.where(r >= a, r - a, r)
    else:  # i = alpha * a + beta, beta = outer: position (beta * n - alpha + j) mod m
        i = inner * a + outer
        row_ok = inner < c
        position = (outer.to(tl.int64) * n % m).to(tl.int32) - inner + j % m
        position = tl.where(position < 0, position + m, position)
    position = tl.where(position >= m, position - m, position)
    mask = live & row_ok & (jl < band) & (j < n)
    values = tl.load(half + (jl.to(tl.int64) * m + position) * WORDS + w, mask=mask)
    tl.store(x_ptr + (i.to(tl.int64) * n + j) * WORDS + w, values, mask=mask)


@triton.jit(do_not_specialize=["copy_col", "copy_half", "gather_col"])
def inplace_columns_banded(x_ptr, slot_ptr, m, n, a, b, c, b_inverse, band, copy_tiles, outer_tiles, inner_tiles,
                           col_tiles, copy_col, copy_half, gather_col,
                           MODE: tl.constexpr, H: tl.constexpr, K: tl.constexpr, WORDS: tl.constexpr):
    """A column pass one band per launch (modes as in inplace_columns), double-buffered in a slot of two bands:
    programs below copy_tiles copy band `copy_col` into half copy_half, the others gather band `gather_col`
    back from the other half (either is -1 where there is none)."""
    pid = tl.program_id(0)
    if pid < copy_tiles:
        half = slot_ptr + copy_half.to(tl.int64) * band * m * WORDS
        _columns_copy_tile(x_ptr, half, pid, copy_col >= 0, m, n, a, b, c, band, copy_col, col_tiles,
                           MODE, H, K, WORDS)
    else:
        half = slot_ptr + (1 - copy_half).to(tl.int64) * band * m * WORDS
        _columns_gather_tile(x_ptr, half, pid - copy_tiles, gather_col >= 0, m, n, a, b, c, b_inverse, band,
                             gather_col, outer_tiles, inner_tiles, MODE, H, K, WORDS)


@triton.jit
def inplace_columns(x_ptr, slot_ptr, m, n, a, b, c, b_inverse, band, bands, copy_tiles, gather_tiles, outer_tiles,
                    inner_tiles, col_tiles, ring, lag, counters,
                    MODE: tl.constexpr, H: tl.constexpr, K: tl.constexpr, WORDS: tl.constexpr,
                    GROUP: tl.constexpr):
    """A whole column pass in one launch. MODE 0: pass 1; MODE 1: pass 3 with output rows grouped by i // a (runs
    of a); MODE 2: pass 3 grouped by i % a (runs of c).

    Band t (columns t * band ...) is copied transposed into slot t % ring (phase A), then gathered back into its
    columns (phase B). Work items of GROUP tiles are handed out in order by a ticket counter: step s holds the
    items of A(s), then those of B(s - lag). B(t) waits until every item of A(t) is done, A(t) until B(t - ring)
    is done with its slot (ring > lag). Every wait is on items handed out earlier, to programs already running,
    so the launch cannot deadlock, however many programs are resident. Counters (int32, zeroed before the launch,
    at word offset `counters` of the scratch): the ticket; per band, A items done, B items done. The slot's
    loads may go through L1: a B item's acquire comes after every item that used the slot before has finished,
    and an acquire drops the SM's stale L1 lines.
    """
    count = (slot_ptr + counters).to(tl.pointer_type(tl.int32), bitcast=True)
    done_a = count + 1
    done_b = count + 1 + bands
    items_a = tl.cdiv(copy_tiles, GROUP)
    items_b = tl.cdiv(gather_tiles, GROUP)
    per_step = items_a + items_b
    total = (bands + lag) * per_step
    slot_words = band.to(tl.int64) * m * WORDS
    ticket = tl.atomic_add(count, 1)
    while ticket < total:
        t = ticket // per_step
        item = ticket - t * per_step
        if item < items_a:
            if t < bands:
                if t >= ring:
                    _wait_for(done_b + t - ring, items_b)
                half = slot_ptr + (t % ring) * slot_words
                for g in tl.static_range(GROUP):
                    tile = item * GROUP + g
                    _columns_copy_tile(x_ptr, half, tile, tile < copy_tiles, m, n, a, b, c, band, t * band,
                                       col_tiles, MODE, H, K, WORDS)
                _signal(done_a + t)
        elif t >= lag:
            t = t - lag
            _wait_for(done_a + t, items_a)
            half = slot_ptr + (t % ring) * slot_words
            for g in tl.static_range(GROUP):
                tile = (item - items_a) * GROUP + g
                _columns_gather_tile(x_ptr, half, tile, tile < gather_tiles, m, n, a, b, c, b_inverse, band, t * band,
                                     outer_tiles, inner_tiles, MODE, H, K, WORDS)
            _signal(done_b + t)
        ticket = tl.atomic_add(count, 1)


@triton.jit
def zero_words(x_ptr, unused_ptr, count, BLOCK: tl.constexpr):
    """x[0:count] = 0: the counters of a pipelined pass, before its launch."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.zeros((BLOCK,), x_ptr.dtype.element_ty), mask=offsets < count)


@triton.jit
def copy_words(x_ptr, out_ptr, count, BLOCK: tl.constexpr):
    """out[0:count] = x[0:count]: a cycle table into the scratch, before the launches that read it."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < count
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def _cycles_table(scratch_ptr, table_word):
    return (scratch_ptr + table_word).to(tl.pointer_type(tl.int32), bitcast=True)


@triton.jit
def _segment(scratch_ptr, table_at, order_at, segment):
    """Segment `segment` of the cycle table: a pointer to its chunk order, its length and its saved slot (-1:
    none, the cycle is whole)."""
    table = _cycles_table(scratch_ptr, table_at)
    start = tl.load(table + 3 * segment)
    return table + order_at + start, tl.load(table + 3 * segment + 1), tl.load(table + 3 * segment + 2)


@triton.jit
def cycles_save(x_ptr, scratch_ptr, chunk_words, parts, table_word, saved_at, BLOCK: tl.constexpr,
                VEC: tl.constexpr = 1):
    """Saved slot s (scratch words s * chunk_words ...) = chunk saved[s] of x, before any segment moves. VEC: the
    chunk is a whole number of VEC words (written so that the compiler sees it, as in restride_rows)."""
    chunk_words = chunk_words // VEC * VEC
    pid = tl.program_id(0)
    slot = pid // parts
    offsets = (pid - slot * parts) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < chunk_words
    chunk = tl.load(_cycles_table(scratch_ptr, table_word) + saved_at + slot).to(tl.int64)
    v = tl.load(x_ptr + chunk * chunk_words + offsets, mask=mask)
    tl.store(scratch_ptr + slot.to(tl.int64) * chunk_words + offsets, v, mask=mask)


@triton.jit
def cycles_move(x_ptr, scratch_ptr, chunk_words, parts, table_word, order_at, BLOCK: tl.constexpr,
                VEC: tl.constexpr = 1):
    """Segment pid // parts: each chunk of its chain takes the next one; the last takes the segment's own first
    chunk (held in registers) for a whole cycle, or its saved slot's. The same threads read a chunk's part and
    later overwrite it, so no barrier is needed. VEC as in cycles_save."""
    chunk_words = chunk_words // VEC * VEC
    pid = tl.program_id(0)
    segment = pid // parts
    offsets = (pid - segment * parts) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < chunk_words
    order, length, slot = _segment(scratch_ptr, table_word, order_at, segment)
    here = tl.load(order).to(tl.int64)
    held = tl.load(x_ptr + here * chunk_words + offsets, mask=mask & (slot < 0))
    k = 1
    while k < length:
        there = tl.load(order + k).to(tl.int64)
        v = tl.load(x_ptr + there * chunk_words + offsets, mask=mask)
        tl.store(x_ptr + here * chunk_words + offsets, v, mask=mask)
        here = there
        k += 1
    closing = tl.load(scratch_ptr + tl.maximum(slot, 0).to(tl.int64) * chunk_words + offsets, mask=mask & (slot >= 0))
    tl.store(x_ptr + here * chunk_words + offsets, tl.where(slot >= 0, closing, held), mask=mask)


@triton.jit
def copy_2d(src_ptr, dst_ptr, rows, cols, src_row, src_col, dst_row, dst_col, tiles_c,
            BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WORDS: tl.constexpr):
    """dst[i * dst_row + j * dst_col] = src[i * src_row + j * src_col] for i < rows, j < cols (in elements of
    WORDS words): the peeled form's edge."""
    pid = tl.program_id(0)
    tr = pid // tiles_c
    i = (tr * BLOCK_R + tl.arange(0, BLOCK_R)).to(tl.int64)[:, None, None]
    j = ((pid - tr * tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C)).to(tl.int64)[None, :, None]
    w = tl.arange(0, WORDS)[None, None, :]
    mask = (i < rows) & (j < cols) & (w < WORDS)
    v = tl.load(src_ptr + (i * src_row + j * src_col) * WORDS + w, mask=mask)
    tl.store(dst_ptr + (i * dst_row + j * dst_col) * WORDS + w, v, mask=mask)


@triton.jit
def _wait_for_sources(flags, item, start, end, src0, src_stride, rows, length, parts, BLOCK: tl.constexpr):
    """Wait until every work item of restride_rows whose source overlaps the destination [start, end) (relative to
    the buffer) has loaded it (its flag set), other than `item` itself."""
    w = tl.maximum(start - src0, 0)
    end = tl.minimum(end - src0, rows.to(tl.int64) * src_stride)
    while w < end:  # the items whose source [w, ...) the destination overlaps
        k2 = w // src_stride
        within = w - k2 * src_stride
        if within < length:
            p2 = within // BLOCK
            other = (k2 * parts + p2).to(tl.int32)
            if other != item:
                _wait_for(flags + other, 1)
            w = k2 * src_stride + tl.minimum((p2 + 1) * BLOCK, length)  # the next part, or the row's end
        else:
            w = (k2 + 1) * src_stride


@triton.jit
def _restride_counters(scratch_ptr, counters):
    """The ticket counter of restride_rows (int32, at word offset `counters` of the scratch) and its item flags."""
    count = (scratch_ptr + counters).to(tl.pointer_type(tl.int32), bitcast=True)
    return count, count + 1


@triton.jit
def _restride_item(ticket, total, parts, DESCENDING: tl.constexpr):
    """Work item of a ticket (rows in descending or ascending order of source position): (item, row, part)."""
    item = total - 1 - ticket if DESCENDING else ticket
    k = item // parts
    return item, k, item - k * parts


@triton.jit
def restride_rows(x_ptr, scratch_ptr, rows, length, src0, src_stride, dst_stride, parts, counters,
                  DESCENDING: tl.constexpr, BLOCK: tl.constexpr, VEC: tl.constexpr = 1):
    """Row k's `length` words move from src0 + k * src_stride to k * dst_stride. Work item (k, p): BLOCK words
    of row k, handed out by a ticket counter in descending (rows spreading out) or ascending (closing up) order
    of source position. An item loads its part, says so (flag), waits until every other item whose source
    its destination overlaps has said so, and stores. Those items come earlier in the order, to programs
    already running that wait on nothing before their flag, so the launch cannot deadlock. Counters (int32,
    zeroed before, at word offset `counters` of the scratch): the ticket, then a flag per item. VEC: length,
    src0 and both strides are multiples of VEC words (so runs of VEC words are aligned as x is, and move whole)."""
    count, flags = _restride_counters(scratch_ptr, counters)
    total = rows * parts
    ticket = tl.atomic_add(count, 1)
    length = length // VEC * VEC  # the same number, in a form the compiler sees is a multiple of VEC
    while ticket < total:
        item, k, p = _restride_item(ticket, total, parts, DESCENDING)
        offsets = tl.arange(0, BLOCK)
        mask = p * BLOCK + offsets < length
        source = src0 + k.to(tl.int64) * src_stride + p * BLOCK
        source = source // VEC * VEC
        v = tl.load(x_ptr + source + offsets, mask=mask)
        _signal(flags + item)
        start = k.to(tl.int64) * dst_stride + p * BLOCK
        _wait_for_sources(flags, item, start, start + tl.minimum(BLOCK, length - p * BLOCK), src0, src_stride, rows,
                          length, parts, BLOCK)
        start = start // VEC * VEC
        tl.store(x_ptr + start + offsets, v, mask=mask)
        ticket = tl.atomic_add(count, 1)


@triton.jit
def _words_of(ptr, WORD: tl.constexpr):
    """`ptr` as a pointer to unsigned words of WORD bytes (1, 2, 4 or 8)."""
    if WORD == 8:
        return ptr.to(tl.pointer_type(tl.uint64), bitcast=True)
    elif WORD == 4:
        return ptr.to(tl.pointer_type(tl.uint32), bitcast=True)
    elif WORD == 2:
        return ptr.to(tl.pointer_type(tl.uint16), bitcast=True)
    else:
        return ptr.to(tl.pointer_type(tl.uint8), bitcast=True)


@triton.jit
def _funnel_read(src_ptr, s0, d0, d1, size, WORD: tl.constexpr, BLOCK: tl.constexpr):
    """Bytes [s0, s0 + d1 - d0) of src (a byte pointer aligned to WORD, `size` bytes readable) read for the
    destination bytes [d0, d1), d1 - d0 <= BLOCK, of a WORD-aligned buffer: each destination word that lies inside
    [d0, d1) funnel-shifted from the two aligned source words holding its bytes (bytes beyond the range are read
    and dropped; no word past `size`), the at most WORD - 1 bytes before the first such word and 3 WORD - 1 after
    the last one by one. Returns what _funnel_write stores."""
    words = _words_of(src_ptr, WORD)
    delta = d0 - s0  # destination byte - source byte
    first = (d0 + WORD - 1) // WORD
    shift = (WORD * first - delta) % WORD  # where in its source word a destination word starts
    limit = size - 2 * WORD + delta + shift  # words d with WORD * d <= limit read inside `size`
    last = tl.where(limit >= 0, limit // WORD, -((WORD - 1 - limit) // WORD)) + 1
    end = tl.maximum(tl.minimum(d1 // WORD, last), first)
    d = first + tl.arange(0, BLOCK // WORD)
    inside = d < end
    s = (WORD * d - delta - shift) // WORD
    lo = tl.load(words + s, mask=inside)
    hi = tl.load(words + s + 1, mask=inside & (shift > 0))
    v = _funnel_shift(lo, hi, shift, False)
    edge = tl.arange(0, 4 * WORD)
    b = tl.where(edge < WORD, d0 + edge, WORD * end + edge - WORD)
    bytes_mask = tl.where(edge < WORD, b < tl.minimum(WORD * first, d1), b < d1)
    e = tl.load(src_ptr + b - delta, mask=bytes_mask)
    return d, inside, v, b, bytes_mask, e


@triton.jit
def _funnel_write(dst_ptr, d, inside, v, b, bytes_mask, e, WORD: tl.constexpr):
    tl.store(_words_of(dst_ptr, WORD) + d, v, mask=inside)
    tl.store(dst_ptr + b, e, mask=bytes_mask)


@triton.jit
def restride_rows_packed(x_ptr, scratch_ptr, rows, length, src0, src_stride, dst_stride, parts, counters, size,
                         DESCENDING: tl.constexpr, BLOCK: tl.constexpr, WORD: tl.constexpr):
    """restride_rows in bytes (x aligned to WORD, 4 or 8, and `size` bytes long) whose rows start at addresses
    that are not word multiples: whole words funnel-shifted (_funnel_read), so accesses stay WORD bytes wide."""
    count, flags = _restride_counters(scratch_ptr, counters)
    total = rows * parts
    ticket = tl.atomic_add(count, 1)
    while ticket < total:
        item, k, p = _restride_item(ticket, total, parts, DESCENDING)
        d0 = k.to(tl.int64) * dst_stride + p * BLOCK
        d1 = d0 + tl.minimum(BLOCK, length - p * BLOCK)
        d, inside, v, b, bytes_mask, e = _funnel_read(x_ptr, src0 + k.to(tl.int64) * src_stride + p * BLOCK, d0, d1,
                                                      size, WORD, BLOCK)
        _signal(flags + item)
        _wait_for_sources(flags, item, d0, d1, src0, src_stride, rows, length, parts, BLOCK)
        _funnel_write(x_ptr, d, inside, v, b, bytes_mask, e, WORD)
        ticket = tl.atomic_add(count, 1)


@triton.jit
def cycles_save_packed(x_ptr, scratch_ptr, chunk_bytes, parts, table_at, saved_at, size, BLOCK: tl.constexpr,
                       WORD: tl.constexpr):
    """cycles_save in bytes for chunks whose size is not a multiple of WORD (8 or 4), through whole words."""
    pid = tl.program_id(0)
    slot = pid // parts
    base = (pid - slot * parts) * BLOCK
    n = tl.minimum(BLOCK, chunk_bytes - base)
    chunk = tl.load(_cycles_table(scratch_ptr, table_at) + saved_at + slot).to(tl.int64)
    d0 = slot.to(tl.int64) * chunk_bytes + base
    d, inside, v, b, bytes_mask, e = _funnel_read(x_ptr, chunk * chunk_bytes + base, d0, d0 + n, size, WORD, BLOCK)
    _funnel_write(scratch_ptr, d, inside, v, b, bytes_mask, e, WORD)


@triton.jit
def cycles_move_packed(x_ptr, scratch_ptr, chunk_bytes, parts, table_at, order_at, size, saved_size,
                       BLOCK: tl.constexpr, WORD: tl.constexpr):
    """cycles_move in bytes for chunks whose size is not a multiple of WORD (8 or 4): every move funnel-shifted
    through whole words. The closing move (the segment's first chunk, or its saved slot, to the last place) is
    read before anything moves. A thread's words of a chunk are not the words it read from that chunk in the move
    before, so a barrier separates each move's reads from its stores."""
    pid = tl.program_id(0)
    segment = pid // parts
    base = (pid - segment * parts) * BLOCK
    n = tl.minimum(BLOCK, chunk_bytes - base)
    order, length, slot = _segment(scratch_ptr, table_at, order_at, segment)
    here = tl.load(order).to(tl.int64)
    last = tl.load(order + length - 1).to(tl.int64) * chunk_bytes + base
    if slot < 0:
        hd, hin, hv, hb, hmask, he = _funnel_read(x_ptr, here * chunk_bytes + base, last, last + n, size, WORD, BLOCK)
    else:
        hd, hin, hv, hb, hmask, he = _funnel_read(scratch_ptr, slot.to(tl.int64) * chunk_bytes + base, last,
                                                  last + n, saved_size, WORD, BLOCK)
    k = 1
    while k < length:
        there = tl.load(order + k).to(tl.int64)
        d0 = here * chunk_bytes + base
        d, inside, v, b, bytes_mask, e = _funnel_read(x_ptr, there * chunk_bytes + base, d0, d0 + n, size, WORD,
                                                      BLOCK)
        tl.debug_barrier()  # other threads of this program read the chunk `here` (the previous move's source)
        _funnel_write(x_ptr, d, inside, v, b, bytes_mask, e, WORD)
        here = there
        k += 1
    tl.debug_barrier()
    _funnel_write(x_ptr, hd, hin, hv, hb, hmask, he, WORD)
