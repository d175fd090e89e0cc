"""Triton kernel of general permutations (cornerturn.tiling says how a permutation becomes a tile's two sides).

permute_tiles: one program per BLOCK_B x BLOCK_A tile of one index of the rest axes, on a 1-D grid. Side A is the
output's innermost axes, so the store runs along A through contiguous output; side B is the input's fastest axes,
so the load runs along B (coalesced where B's first axis has unit stride); Triton moves the tile between the two
layouts through shared memory. B is the tile's first axis: where the compiler cannot tell which way an access is
contiguous it takes the first, so loads whose runs are short or odd still walk B. Each side's offsets are computed
once per program as a vector (up to three axes each, a digit per axis; one linear index where the side's axes are
laid end to end in that array: NA_IN, NB_IN); the hints (CONTIG_*, ALIGN_*) tell the compiler how long the
contiguous runs of each vector are and what divides their first offsets, so that accesses widen where they allow.
The stores' hints are written into the arithmetic (x // ALIGN * ALIGN, side A's bound as a multiple): hints set
as attributes (tl.multiple_of, tl.max_contiguous) do not survive the compiler's rewriting of these sums. The loads'
are written in the same way where ARITH_IN (the planner's LOAD_WORDS: 2-byte words, side B contiguous, ALIGN_I*
capped at the vector wanted); elsewhere they stay attributes, and loads widen only where Triton's own
specialisation (strides that are multiples of 16) does: wider loads ran 0.95-0.97x for 8-byte words
(docs/permute.md). Where MAGIC_A (MAGIC_B), side A's (B's) digits are split by multiplying with the planner's
divisor_magic instead of dividing (a tile of 2-byte words holds 64 indices of A a thread, ten instructions each to
divide); runs of neighbours that the loads widen over keep the division, whose runs the compiler follows.

permute_runs: a unit contiguous on both sides (UNIT words) moved whole, RUNS = BLOCK // UNIT units a program, the
units along the output's next axis: the store is one contiguous span of the output, the load RUNS spans of the
input one stride apart. Lanes are the program's words in order, none idle but the last BLOCK - RUNS x UNIT, and
those past the axis's end: where that axis is short (4 units of 128 bytes in programs of 64), SPAN lets a program's
units run on over the next axes, each unit's start computed once and gathered. A unit longer than BLOCK is moved in
pieces of BLOCK words, a plain copy of contiguous spans.

permute_runs_words: units contiguous on both sides whose bytes no wide word divides (47-byte units, say), moved as
32-bit words: a program's RUNS units, consecutive in the output whichever axes they lie on, are one contiguous span
of the output, stored as the whole words inside it, each loaded as the two aligned input words that hold it,
funnel-shifted (a word that straddles two units takes its bytes from both; each unit's start is computed once and
gathered); the up to 3 + 3 bytes at the span's ends are moved one by one.

permute_words: 1- and 2-byte elements whose side B starts with a unit stride, moved as 32-bit words: each row of
the tile (one index of A) is read along B as the aligned words that hold it, segment by segment (B's leading axes
that lie end to end in the input; its other axes say where each segment starts), two neighbours funnel-shifted into
each word where a segment starts inside one; byte permutes regroup 4 (2) rows into output words, stored whole where
side A spans whole words of the output, else shifted into place from two groups of rows (the loose elements at each
run's ends one by one; each group's successor gathered from the tile where NEXT_BY_GATHER, else the tile read a second
time) or element by element (the transpose's words kernel, with a permutation's rows). Told where rows and runs
start (IN_ALIGN, OUT_ALIGN), the loads of B in one segment and the stores of whole-word runs widen to vectors. Where
MAGIC, every index is split into digits by multiplying (divisor_magic), as in permute_tiles: these tiles were bound by
issuing instructions, the divisions a good part of them.

permute_interleave: bytes or 2-byte elements whose output's innermost axis R is short (2 to 31 elements) and whose
next output axis is the input's fastest (C): each index of the other axes is a chunk, an R x C transpose whose
output is R C contiguous elements starting at a whole word. A lane takes one word-column of a chunk (4 bytes of
each of the R rows, loaded as words, funnel-shifted where they start inside one) and builds the R output words they
hold with byte permutes, as transpose_interleave does, and stores them whole, shifted into place where a chunk's
output starts inside a word (SHIFT; then the words it shares with its neighbours are written byte by byte); lanes
run along C, then along the chunks in the input's order, so that a warp reads each row as one run.
"""

from __future__ import annotations

import triton
import triton.language as tl

from .kernels import _aligned, _funnel_shift, _group_words, _pick, _successors, _words_of
from .narrow_kernel import _output_word, _shifted_into_place, _stacked


