"""In-place transposition of non-square matrices on the GPU: the launches of each form, and their scratch.

A matrix of at most SMALL_BYTES goes out of place into scratch and is copied back (batches in chunks). A larger
one where one side divides the other, with rows of at least BlockOptions.min_chunk_bytes on the shorter side,
takes the block form (cornerturn.blocks): its square blocks transposed in place, and a permutation of whole
chunks by following cycles (cornerturn.cycles; the cycle table travels in the scratch, after the saved slots of
cut cycles). One whose sides share a factor g of at least min_chunk_bytes, neither dividing the other, takes the
grid form: its squares of side g transposed where they lie, then chunks of g elements permuted. One whose long
side is a multiple of the short one plus a remainder of at most BlockOptions.saved_bytes takes the peeled form: the
remainder's rows saved, the rest in block form, rows restrided, the saved rows placed. Where none of those fits, or
for elements of BlockOptions.trim_sizes bytes (none by default) whose shorter side is not a multiple of 16, the
trimmed form: the last few columns (or rows) saved so that the rest has a form of its own (short mod h for a
divisor h of the long side, or short mod 16), or failing that a few rows and a few columns (M mod g and N mod g);
rows closed up, the rest in its form, rows spread out, the saved edges placed. Chunks and rows that
start at addresses narrower than their words move as bytes through whole 8-byte words (the *_packed kernels).
Any other matrix takes the passes of cornerturn.ckg.

Columns (passes 1 and 3) go in bands (ColumnOptions, per element size): pipelined, one launch per pass, bands of
about 4 MiB through a ring of slots small enough to stay in L2; or banded, one launch per band of about 32 MiB,
double-buffered in two slots. Rows (pass 2) go whole on chip when they fit ROW_WORDS words, else in bands of about
ROW_BAND_BYTES through a double-buffered slot. Peak extra memory: the column slots (ring x band, a band being at
least M x K elements, K elements = 128 bytes) or two row bands (at least two rows), plus 8 bytes of counters per
column band: O(max(M, N)). The block form's: the saved slots of cut cycles (about 2 x BlockOptions.saved_bytes at
most, or 128 chunks where 64 chunks pass it; a chunk is min(M, N) elements) and 4 bytes per chunk of table; the
peeled form adds the saved rows (at most BlockOptions.saved_bytes) and a 4-byte flag per restride item (at most 64
a row); the trimmed form the same again for its edges (together within saved_bytes) and its restrides.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..arrays import ArrayView, empty_like_library, view_of
from ..blocks import (
    Trim,
    block_form,
    both_sides_cuts,
    chunk_source,
    grid_form,
    grid_source,
    one_side_cuts,
    peel_form,
    short_side_cut,
)
from ..ckg import Decomposition
from ..cycles import cut
from ..problem import canonical
from .inplace import square_default, square_word
from .launch import Launch

SMALL_BYTES = 16 << 20
ROW_BAND_BYTES = 32 << 20  # rows too long for one program go through scratch in bands of about this much
ROW_WORDS = 8192  # longest row (in words) that pass 2 holds on chip


@dataclass(frozen=True)
class ColumnOptions:
    """How passes 1 and 3 run. Pipelined: one launch per pass, bands of about band_bytes through a ring of `ring`
    slots, each band gathered back `lag` bands after it is copied, work items of `group` tiles handed out to
    `programs` programs. Banded: one launch per band, double-buffered in two slots (ring, lag, group and
    programs unused). Tiles are K columns (128 bytes) by tile_rows x max(K, 16) rows."""

    pipelined: bool
    band_bytes: int
    ring: int = 2
    lag: int = 1
    group: int = 1
    tile_rows: int = 1
    programs: int = 1024

    def __post_init__(self) -> None:
        for name in ("band_bytes", "ring", "group", "tile_rows", "programs"):
            if getattr(self, name) < 1:
                raise ValueError(f"ColumnOptions.{name} must be at least 1, not {getattr(self, name)}")
        if self.tile_rows & (self.tile_rows - 1):
            raise ValueError(f"ColumnOptions.tile_rows must be a power of two, not {self.tile_rows}")
        if not 0 <= self.lag < self.ring:
            raise ValueError(f"ColumnOptions.lag must be in [0, ring), not {self.lag} with ring {self.ring}: a band "
                             "must be gathered back before its slot is reused")


@dataclass(frozen=True)
class BlockOptions:
    """The block form: taken when `enabled` and a chunk (the shorter side's row) holds at least min_chunk_bytes
    and there are at most max_chunks chunks (the cycles are found on the host, once per shape). Cycles are cut
    into about `segments` segments, fewer where the saved slots of cut cycles would pass saved_bytes; a program
    moves `block` words of every chunk of its segment. The peeled form (an edge of at most saved_bytes) moves
    its rows in work items of restride_bytes, at most RESTRIDE_PARTS of them per row. Elements of trim_sizes bytes
    whose shorter side is not a multiple of 16 take the trimmed form (the side cut down to one) where it fits;
    none do by default: since the odd-side squares compute their store pointers after the barrier, the peeled
    form is as fast for int8 65536x16383 and faster for 16384x8191 (docs/inplace.md)."""

    enabled: bool = True
    min_chunk_bytes: int = 512
    max_chunks: int = 1 << 22
    segments: int = 4096
    saved_bytes: int = 16 << 20
    block: int = 512
    restride_bytes: int = 16 << 10
    trim_sizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("min_chunk_bytes", "max_chunks", "segments", "saved_bytes", "block", "restride_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"BlockOptions.{name} must be at least 1, not {getattr(self, name)}")
        if not set(self.trim_sizes) <= {1, 2, 4, 8, 16}:
            raise ValueError(f"BlockOptions.trim_sizes holds element sizes (1, 2, 4, 8, 16), not {self.trim_sizes}")
        for name in ("block", "restride_bytes"):
            if getattr(self, name) & (getattr(self, name) - 1):
                raise ValueError(f"BlockOptions.{name} must be a power of two, not {getattr(self, name)}")


BLOCK_OPTIONS = BlockOptions()


def column_options(itemsize: int) -> ColumnOptions:
    """The column passes' settings per element size, from sweeps on an H100 (docs/inplace.md)."""
    if itemsize <= 4:
        return ColumnOptions(pipelined=True, band_bytes=4 << 20, ring=4, group=2, tile_rows=2)
    return ColumnOptions(pipelined=True, band_bytes=4 << 20, ring=4, group=4)


class Step(NamedTuple):
    """One launch: its two pointer arguments as (buffer, byte offset), buffer "x" or "scratch"; ints for the
    launch's own when they vary from launch to launch."""

    launch: Launch
    first: tuple[str, int]
    second: tuple[str, int]
    ints: tuple[int, ...] | None = None


class RectangularPlan(NamedTuple):
    """The launches, the scratch they need, and the bytes of buffer "table" (a cycle table) if any."""

    steps: list[Step]
    scratch_bytes: int
    table: bytes = b""


def alignment(ptr: int) -> int:
    """The largest power of two, at most 16, that divides the address."""
    return min(16, ptr & -ptr) if ptr else 16


def plan(batch: int, m: int, n: int, itemsize: int, align: int = 16, small_bytes: int | None = None,
         columns: ColumnOptions | None = None, row_words: int | None = None,
         row_band_bytes: int | None = None, blocks: BlockOptions | None = None) -> RectangularPlan:
    """The launches that transpose `batch` contiguous M x N matrices in place, from an address aligned to
    `align` bytes, with a scratch buffer of plan.scratch_bytes (16-byte aligned). The settings default to
    SMALL_BYTES, column_options(itemsize), ROW_WORDS, ROW_BAND_BYTES and BLOCK_OPTIONS."""
    small_bytes = SMALL_BYTES if small_bytes is None else small_bytes
    columns = column_options(itemsize) if columns is None else columns
    row_words = ROW_WORDS if row_words is None else row_words
    row_band_bytes = ROW_BAND_BYTES if row_band_bytes is None else row_band_bytes
    blocks = BLOCK_OPTIONS if blocks is None else blocks
    return _plan(batch, m, n, itemsize, align, small_bytes, columns, row_words, row_band_bytes, blocks)


@functools.lru_cache(maxsize=256)
def _plan(batch: int, m: int, n: int, itemsize: int, align: int, small_bytes: int, columns: ColumnOptions,
          row_words: int, row_band_bytes: int, blocks: BlockOptions) -> RectangularPlan:
    matrix = m * n * itemsize
    if matrix <= small_bytes:
        return _through_scratch(batch, m, n, itemsize, align, max(1, small_bytes // matrix))
    # the alignment of every matrix of the batch, for moves through whole words that are wider than an element
    every = align if batch == 1 else math.gcd(align, matrix)
    direct = _form(m, n, itemsize, blocks) if blocks.enabled else None
    trim = _trim(m, n, itemsize, blocks, alone=direct is None) if blocks.enabled else None
    if direct is not None and (direct[0] != "peel" or trim is None):  # trim_sizes: the trimmed form before a peel
        single = _form_steps(direct, itemsize, align, blocks, every)
    elif trim is not None:
        single = _trim_steps(m, n, trim, itemsize, align, blocks, every)
    else:
        single = _passes(m, n, itemsize, align, columns, row_words, row_band_bytes)
    steps = [s._replace(first=_moved(s.first, k * matrix), second=_moved(s.second, k * matrix))
             for k in range(batch) for s in single.steps]
    return single._replace(steps=steps)


def _moved(pointer: tuple[str, int], offset: int) -> tuple[str, int]:
    return (pointer[0], pointer[1] + offset) if pointer[0] == "x" else pointer


def _fits(form, itemsize: int, options: BlockOptions) -> bool:
    return form.side * itemsize >= options.min_chunk_bytes and form.chunks <= options.max_chunks


def _form(m: int, n: int, itemsize: int, options: BlockOptions) -> tuple[str, Any] | None:
    """The first of the block, grid and peeled forms that fits an M x N matrix, as (name, form), or None."""
    form, grid, peel = block_form(m, n), grid_form(m, n), peel_form(m, n)
    if form is not None and _fits(form, itemsize, options):
        return "block", form
    if grid is not None and _fits(grid, itemsize, options):
        return "grid", grid
    if peel is not None and _peel_fits(peel, itemsize, options):
        return "peel", peel
    return None


def _form_steps(named: tuple[str, Any], itemsize: int, align: int, options: BlockOptions,
                every: int) -> RectangularPlan:
    kind, form = named
    steps = {"block": _block_steps, "grid": _grid_steps, "peel": _peel_steps}[kind]
    return steps(form, itemsize, align, options, every)


RESTRIDE_PARTS = 64  # most restride_rows work items per row: their flags stay O(max(M, N))
# rows moved as bytes through words (restride_rows_packed) go in items of 8 KiB with 4 warps: int8 rows of 39936
# from a stride of 40009 at 81% of the copy, spread from 65280 to 65521 at 79%, against 60% and 68% in items of
# 16 KiB with 8 warps (H200, 2026-11-23 07:19 UTC, a sweep of word, item, warps and programs; docs/inplace.md)
PACKED_RESTRIDE_BYTES = 8 << 10


def _peel_fits(peel, itemsize: int, options: BlockOptions) -> bool:
    short = min(peel.rows, peel.cols)
    row_bytes = max(peel.rows, peel.cols) * itemsize
    return (peel.edge * short * itemsize <= options.saved_bytes and short * itemsize >= options.min_chunk_bytes
            and (peel.front is None or _fits(peel.front, itemsize, options))
            and row_bytes <= RESTRIDE_PARTS * options.restride_bytes)


def _peel_steps(peel, itemsize: int, align: int, options: BlockOptions, every: int) -> RectangularPlan:
    """The peeled form (cornerturn.blocks). Scratch: the edge, the restride counters (_restride), then the
    front's."""
    word = square_word(itemsize, align)
    words = itemsize // word
    fm, fn, r = peel.rows, peel.cols, peel.edge
    m, n = (fm + r, fn) if peel.tall else (fm, fn + r)
    edge_bytes = -(-r * min(m, n) * itemsize // 16) * 16
    if peel.front is None:
        front = RectangularPlan([Step(square_default(1, fm, itemsize, every), ("x", 0), ("x", 0))], 0)
    else:
        front = _block_steps(peel.front, itemsize, align, options, every)
    rows, length = (fn, fm) if peel.tall else (fm, fn)  # rows of `length` elements move
    stride_from, stride_to = (fm, m) if peel.tall else (n, fn)
    moves, front_base = _restride(rows, length, stride_from, stride_to, peel.tall, edge_bytes, itemsize, word, every,
                                  options, m * n * itemsize)
    front_steps = [s._replace(first=_scratch_at(s.first, front_base), second=_scratch_at(s.second, front_base))
                   for s in front.steps]
    if peel.tall:  # the last r rows; then element (t, j) of the edge to row j, column fm + t
        save = _copy_2d(r, n, (n, 1), (n, 1), words, word), ("x", fm * n * itemsize), ("scratch", 0)
        place = _copy_2d(n, r, (1, n), (m, 1), words, word), ("scratch", 0), ("x", fm * itemsize)
        steps = [Step(*save), *front_steps, *moves, Step(*place)]
    else:  # the last r columns; then element (i, t) of the edge to row fn + t, column i
        save = _copy_2d(m, r, (n, 1), (r, 1), words, word), ("x", fn * itemsize), ("scratch", 0)
        place = _copy_2d(r, m, (1, r), (m, 1), words, word), ("scratch", 0), ("x", fn * m * itemsize)
        steps = [Step(*save), *moves, *front_steps, Step(*place)]
    return RectangularPlan(steps, front_base + front.scratch_bytes, front.table)


def _trim(m: int, n: int, itemsize: int, options: BlockOptions, alone: bool = False) -> Trim | None:
    """The trimmed form where it applies, the edges within options.saved_bytes. Cuts tried: for elements of
    options.trim_sizes bytes, the shorter side's short mod 16 (aligned squares); where no other form fits the
    matrix (`alone`), blocks.one_side_cuts; then both sides cut to multiples of one g (_cut_both)."""
    short = min(m, n)
    if m == n or short < 16:
        return None
    aligned = short % 16
    cuts = [short_side_cut(m, n, aligned)] if itemsize in options.trim_sizes and aligned else []
    if alone:
        cuts += [t for t in one_side_cuts(m, n, -(-options.min_chunk_bytes // itemsize)) if t not in cuts]
    for trim in cuts:
        if _trim_fits(trim, m, n, itemsize, options) and _form(*trim.inner, itemsize, options) is not None:
            return trim
    return _cut_both(m, n, itemsize, options) if alone else None


def _trim_fits(trim: Trim, m: int, n: int, itemsize: int, options: BlockOptions) -> bool:
    """Edges within options.saved_bytes, and rows that restride within RESTRIDE_PARTS work items: rows of N - cols
    elements close up, rows of M - rows elements spread out."""
    im, i_n = trim.inner
    limit = RESTRIDE_PARTS * options.restride_bytes
    return ((trim.rows * n + trim.cols * im) * itemsize <= options.saved_bytes
            and (not trim.cols or i_n * itemsize <= limit) and (not trim.rows or im * itemsize <= limit))


def _cut_both(m: int, n: int, itemsize: int, options: BlockOptions) -> Trim | None:
    """The first of the 64 cheapest blocks.both_sides_cuts whose rest is in block or grid form: for sides with no
    other form, both prime for instance. (int8 65521 x 40009 less 241 rows and 73 columns is 85 x 52 squares of
    768: 3.4 M chunks, planned in about a second; BlockOptions.max_chunks bounds them.)"""
    min_side = -(-options.min_chunk_bytes // itemsize)
    for trim in both_sides_cuts(m, n, itemsize, min_side, options.saved_bytes)[:64]:
        named = _form(*trim.inner, itemsize, options)
        if (trim.rows or trim.cols) and _trim_fits(trim, m, n, itemsize, options) and named is not None \
                and named[0] != "peel":
            return trim
    return None


def _trim_steps(m: int, n: int, trim: Trim, itemsize: int, align: int, options: BlockOptions,
                every: int) -> RectangularPlan:
    """The trimmed form, r rows and c columns cut (either may be 0): the last r rows saved, then the last c
    columns of the others; rows close up from N to N - c elements; the (M - r) x (N - c) rest transposed in place;
    its rows spread out from M - r to M elements (descending); the saved columns written transposed as the last c
    rows, the saved rows transposed into the last r columns. Scratch: the saved rows, the saved columns, the
    restride counters, then the rest's."""
    word = square_word(itemsize, align)
    words = itemsize // word
    r, c, (im, i_n) = trim.rows, trim.cols, trim.inner
    below = -(-r * n * itemsize // 16) * 16  # scratch bytes of the saved rows, the saved columns after them
    at = below + -(-c * im * itemsize // 16) * 16
    # the rest's chunks may take words wider than the matrix's size allows in a batch: its alignment is `every`
    inner = _form_steps(_form(im, i_n, itemsize, options), itemsize, every, options, every)
    size = m * n * itemsize
    close, spread, saves, places, base = [], [], [], [], at
    if r:  # element (t, j) of the saved rows to row j, column im + t
        saves.append(Step(_copy_2d(r, n, (n, 1), (n, 1), words, word), ("x", im * n * itemsize), ("scratch", 0)))
        places.append(Step(_copy_2d(n, r, (1, n), (m, 1), words, word), ("scratch", 0), ("x", im * itemsize)))
        spread, base = _restride(i_n, im, im, m, True, at, itemsize, word, every, options, size)
    if c:  # element (i, s) of the saved columns to row i_n + s, column i
        saves.append(Step(_copy_2d(im, c, (n, 1), (c, 1), words, word), ("x", i_n * itemsize), ("scratch", below)))
        places.append(Step(_copy_2d(c, im, (1, c), (m, 1), words, word), ("scratch", below),
                           ("x", i_n * m * itemsize)))
        close, end = _restride(im, i_n, n, i_n, False, at, itemsize, word, every, options, size)
        base = max(base, end)
    inner_steps = [s._replace(first=_scratch_at(s.first, base), second=_scratch_at(s.second, base))
                   for s in inner.steps]
    return RectangularPlan([*saves, *close, *inner_steps, *spread, *places], base + inner.scratch_bytes, inner.table)


def _restride(rows: int, length: int, stride_from: int, stride_to: int, descending: bool, at: int, itemsize: int,
              word: int, every: int, options: BlockOptions, size: int) -> tuple[list[Step], int]:
    """Rows of `length` elements moved from one stride to another in place (restride_rows), its counters at byte
    `at` of the scratch: the steps, and the scratch bytes used up to their end. Rows whose starts and length are
    whole 16-byte runs (every matrix aligned to 16) move in 16-byte accesses; other rows of 1- and 2-byte elements
    as bytes through whole words (restride_rows_packed) where every matrix is aligned to the word (`every`)."""
    from . import kernels

    # 16-byte runs beat moves through words (float16 32768x4095 on an H200: 0.15 ms against 0.20 ms); otherwise
    # 4-byte rows restride as fast plainly (0.91 ms against 0.98 ms through 8-byte words for float32 32768x8191)
    runs = every % 16 == 0 and options.restride_bytes >= 16 and all(
        v * itemsize % 16 == 0 for v in (length, stride_from, stride_to))
    packed = _packed_word(word, every, options.restride_bytes) if word < 4 and not runs else 0
    unit, kernel = (1, kernels.restride_rows_packed) if packed else (word, kernels.restride_rows)
    units = itemsize // unit  # per element
    block = max(1, options.restride_bytes // unit)
    if packed:  # smaller items, fewer warps: at most RESTRIDE_PARTS a row still
        fewest = 1 << (math.ceil(length * units / RESTRIDE_PARTS) - 1).bit_length()
        block = min(block, max(PACKED_RESTRIDE_BYTES, fewest))
    parts = math.ceil(length * units / block)
    counters = 1 + rows * parts
    ints = (rows, length * units, 0, stride_from * units, stride_to * units, parts, at // unit)
    constexprs = {"DESCENDING": descending, "BLOCK": block} | ({"WORD": packed} if packed else {"VEC": 1})
    if runs and not packed:
        constexprs["VEC"] = 16 // unit
    restride = Launch(kernel, min(rows * parts, 2048), ints + ((size,) if packed else ()), constexprs,
                      4 if packed else 8, unit)
    return [_zero(at, counters), Step(restride, ("x", 0), ("scratch", 0))], at + -(-4 * counters // 16) * 16


def _scratch_at(pointer: tuple[str, int], base: int) -> tuple[str, int]:
    return (pointer[0], pointer[1] + base) if pointer[0] == "scratch" else pointer


def _copy_2d(rows: int, cols: int, src: tuple[int, int], dst: tuple[int, int], words: int, word: int) -> Launch:
    """copy_2d of rows x cols elements with (row, column) strides `src` and `dst`, in elements."""
    from . import kernels

    block_c = min(64, 1 << (cols - 1).bit_length())
    block_r = max(1, 1024 // block_c)
    tiles_c = math.ceil(cols / block_c)
    return Launch(kernels.copy_2d, math.ceil(rows / block_r) * tiles_c, (rows, cols, *src, *dst, tiles_c),
                  {"BLOCK_R": block_r, "BLOCK_C": block_c, "WORDS": words}, 4, word)


def _packed_word(word: int, every: int, block_bytes: int) -> int:
    """The word (8 or 4 bytes) of moves funnel-shifted through whole words when elements are moved `word` bytes at a
    time and every matrix starts at a multiple of it; 0 where plain moves are as wide or the block is too small."""
    wide = next((w for w in (8, 4) if every % w == 0), 0)
    return wide if word < wide and block_bytes >= 4 * wide else 0


def _block_steps(form, itemsize: int, align: int, options: BlockOptions, every: int) -> RectangularPlan:
    """The block form: square blocks in place, then the chunk permutation (tall), or the other way round (wide)."""
    square = Step(square_default(form.squares, form.side, itemsize, every), ("x", 0), ("x", 0))
    moves = _cycle_steps(chunk_source(form), form.side * itemsize, align, options, every,
                         form.squares * form.side ** 2 * itemsize)
    return moves._replace(steps=[square, *moves.steps] if form.tall else [*moves.steps, square])


def _grid_steps(form, itemsize: int, align: int, options: BlockOptions, every: int) -> RectangularPlan:
    """The grid form: each square in place where it lies, then the chunk permutation."""
    square = Step(square_default(form.squares, form.side, itemsize, every, across=form.across), ("x", 0), ("x", 0))
    moves = _cycle_steps(grid_source(form), form.side * itemsize, align, options, every,
                         form.squares * form.side ** 2 * itemsize)
    return moves._replace(steps=[square, *moves.steps])


def _cycle_steps(source: np.ndarray, chunk_bytes: int, align: int, options: BlockOptions, every: int,
                 size: int) -> RectangularPlan:
    """Chunk d takes chunk source[d] (cornerturn.cycles) in the first `size` bytes of x. Scratch: the saved slots of
    cut cycles, then the cycle table (Segments.packed), copied there from buffer "table" first. Chunks whose size is
    not a multiple of 8 bytes move through whole words (cycles_move_packed) where every matrix is aligned to one."""
    from . import kernels

    word = next(w for w in (8, 4, 2, 1) if chunk_bytes % w == 0 and align % w == 0)
    work = cut(source, min(options.segments, max(64, options.saved_bytes // chunk_bytes)))
    if not work.count:  # N x 1 or 1 x N blocks: every chunk stays
        return RectangularPlan([], 0)
    table = work.packed()
    whole = 1 << (chunk_bytes - 1).bit_length()
    packed = _packed_word(word, every, min(options.block * 8, whole))
    block_bytes = min(options.block * (packed or word), whole)  # options.block words of a program
    unit = 1 if packed else word
    chunk_units = chunk_bytes // unit
    block = max(1, block_bytes // unit)
    parts = math.ceil(chunk_units / block)
    warps = max(1, min(8, block // packed // 128 if packed else block // 256))
    saved_bytes = -(-len(work.saved) * chunk_bytes // 16) * 16
    table_at = saved_bytes // unit
    copy = Launch(kernels.copy_words, math.ceil(len(table) / 1024), (len(table),), {"BLOCK": 1024}, 4, 4)
    steps = [Step(copy, ("table", 0), ("scratch", saved_bytes))]
    at = (table_at, 3 * work.count)
    if packed:
        save = Launch(kernels.cycles_save_packed, len(work.saved) * parts, (chunk_bytes, parts, *at, size),
                      {"BLOCK": block, "WORD": packed}, warps, 1)
        move = Launch(kernels.cycles_move_packed, work.count * parts,
                      (chunk_bytes, parts, table_at, 3 * work.count + len(work.saved), size, saved_bytes),
                      {"BLOCK": block, "WORD": packed}, warps, 1)
    else:
        vec = 16 // word  # chunks of whole 16-byte runs, in a matrix aligned to 16, move in 16-byte accesses
        vec = vec if every % 16 == 0 and chunk_bytes % 16 == 0 and block % vec == 0 else 1
        save = Launch(kernels.cycles_save, len(work.saved) * parts, (chunk_units, parts, *at),
                      {"BLOCK": block, "VEC": vec}, warps, word)
        move = Launch(kernels.cycles_move, work.count * parts,
                      (chunk_units, parts, table_at, 3 * work.count + len(work.saved)), {"BLOCK": block, "VEC": vec},
                      warps, word)
    if len(work.saved):
        steps.append(Step(save, ("x", 0), ("scratch", 0)))
    steps.append(Step(move, ("x", 0), ("scratch", 0)))
    return RectangularPlan(steps, saved_bytes + 4 * len(table), table.tobytes())


def _through_scratch(batch: int, m: int, n: int, itemsize: int, align: int, per_chunk: int) -> RectangularPlan:
    from .plan import build

    chunk = min(batch, per_chunk)
    matrix = m * n * itemsize
    steps = []
    for start in range(0, batch, chunk):
        k = min(chunk, batch - start)
        problem = canonical((k, m, n), (matrix, n * itemsize, itemsize), itemsize)
        moved = build(problem, _word_for(problem, itemsize, align))
        steps += [Step(launch, ("x", start * matrix + xo), ("scratch", oo)) for xo, oo, launch in moved.pieces]
        back = canonical((1, k * m * n), (k * matrix, itemsize), itemsize)
        copy = build(back, _word_for(back, itemsize, align))
        steps += [Step(launch, ("scratch", xo), ("x", start * matrix + oo)) for xo, oo, launch in copy.pieces]
    return RectangularPlan(steps, chunk * matrix)


def _word_for(problem, itemsize: int, align: int) -> int:
    from .configs import natural_word

    natural = natural_word(problem)
    return natural if align % natural == 0 else square_word(itemsize, align)


def _passes(m: int, n: int, itemsize: int, align: int, options: ColumnOptions, row_words: int,
            row_band_bytes: int) -> RectangularPlan:
    word = square_word(itemsize, align)
    d = Decomposition(m, n)
    words = itemsize // word
    columns = _ColumnBands(m, n, itemsize, word, options)
    steps = columns.steps(d, post=False) if d.rotates_first else []
    steps += _rows(m, n, d, words, word, row_band_bytes, row_words)
    steps += columns.steps(d, post=True)
    scratch = columns.scratch_bytes
    if n * words > row_words:
        band = _row_band(m, n, itemsize, row_band_bytes)
        scratch = max(scratch, min(2, math.ceil(m / band)) * band * n * itemsize)
    return RectangularPlan(steps, scratch)


class _ColumnBands:
    """Passes 1 and 3: tiles of K columns (128 bytes) by H rows, bands of whole tiles of about band_bytes, in
    slots of one band each (a ring, or two for banded launches); a pipelined pass's counters follow the slots."""

    def __init__(self, m: int, n: int, itemsize: int, word: int, options: ColumnOptions) -> None:
        self.m, self.n, self.word, self.words, self.options = m, n, word, itemsize // word, options
        self.k_cols = max(1, 128 // itemsize)
        self.h_rows = max(self.k_cols, 16) * options.tile_rows
        per_band = max(1, options.band_bytes // (m * itemsize * self.k_cols))
        self.band = min(per_band * self.k_cols, n)
        self.bands = math.ceil(n / self.band)
        self.col_tiles = math.ceil(self.band / self.k_cols)
        self.warps = 4 if self.k_cols * self.h_rows * self.words <= 2048 else 8
        slots = min(options.ring if options.pipelined else 2, self.bands)
        self.slots_bytes = -(-slots * m * self.band * itemsize // 16) * 16
        self.counters = 1 + 2 * self.bands if options.pipelined else 0
        self.scratch_bytes = self.slots_bytes + 4 * self.counters

    def steps(self, d: Decomposition, post: bool) -> list[Step]:
        from . import kernels

        m, h, o = self.m, self.h_rows, self.options
        if not post:
            mode, outer, inner = 0, math.ceil(m / h), 1
        elif d.a >= h:
            mode, outer, inner = 1, d.c, math.ceil(d.a / h)  # runs of a: output rows alpha * a + beta, beta inner
        else:
            mode, outer, inner = 2, d.a, math.ceil(d.c / h)  # runs of c: alpha inner
        b_inverse = pow(d.b, -1, d.a) if d.a > 1 else 0
        copy_tiles = math.ceil(m / h) * self.col_tiles
        gather_tiles = self.col_tiles * outer * inner
        constexprs = {"MODE": mode, "H": h, "K": self.k_cols, "WORDS": self.words}
        fixed = (m, self.n, d.a, d.b, d.c, b_inverse, self.band)
        if not o.pipelined:
            banded = (*fixed, copy_tiles, outer, inner, self.col_tiles)
            launch = Launch(kernels.inplace_columns_banded, copy_tiles + gather_tiles, (*banded, 0, 0, -1),
                            constexprs, self.warps, self.word)
            return [Step(launch, ("x", 0), ("scratch", 0), (*banded, *_double_buffered(t, self.bands, self.band)))
                    for t in range(self.bands + 1)]
        tickets = (self.bands + o.lag) * (math.ceil(copy_tiles / o.group) + math.ceil(gather_tiles / o.group))
        ints = (*fixed, self.bands, copy_tiles, gather_tiles, outer, inner, self.col_tiles, o.ring, o.lag,
                self.slots_bytes // self.word)
        launch = Launch(kernels.inplace_columns, min(tickets, o.programs), ints,
                        {**constexprs, "GROUP": o.group}, self.warps, self.word)
        return [_zero(self.slots_bytes, self.counters), Step(launch, ("x", 0), ("scratch", 0))]


def _zero(offset: int, count: int) -> Step:
    """Zero `count` int32 counters at byte `offset` of the scratch."""
    from . import kernels

    block = 1024
    launch = Launch(kernels.zero_words, math.ceil(count / block), (count,), {"BLOCK": block}, 4, 4)
    return Step(launch, ("scratch", offset), ("scratch", offset))


def _double_buffered(t: int, bands: int, band: int) -> tuple[int, int, int]:
    """Launch t of a banded pass: (first index of band t to copy into the slot or -1, the half it goes to,
    first index of band t - 1 to gather back from the other half or -1)."""
    return (t * band if t < bands else -1, t % 2, (t - 1) * band if t > 0 else -1)


def _row_band(m: int, n: int, itemsize: int, band_bytes: int) -> int:
    return min(m, max(1, band_bytes // (n * itemsize)))


def _rows(m: int, n: int, d: Decomposition, words: int, word: int, band_bytes: int, row_words: int) -> list[Step]:
    from . import kernels

    ints = (m, n, d.c, d.b, d.a_inverse)
    if n * words <= row_words:
        block = 1 << (n * words - 1).bit_length()
        rows = max(1, 1024 // block)
        warps = min(16, max(1, rows * block // 256))
        launch = Launch(kernels.inplace_rows, math.ceil(m / rows), ints,
                        {"ROWS": rows, "BLOCK": block, "WORDS": words}, warps, word)
        return [Step(launch, ("x", 0), ("x", 0))]
    band = _row_band(m, n, words * word, band_bytes)
    block = 1024
    row_tiles = math.ceil(n * words / block)
    bands = math.ceil(m / band)
    launch = Launch(kernels.inplace_rows_banded, 2 * band * row_tiles, (*ints, band, row_tiles, 0, 0, -1),
                    {"BLOCK": block, "WORDS": words}, 4, word)
    return [Step(launch, ("x", 0), ("scratch", 0), (*ints, band, row_tiles, *_double_buffered(t, bands, band)))
            for t in range(bands + 1)]


def run(x: ArrayView, batch: int, m: int, n: int) -> int:
    """Transpose the `batch` M x N matrices of GPU array `x` (C-contiguous) in place on the caller's stream.
    Returns the scratch bytes it allocated (freed on return, in stream order)."""
    from .runtime import current_stream, on_device

    p = plan(batch, m, n, x.itemsize, alignment(x.ptr))
    device = int(x.device.split(":")[1])
    with on_device(device):
        stream = current_stream(x, device)
        scratch = empty_like_library(x, (math.ceil(p.scratch_bytes / x.itemsize),)) if p.scratch_bytes else None
        pointers = {"x": x.ptr, "scratch": view_of(scratch).ptr if scratch is not None else 0,
                    "table": _device_table(p.table, device).data_ptr() if p.table else 0}
        for step in p.steps:
            step.launch.run_pointers(pointers[step.first[0]] + step.first[1],
                                     pointers[step.second[0]] + step.second[1], stream, device, step.ints)
    return p.scratch_bytes


@functools.lru_cache(maxsize=16)
def _device_table(table: bytes, device: int) -> Any:
    """A cycle table on the device, uploaded once per shape and kept (a few bytes per chunk)."""
    import torch

    return torch.from_numpy(np.frombuffer(table, dtype=np.uint8).copy()).to(f"cuda:{device}")


def run_tensors(p: RectangularPlan, x: Any) -> None:
    """Run plan `p` through Triton's own launch path on `x`, a flat uint8 torch tensor holding the matrices
    (Triton's interpreter, in the tests)."""
    import torch

    buffers = {"x": x, "scratch": torch.empty(max(p.scratch_bytes, 16), dtype=torch.uint8, device=x.device),
               "table": torch.from_numpy(np.frombuffer(p.table, dtype=np.uint8).copy()).to(x.device)}
    for step in p.steps:
        first = _as_words(buffers[step.first[0]], step.first[1], step.launch.word)
        second = _as_words(buffers[step.second[0]], step.second[1], step.launch.word)
        step.launch.run_tensors(first, second, step.ints)


def _as_words(buffer: Any, offset: int, word: int) -> Any:
    import torch

    words = (buffer.numel() - offset) // word
    dtype = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[word]
    return buffer[offset:offset + words * word].view(dtype)