@triton.jit
def _quotient(n, m, h):
    """n // d for 0 <= n < 2**31 as the high word of n * m shifted right by h, (m, h) being divisor_magic(d): a
    multiply and a shift where a division takes about ten instructions."""
    return (tl.umulhi(n.to(tl.uint32), m.to(tl.uint32, bitcast=True)) >> h).to(tl.int32)


@triton.jit
def _offsets(idx, e0, e1, s0, s1, s2, N: tl.constexpr, m0=0, h0=0, m1=0, h1=0, MAGIC: tl.constexpr = False):
    """sum(digit_k * s_k) of linear indices `idx` over N axes of extents (e0, e1, ...), innermost first; with MAGIC,
    the quotients by e0 and e1 from (m0, h0) and (m1, h1) (see _quotient)."""
    if N == 1:
        return idx * s0
    if MAGIC:
        upper = _quotient(idx, m0, h0)
        # the compiler would take what divides the first index of idx's runs for every element of this difference
        # (the multiply hides that each run is one quotient), and the stores' layout vectors wider than they are
        # written: 1.5x the L2 sectors written in one case (H200). Said to divide by 1, as it may.
        d0 = tl.multiple_of(idx - upper * e0, 1)
        if N == 2:
            return d0 * s0 + upper * s1
        top = _quotient(upper, m1, h1)
        return d0 * s0 + (upper - top * e1) * s1 + top * s2
    d0 = idx % e0
    upper = idx // e0
    if N == 2:
        return d0 * s0 + upper * s1
    return d0 * s0 + (upper % e1) * s1 + (upper // e1) * s2


@triton.jit
def _rest_offsets(r, e0, e1, e2, s0, s1, s2, s3, N: tl.constexpr, m0=0, h0=0, m1=0, h1=0, m2=0, h2=0,
                  MAGIC: tl.constexpr = False):
    """The same for a scalar index, or one a lane, over N rest axes (up to four); with MAGIC, the quotients by e0, e1
    and e2 from (m0, h0), (m1, h1) and (m2, h2) (see _quotient)."""
    if N == 0:
        return r * 0
    if N == 1:
        return r * s0
    if MAGIC:
        q = _quotient(r, m0, h0)
        off = tl.multiple_of(r - q * e0, 1) * s0  # (see _offsets)
        if N == 2:
            return off + q * s1
        r = q
        q = _quotient(r, m1, h1)
        off += tl.multiple_of(r - q * e1, 1) * s1
        if N == 3:
            return off + q * s2
        r = q
        q = _quotient(r, m2, h2)
        return off + tl.multiple_of(r - q * e2, 1) * s2 + q * s3
    off = (r % e0) * s0
    r = r // e0
    if N == 2:
        return off + r * s1
    off += (r % e1) * s1
    r = r // e1
    if N == 3:
        return off + r * s2
    return off + (r % e2) * s2 + (r // e2) * s3


@triton.jit
def _tile_of_program(tiles_a, tiles_b, er0, er1, er2, ir0, ir1, ir2, ir3, or0, or1, or2, or3, NR: tl.constexpr,
                     WIDE: tl.constexpr):
    """(tile along A, tile along B, input offset, output offset of the rest) of this program: A fastest."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: more than 2**31 words in the input or the output
        pid = pid.to(tl.int64)
    ta = pid % tiles_a
    t = pid // tiles_a
    r = t // tiles_b
    return (ta, t % tiles_b, _rest_offsets(r, er0, er1, er2, ir0, ir1, ir2, ir3, NR),
            _rest_offsets(r, er0, er1, er2, or0, or1, or2, or3, NR))


@triton.jit
def _hinted(v, CONTIG: tl.constexpr, ALIGN: tl.constexpr):
    if ALIGN > 1:
        v = tl.multiple_of(v, ALIGN)
    if CONTIG > 1:
        v = tl.max_contiguous(v, CONTIG)
    return v


@triton.jit
def permute_tiles(x_ptr, out_ptr,
                  ea0, ea1, ia0, ia1, ia2,
                  eb0, eb1, ib0, ib1, ib2, ob0, ob1, ob2,
                  er0, er1, er2, ir0, ir1, ir2, ir3, or0, or1, or2, or3,
                  size_a, size_b, tiles_a, tiles_b, ma0, ha0, ma1, ha1, mb0, hb0, mb1, hb1,
                  NA_IN: tl.constexpr, NB: tl.constexpr, NB_IN: tl.constexpr, NR: tl.constexpr,
                  BLOCK_A: tl.constexpr, BLOCK_B: tl.constexpr,
                  CONTIG_IA: tl.constexpr, ALIGN_IA: tl.constexpr, CONTIG_IB: tl.constexpr, ALIGN_IB: tl.constexpr,
                  ALIGN_OA: tl.constexpr, ALIGN_OB: tl.constexpr, WIDE: tl.constexpr,
                  ALIGN_SA: tl.constexpr, ALIGN_SB: tl.constexpr, ARITH_IN: tl.constexpr, MAGIC_A: tl.constexpr,
                  MAGIC_B: tl.constexpr):
    ta, tb, in_base, out_base = _tile_of_program(tiles_a, tiles_b, er0, er1, er2, ir0, ir1, ir2, ir3, or0, or1, or2,
                                                 or3, NR, WIDE)
    a = ta * BLOCK_A + tl.arange(0, BLOCK_A)
    b = tb * BLOCK_B + tl.arange(0, BLOCK_B)
    if ARITH_IN:
        in_a = _side_offsets(a, _aligned(in_base, ALIGN_IA), ea0, ea1, ia0, ia1, ia2, NA_IN, CONTIG_IA, ALIGN_IA,
                             ma0, ha0, ma1, ha1, MAGIC_A)
        in_b = _side_offsets(b, 0, eb0, eb1, ib0, ib1, ib2, NB_IN, CONTIG_IB, ALIGN_IB, mb0, hb0, mb1, hb1, MAGIC_B)
    else:
        in_a = _hinted(in_base + _offsets(a, ea0, ea1, ia0, ia1, ia2, NA_IN, ma0, ha0, ma1, ha1, MAGIC_A), CONTIG_IA,
                       ALIGN_IA)
        in_b = _hinted(_offsets(b, eb0, eb1, ib0, ib1, ib2, NB_IN, mb0, hb0, mb1, hb1, MAGIC_B), CONTIG_IB, ALIGN_IB)
    out_a = _aligned(out_base, ALIGN_OA) + a
    out_b = _offsets(b, eb0, eb1, _aligned(ob0, ALIGN_OB), _aligned(ob1, ALIGN_OB), _aligned(ob2, ALIGN_OB), NB,
                     mb0, hb0, mb1, hb1, MAGIC_B)
    # each side's bound written as a multiple of what divides it (ALIGN_SA; ALIGN_SB, 1 unless ARITH_IN), so that the
    # mask stays constant over a vector: told only the strides' alignment, the compiler splits masked vectors into
    # single elements
    mask = (b < _aligned(size_b, ALIGN_SB))[:, None] & (a < _aligned(size_a, ALIGN_SA))[None, :]
    tile = tl.load(x_ptr + in_b[:, None] + in_a[None, :], mask=mask)
    tl.store(out_ptr + out_b[:, None] + out_a[None, :], tile, mask=mask)


@triton.jit
def _side_offsets(idx, base, e0, e1, s0, s1, s2, N: tl.constexpr, CONTIG: tl.constexpr, ALIGN: tl.constexpr,
                  m0, h0, m1, h1, MAGIC: tl.constexpr):
    """base + _offsets(idx, ...) with what the planner knows written into the arithmetic: the innermost extent a
    multiple of CONTIG (runs of CONTIG neighbours where the first stride is 1), every stride that is not that unit
    one, and base, multiples of ALIGN. Runs of neighbours keep the division, which the compiler follows (not the
    multiply of MAGIC): their loads widen, and a vector's lanes need no offsets of their own."""
    if N > 1 and CONTIG > 1:
        e0 = _aligned(e0, CONTIG)
    if CONTIG == 1:
        s0 = _aligned(s0, ALIGN)
    return base + _offsets(idx, e0, e1, s0, _aligned(s1, ALIGN), _aligned(s2, ALIGN), N, m0, h0, m1, h1,
                           MAGIC and CONTIG == 1)


@triton.jit
def permute_runs(x_ptr, out_ptr, e1, s1, count, er0, er1, er2, ir0, ir1, ir2, ir3, m1, h1, mr0, hr0, mr1, hr1, mr2,
                 hr2, NR: tl.constexpr, UNIT: tl.constexpr, BLOCK: tl.constexpr, CHUNKS: tl.constexpr,
                 ALIGN: tl.constexpr, WIDE: tl.constexpr, SPAN: tl.constexpr = False, RUNS_P2: tl.constexpr = 1,
                 MAGIC: tl.constexpr = False):
    """Units of UNIT words along axis 1 (extent e1, input stride s1) of index r of the rest axes (NR of them,
    innermost first, output order), whose output is C-contiguous. CHUNKS == 1: program (r, t) moves units t RUNS
    onwards (`count` such t along axis 1); with SPAN, program p moves units p RUNS onwards in the output's order,
    whichever axes they lie on (`count` units in all; each unit's start computed once on RUNS_P2 lanes and
    gathered; with MAGIC the digits by multiplying: (m1, h1) of e1 and (mr*, hr*) of the rest's, divisor_magic).
    Otherwise unit t // CHUNKS in pieces of BLOCK words, contiguous on both sides, its start in the input a
    multiple of ALIGN words."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: more than 2**31 words in the input or the output
        pid = pid.to(tl.int64)
    f = tl.arange(0, BLOCK)
    RUNS: tl.constexpr = BLOCK // UNIT
    if SPAN:
        u = pid * RUNS + tl.arange(0, RUNS_P2)  # the program's units, in the output's order
        r = _quotient(u, m1, h1) if MAGIC else u // e1
        at = (u - r * e1) * s1 + _rest_offsets(r, er0, er1, er2, ir0, ir1, ir2, ir3, NR, mr0, hr0, mr1, hr1, mr2,
                                               hr2, MAGIC)  # where each starts
        j = f // UNIT
        w = f - j * UNIT
        mask = (j < RUNS) & (pid * RUNS + j < count)
        src = tl.gather(at, tl.minimum(j, RUNS_P2 - 1), 0) + w
        dst = pid * RUNS * UNIT + f
    else:
        t = pid % count
        r = pid // count
        base = _rest_offsets(r, er0, er1, er2, ir0, ir1, ir2, ir3, NR)
        if CHUNKS == 1:
            first = t * RUNS
            j = f // UNIT
            w = f - j * UNIT
            mask = (j < RUNS) & (first + j < e1)
            src = base + (first + j) * s1 + w
            dst = (r * e1 + first) * UNIT + f
        else:
            c = t // CHUNKS
            w = (t - c * CHUNKS) * BLOCK + f
            mask = w < UNIT
            src = tl.multiple_of(base + c * s1, ALIGN) + w
            dst = (r * e1 + c) * UNIT + w
    tl.store(out_ptr + dst, tl.load(x_ptr + src, mask=mask), mask=mask)


@triton.jit
def _rows_in_words(x_ptr, in_base, a, cw, seg, w, ea0, ea1, ia0, ia1, ia2, seg_len, seg_words, es0, is0, is1, size_a,
                   size_b, nbytes, NA_IN: tl.constexpr, NS: tl.constexpr, E: tl.constexpr, IN_WORDS: tl.constexpr,
                   ASM: tl.constexpr, IN_ALIGN: tl.constexpr = 1, ma0=0, ha0=0, ma1=0, ha1=0, mes=0, hes=0,
                   MAGIC: tl.constexpr = False):
    """Rows a (indices of A) of a permute_words tile read along B as 32-bit words: for each row, word w of its
    segment seg (cw = seg * seg_words + w), funnel-shifted where the segment starts inside a word; 0 past the sides.
    IN_ALIGN (with IN_WORDS) divides every segment's first word and B's words: written into the arithmetic, so that
    loads widen. With MAGIC, the digits of a and seg come from multiplying (divisor_magic's (m, h) of ea0, ea1 and
    es0; see _quotient)."""
    row = in_base + _offsets(a, ea0, ea1, ia0, ia1, ia2, NA_IN, ma0, ha0, ma1, ha1, MAGIC)  # each row's first of B
    if NS == 0:  # noqa: SIM108 - a constexpr: one segment, all of B
        start = (row * E)[:, None]  # byte where each row's segment starts
    else:
        # (a segment index divides once, by es0; (mes, hes) twice, as the compiler reads the code past a constexpr
        # return too, and a Python 0 there would not compile)
        start = ((row[:, None] + _offsets(seg, es0, 1, is0, is1, 0, NS, mes, hes, mes, hes, MAGIC)[None, :]) * E)
    bound = (size_b // seg_len) * seg_words  # words along B
    if IN_WORDS:
        bound = _aligned(bound, IN_ALIGN)
    ok = (a < size_a)[:, None] & (cw < bound)[None, :]
    q = start // 4
    if IN_WORDS:
        q = _aligned(q, IN_ALIGN)
    at = q + w[None, :]
    v = tl.load(x_ptr + at, mask=ok, other=0).to(tl.uint32, bitcast=True)
    if not IN_WORDS:
        s = (start - 4 * q).to(tl.uint32)
        hi = tl.load(x_ptr + at + 1, mask=ok & (s > 0) & (at * 4 + 4 < nbytes), other=0)
        v = _funnel_shift(v, hi.to(tl.uint32, bitcast=True), s, ASM)
    return v


@triton.jit
def permute_words(x_ptr, out_ptr,
                  ea0, ea1, ia0, ia1, ia2,
                  eb0, eb1, ob0, ob1, ob2, seg_len, seg_words, es0, is0, is1,
                  er0, er1, er2, ir0, ir1, ir2, ir3, or0, or1, or2, or3,
                  size_a, size_b, tiles_a, tiles_b, nbytes,
                  ma0, ha0, ma1, ha1, msw, hsw, mes, hes, mb0, hb0, mb1, hb1,
                  NA_IN: tl.constexpr, NB: tl.constexpr, NS: tl.constexpr, NR: tl.constexpr, BLOCK_A: tl.constexpr,
                  BLOCK_CW: tl.constexpr, E: tl.constexpr, IN_WORDS: tl.constexpr, OUT: tl.constexpr,
                  WIDE: tl.constexpr, ASM: tl.constexpr, NEXT_BY_GATHER: tl.constexpr = False,
                  IN_ALIGN: tl.constexpr = 1, OUT_ALIGN: tl.constexpr = 1, MAGIC: tl.constexpr = False):
    """A tile of BLOCK_A indices of A (rows) x BLOCK_CW words along B of one index of the rest; offsets in elements of
    E bytes, x_ptr and out_ptr 4-byte aligned; the input holds `nbytes` readable bytes from x_ptr. B is read in
    segments: its first axes, which lie end to end in the input (seg_len elements from each row's start, seg_words
    words), then NS more axes (extent es0 of the first; input strides is0, is1) that say where each segment starts.
    IN_WORDS: every segment starts at a whole word. OUT: how the output's runs along A (one for each element of B)
    are written: 0, as words (A spans whole words of the output: size_a a multiple of 4 // E); 1, as words shifted
    into place from two groups of rows (the tile is read a second time, PACK rows lower), the elements before a
    run's first whole word and from its last one on stored one by one; 2, element by element. IN_ALIGN (with
    IN_WORDS) and OUT_ALIGN (with OUT 0) are powers of two that divide, in words, where each segment starts and where
    each output run starts and how many words it holds: written into the arithmetic, so that accesses widen. With
    MAGIC (indices in 31 bits), every index is split into digits by multiplying: (m, h) of divisor_magic for the
    extents of A (ma0, ma1), the words of a segment (msw), the first segment axis (mes) and B (mb0, mb1)."""
    PACK: tl.constexpr = 4 // E
    ITEM: tl.constexpr = (1 << (8 * E)) - 1
    ta, tb, in_base, out_base = _tile_of_program(tiles_a, tiles_b, er0, er1, er2, ir0, ir1, ir2, ir3, or0, or1, or2,
                                                 or3, NR, WIDE)  # WIDE: 2**31 bytes or more in the input or output
    a = ta * BLOCK_A + tl.arange(0, BLOCK_A)
    cw = tb * BLOCK_CW + tl.arange(0, BLOCK_CW)
    if NS == 0:
        seg, w = 0, cw
    else:
        seg = _quotient(cw, msw, hsw) if MAGIC else cw // seg_words
        w = cw - seg * seg_words
    v = _rows_in_words(x_ptr, in_base, a, cw, seg, w, ea0, ea1, ia0, ia1, ia2, seg_len, seg_words, es0, is0, is1,
                       size_a, size_b, nbytes, NA_IN, NS, E, IN_WORDS, ASM, IN_ALIGN, ma0, ha0, ma1, ha1, mes, hes,
                       MAGIC)
    if OUT == 2:
        items = _words_of(out_ptr, E)
        for k in tl.static_range(PACK):
            c = seg * seg_len + w * PACK + k
            item = ((v >> (8 * E * k)) & ITEM).to(items.dtype.element_ty)
            run = out_base + _offsets(c, eb0, eb1, ob0, ob1, ob2, NB, mb0, hb0, mb1, hb1, MAGIC)
            tl.store(items + run[None, :] + a[:, None], item,
                     mask=(a < size_a)[:, None] & ((w * PACK + k < seg_len) & (c < size_b))[None, :])
    else:
        BLOCK_G: tl.constexpr = BLOCK_A // PACK
        w0, w1, w2, w3 = _group_words(v, BLOCK_G, BLOCK_CW, PACK, ASM)
        if OUT == 1:  # the next group of rows too: a word starting inside a group takes the next group's elements
            if NEXT_BY_GATHER:  # the tile's own groups gathered, the group after the tile loaded alone
                e = _rows_in_words(x_ptr, in_base, ta * BLOCK_A + BLOCK_A + tl.arange(0, PACK), cw, seg, w, ea0, ea1,
                                   ia0, ia1, ia2, seg_len, seg_words, es0, is0, is1, size_a, size_b, nbytes, NA_IN, NS,
                                   E, IN_WORDS, ASM, IN_ALIGN, ma0, ha0, ma1, ha1, mes, hes, MAGIC)
                e0, e1, e2, e3 = _group_words(e, 1, BLOCK_CW, PACK, ASM)
                n0, n1, n2, n3 = _successors(w0, w1, w2, w3, e0, e1, e2, e3, BLOCK_G, BLOCK_CW, PACK)
            else:
                v = _rows_in_words(x_ptr, in_base, a + PACK, cw, seg, w, ea0, ea1, ia0, ia1, ia2, seg_len, seg_words,
                                   es0, is0, is1, size_a, size_b, nbytes, NA_IN, NS, E, IN_WORDS, ASM, IN_ALIGN, ma0,
                                   ha0, ma1, ha1, mes, hes, MAGIC)
                n0, n1, n2, n3 = _group_words(v, BLOCK_G, BLOCK_CW, PACK, ASM)
        g = ta * BLOCK_G + tl.arange(0, BLOCK_G)  # groups of PACK rows: the output words' places along A
        for k in tl.static_range(PACK):
            group = _pick(k, w0, w1, w2, w3)  # element k of each input word: B's element c, rows of groups g
            c = seg * seg_len + w * PACK + k  # B's element
            col = (w * PACK + k < seg_len) & (c < size_b)
            # where c's run along A starts (elements)
            run = out_base + _offsets(c, eb0, eb1, ob0, ob1, ob2, NB, mb0, hb0, mb1, hb1, MAGIC)
            if OUT == 0:  # run and size_a in whole words, multiples of OUT_ALIGN (the planner's promise)
                tl.store(out_ptr + _aligned(run // PACK, OUT_ALIGN)[None, :] + g[:, None],
                         group.to(tl.int32, bitcast=True),
                         mask=(g < _aligned(size_a // PACK, OUT_ALIGN))[:, None] & col[None, :])
            else:  # run c starts `shift` bytes before a whole word
                shift = (4 - run * E % 4) % 4
                words = _funnel_shift(group, _pick(k, n0, n1, n2, n3),
                                      (tl.zeros_like(group) + shift[None, :]).to(tl.uint32), ASM)
                first = shift // E  # the elements of each run before its first whole word, and from `last` on
                whole = (size_a - first) // PACK
                last = first + whole * PACK
                tl.store(out_ptr + ((run * E + shift) // 4)[None, :] + g[:, None], words.to(tl.int32, bitcast=True),
                         mask=(g[:, None] < whole[None, :]) & col[None, :])
                if (ta == 0) | (ta * BLOCK_A + BLOCK_A + PACK > size_a):  # this tile holds some: one by one
                    items = _words_of(out_ptr, E)
                    for t in tl.static_range(PACK):
                        item = ((group >> (8 * E * t)) & ITEM).to(items.dtype.element_ty)
                        rr = (g * PACK + t)[:, None]
                        tl.store(items + run[None, :] + rr, item,
                                 mask=((rr < first[None, :]) | (rr >= last[None, :])) & (rr < size_a) & col[None, :])


@triton.jit
def _shifted_word(x_ptr, src, ok, nbytes, ASM: tl.constexpr):
    """The 32-bit words that start at input bytes `src` (x_ptr: 4-byte words, `nbytes` readable bytes): the aligned
    word holding each, funnel-shifted with the next one where src is not a whole word."""
    q = src // 4
    s = (src - 4 * q).to(tl.uint32)
    lo = tl.load(x_ptr + q, mask=ok, other=0).to(tl.uint32, bitcast=True)
    hi = tl.load(x_ptr + q + 1, mask=ok & (s > 0) & (q * 4 + 4 < nbytes), other=0).to(tl.uint32, bitcast=True)
    return _funnel_shift(lo, hi, s, ASM)


@triton.jit
def permute_runs_words(x_ptr, out_ptr, units, e1, s1, er0, er1, er2, ir0, ir1, ir2, ir3, nbytes,
                       m1, h1, mr0, hr0, mr1, hr1, mr2, hr2,
                       NR: tl.constexpr, UNIT: tl.constexpr, RUNS: tl.constexpr, RUNS_P2: tl.constexpr,
                       BLOCK_W: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr, MAGIC: tl.constexpr = False):
    """`units` units of UNIT bytes, in the output's order (C-contiguous): unit f is index f % e1 of axis 1 (input
    stride s1 bytes) and f // e1 of the rest axes (NR of them, innermost first; input strides in bytes). Program p
    moves units p RUNS onwards (RUNS <= RUNS_P2, RUNS * UNIT <= 4 BLOCK_W - 3 bytes), whatever rest indices they
    have. x_ptr and out_ptr are 4-byte aligned; the input holds `nbytes` readable bytes from x_ptr. With MAGIC
    (indices in 31 bits), the units' digits come from multiplying: (m, h) of divisor_magic for e1 and the rest's."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: 2**31 bytes or more in the input or the output
        pid = pid.to(tl.int64)
    f = pid * RUNS + tl.arange(0, RUNS_P2)  # the program's units
    r = _quotient(f, m1, h1) if MAGIC else f // e1
    at = (f - r * e1) * s1 + _rest_offsets(r, er0, er1, er2, ir0, ir1, ir2, ir3, NR, mr0, hr0, mr1, hr1, mr2, hr2,
                                           MAGIC)  # where each starts
    span = tl.minimum(units - pid * RUNS, RUNS) * UNIT  # bytes of the output span
    start = pid * RUNS * UNIT  # its first byte in the output
    lead = (4 - start % 4) % 4  # bytes before its first whole word
    b = lead + 4 * tl.arange(0, BLOCK_W)  # the span's byte where each whole word starts
    ok = b + 4 <= span
    u = tl.minimum(b // UNIT, RUNS_P2 - 1)
    p = b - u * UNIT
    v = _shifted_word(x_ptr, tl.gather(at, u, 0) + p, ok, nbytes, ASM)
    tail = UNIT - p  # bytes of the word in unit u; under 4: the rest from unit u + 1
    cross = ok & (tail < 4)
    v1 = _shifted_word(x_ptr, tl.gather(at, tl.minimum(u + 1, RUNS_P2 - 1), 0) - tail, cross, nbytes, ASM)
    k = (8 * tl.minimum(tail, 3)).to(tl.uint32)  # where it crosses: unit u's bits of the word, the low ones
    v = tl.where(cross, ((v << (32 - k)) >> (32 - k)) | ((v1 >> k) << k), v)
    tl.store(out_ptr + (start + b) // 4, v.to(tl.int32, bitcast=True), mask=ok)
    e = tl.arange(0, 8)  # the ends: lead bytes on lanes 0-2, the bytes past the last whole word on lanes 4-6
    eb = tl.where(e < 4, e, lead + (span - lead) // 4 * 4 + e - 4)
    eok = tl.where(e < 4, e < lead, eb < span)
    ue = tl.minimum(eb // UNIT, RUNS_P2 - 1)
    item = tl.load(_words_of(x_ptr, 1) + tl.gather(at, ue, 0) + eb - ue * UNIT, mask=eok)
    tl.store(_words_of(out_ptr, 1) + start + eb, item, mask=eok)


@triton.jit
def _lane_row_word(x_ptr, src, live, nbytes, IN_WORDS: tl.constexpr, ASM: tl.constexpr):
    """The 32-bit word of the input that starts at byte `src` of each lane (a whole word where IN_WORDS)."""
    if IN_WORDS:
        return tl.load(x_ptr + src // 4, mask=live, other=0).to(tl.uint32, bitcast=True)
    return _shifted_word(x_ptr, src, live, nbytes, ASM)


@triton.jit
def _edge_bytes(out_ptr, word, at, low, high):
    """Bytes low to high - 1 (per lane) of 32-bit output words `word` at word `at`, one by one."""
    items = _words_of(out_ptr, 1)
    for i in tl.static_range(4):
        byte = ((word.to(tl.uint32, bitcast=True) >> (8 * i)) & 0xFF).to(tl.uint8)
        tl.store(items + at * 4 + i, byte, mask=(i >= low) & (i < high))


@triton.jit
def permute_interleave(x_ptr, out_ptr, lanes, chunk_words, row_stride, chunk_bytes, er0, er1, er2, ir0, ir1, ir2, ir3,
                       or0, or1, or2, or3, nbytes, mq, hq, mr0, hr0, mr1, hr1, mr2, hr2, NR: tl.constexpr,
                       R: tl.constexpr, E: tl.constexpr, RP: tl.constexpr, BLOCK: tl.constexpr, IN_WORDS: tl.constexpr,
                       SHIFT: tl.constexpr, WIDE: tl.constexpr, ASM: tl.constexpr, MAGIC: tl.constexpr = False):
    """`lanes` word-columns, `chunk_words` a chunk: chunk q is an R x C transpose of E-byte elements (rows
    `row_stride` bytes apart, each row's C elements contiguous) at the input byte and output byte that rest index q
    gives (NR axes, innermost first, strides in bytes), whose output is `chunk_bytes` (R C E) bytes. With IN_WORDS
    every row of every chunk starts at a whole word. Without SHIFT every chunk's output is whole words (R C E and
    the output strides multiples of 4); with SHIFT a chunk's output may start 1 to 3 bytes into a word: each word
    is funnel-shifted into place from the word built before it (for a word-column's first, the previous
    word-column's last, built again from the rows it reads), and the first and last words, which the chunk shares
    with its neighbours, are written byte by byte. x_ptr and out_ptr are 4-byte aligned; the input holds `nbytes`
    readable bytes from x_ptr. With MAGIC (indices in 31 bits), the lanes' chunks and their digits come from
    multiplying: (m, h) of divisor_magic for chunk_words and the rest's extents."""
    pid = tl.program_id(0)
    if WIDE:  # 64-bit offsets: 2**31 bytes or more in the input or the output
        pid = pid.to(tl.int64)
    f = pid * BLOCK + tl.arange(0, BLOCK)
    q = _quotient(f, mq, hq) if MAGIC else f // chunk_words  # each lane's chunk and word-column in it
    cw = f - q * chunk_words
    live = f < lanes
    # row 0's first byte of the word-column
    src = _rest_offsets(q, er0, er1, er2, ir0, ir1, ir2, ir3, NR, mr0, hr0, mr1, hr1, mr2, hr2, MAGIC) + 4 * cw
    rows = ()
    for r in tl.static_range(R):
        rows = rows + (_lane_row_word(x_ptr, src + r * row_stride, live, nbytes, IN_WORDS, ASM),)
    built = ()
    for j in tl.static_range(R):
        built = built + (_output_word(rows, j, R, E, ASM),)
    start = _rest_offsets(q, er0, er1, er2, or0, or1, or2, or3, NR, mr0, hr0, mr1, hr1, mr2, hr2,
                          MAGIC)  # the chunk's first output byte
    if SHIFT:
        o = start % 4
        before = tl.where(cw > 0, src - 4, src)  # the previous word-column (the first's is not needed)
        held = ()  # its rows' words that its last output word reads (rows R - 4 / E on; all of them if fewer)
        for r in tl.static_range(R):
            if r >= R - 4 // E:
                held = held + (_lane_row_word(x_ptr, before + r * row_stride, live, nbytes, IN_WORDS, ASM),)
            else:
                held = held + (built[0],)
        shifted = _shifted_into_place(built, _output_word(held, R - 1, R, E, ASM), o, R, ASM)
        ends = (chunk_bytes + o) // 4  # the words before this one lie wholly in the chunk's output
        first = (o + 3) // 4  # and from this one on
        last = ends // R  # the word-column that holds the last word, if the chunk ends inside one
        tail = shifted[0]
        for j in tl.static_range(1, R):
            tail = tl.where(ends - last * R == j, shifted[j], tail)
        _edge_bytes(out_ptr, shifted[0], start // 4, o, tl.where(live & (cw == 0) & (o > 0), 4, 0))  # the first
        _edge_bytes(out_ptr, tail, start // 4 + ends, 0, tl.where(live & (cw == last), chunk_bytes + o - 4 * ends, 0))
        built = shifted
    else:
        first = cw * 0
        ends = chunk_bytes // 4 + first
    # each lane's R words as a [BLOCK, RP] tensor, stored along the output (the compiler moves them through shared
    # memory so that a warp's stores are contiguous); the lane's first word and which of its words are whole are
    # gathered into that tensor's shape, so that the index arithmetic behind them is not done again for every word
    base = start // 4 + cw * R  # counted from the word that holds the chunk's first byte
    lo = tl.where(live, tl.maximum(first - cw * R, 0), RP)  # the lane's words lo to hi - 1 are whole
    hi = tl.where(live, tl.minimum(ends - cw * R, R), 0)
    lane = tl.arange(0, BLOCK * RP) // RP
    base = tl.reshape(tl.gather(base, lane, 0), [BLOCK, RP])
    bounds = tl.reshape(tl.gather((lo | (hi << 8)).to(tl.int32), lane, 0), [BLOCK, RP])
    k = tl.arange(0, RP)[None, :]
    at = tl.max_contiguous(base + k, [1, RP])  # a lane's words are consecutive: the store's layout runs along them
    tl.store(out_ptr + at, _stacked(built, R, RP), mask=(k >= (bounds & 0xFF)) & (k < (bounds >> 8)))
