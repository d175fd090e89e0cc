"""In-place transposition of non-square matrices on the CPU (Numba, parallel): the block form where one side
divides the other, the grid form where the sides share a factor, the peeled form where the long side is a multiple
of the short one plus a small edge (cornerturn.blocks), else the three passes of `ckg`.

Block form: the square blocks go through the square kernel (cpu.inplace), and the row chunks move along their
cycles, one segment of a cycle per task, a whole chunk (a contiguous row) at a time; cut cycles close with their
saved chunk. Grid form: each row of squares goes through the square kernel where it lies (rows N elements
apart), then the chunks move the same way. Peeled form: the edge saved, the front in block form (or square), its
rows moved to the new stride in groups (the last group first where they spread out, the first where they close
up), the edge written back transposed. Trimmed form, where none of those fits: the last rows and columns set aside
so that the rest takes the block or grid form, rows closed up to the rest's width, the rest transposed, its rows
spread out to the new width, the edges written back transposed. Column passes: each thread copies a band of whole
columns (one cache line wide) into its scratch, then writes the band back gathered, row by row. Row pass: each
thread copies a row into its scratch and scatters it back. Scratch: threads x max(M x band, N) elements for the
passes; the saved chunks (at most SAVED_BYTES and 64 chunks) and one chunk per segment for the block form; the
edges and a staging buffer of RESTRIDE_BYTES for the peeled and trimmed forms. Matrices small enough go
out of place through scratch.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ..blocks import (
    BlockForm,
    GridForm,
    PeelForm,
    Trim,
    block_form,
    both_sides_cuts,
    chunk_source,
    grid_form,
    grid_source,
    peel_form,
)
from ..ckg import Decomposition
from ..cycles import Segments, cut
from .planner import transpose_words

SMALL_BYTES = 1 << 20  # matrices up to this size: out of place into scratch, then copied back
MIN_CHUNK_BYTES = 64  # the block form where its chunks (rows of the shorter side) hold at least a cache line
SAVED_BYTES = 1 << 20  # bound on the chunks saved to close cut cycles (unless 64 chunks are more)
RESTRIDE_BYTES = 2 << 20  # rows of the peeled form move to their new stride through a scratch of about this size
TRIM_BYTES = 16 << 20  # bound on the edges the trimmed form sets aside
# the trimmed form's rest in squares of at least this many bytes a row: float32 8192 x 3001 less 9 columns is 512 x
# 187 squares of 16 and took 259 ms against 64 ms for the three passes (2-core machine, docs/inplace.md)
TRIM_SIDE_BYTES = 1024


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _move_chunks(chunks, table, order, held):
    """Each segment (start, length, slot) of `table` moves its chunks down its chain in `order` (order[k] takes
    order[k + 1]); the last takes the segment's own first chunk, or held[slot] for a cut cycle."""
    for g in prange(table.shape[0]):
        start, length, slot = table[g, 0], table[g, 1], table[g, 2]
        first = chunks[order[start]].copy()
        for k in range(start, start + length - 1):
            chunks[order[k]] = chunks[order[k + 1]]
        if slot < 0:
            chunks[order[start + length - 1]] = first
        else:
            chunks[order[start + length - 1]] = held[slot]


def cpu_block_form(m: int, n: int, itemsize: int) -> BlockForm | None:
    """The block form of an M x N matrix where it applies on the CPU: chunks of at least MIN_CHUNK_BYTES."""
    form = block_form(m, n)
    return form if form is not None and form.side * itemsize >= MIN_CHUNK_BYTES else None


def cpu_grid_form(m: int, n: int, itemsize: int) -> GridForm | None:
    """The grid form of an M x N matrix where it applies on the CPU: chunks (the shared factor) of at least
    MIN_CHUNK_BYTES."""
    form = grid_form(m, n)
    return form if form is not None and form.side * itemsize >= MIN_CHUNK_BYTES else None


def cpu_peel_form(m: int, n: int, itemsize: int) -> PeelForm | None:
    """The peeled form of an M x N matrix where it applies on the CPU: an edge of at most SAVED_BYTES, chunks (rows
    of the short side) of at least MIN_CHUNK_BYTES."""
    form = peel_form(m, n)
    short = min(m, n)
    if form is None or form.edge * short * itemsize > SAVED_BYTES or short * itemsize < MIN_CHUNK_BYTES:
        return None
    return form


def peel_steps(x: np.ndarray, form: PeelForm, work: Segments | None) -> int:
    """The peeled form on one M x N matrix of words `x` (C-contiguous): `work` is its front's chunk permutation
    (None for a square front). Returns the scratch bytes it held at most (the edge, and the front's saved chunks or
    the rows staged, whichever is more)."""
    m, n = x.shape
    flat = x.reshape(-1)
    fm, fn = form.rows, form.cols
    if form.tall:  # the last rows; then element (t, j) of the edge to row j, column fm + t
        edge = flat[fm * n:].reshape(form.edge, n).copy()
        saved = _front_steps(flat[:fm * fn].reshape(fm, fn), form.front, work)
        staged = _restride(flat, fn, fm, fm, m)
        flat.reshape(n, m)[:, fm:] = edge.T
    else:  # the last columns; then element (i, t) of the edge to row fn + t, column i
        edge = x[:, fn:].copy()
        staged = _restride(flat, m, fn, n, fn)
        saved = _front_steps(flat[:m * fn].reshape(m, fn), form.front, work)
        flat[fn * m:] = edge.T.reshape(-1)
    return edge.nbytes + max(saved, staged)


def _front_steps(front: np.ndarray, form: BlockForm | None, work: Segments | None) -> int:
    from .inplace import transpose_squares

    if form is None:
        transpose_squares(front[None])
        return 0
    return block_steps(front, form, work)


def _restride(flat: np.ndarray, rows: int, length: int, stride_from: int, stride_to: int) -> int:
    """`rows` rows of `length` elements moved in place from `stride_from` to `stride_to` elements apart (length <=
    both), in groups staged through a scratch of about RESTRIDE_BYTES: the last group first where they spread out,
    the first where they close up, so that no group writes over rows yet to be read. Returns the scratch bytes."""
    group = min(rows, max(1, RESTRIDE_BYTES // (length * flat.itemsize)))
    scratch = np.empty((group, length), flat.dtype)
    _restride_groups(flat, scratch, rows, length, stride_from, stride_to)
    return scratch.nbytes


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _restride_groups(flat, scratch, rows, length, stride_from, stride_to):
    group = scratch.shape[0]
    groups = (rows + group - 1) // group
    for h in range(groups):
        g = groups - 1 - h if stride_to > stride_from else h
        first = g * group
        count = min(group, rows - first)
        for k in prange(count):
            src = (first + k) * stride_from
            scratch[k, :] = flat[src:src + length]
        for k in prange(count):
            dst = (first + k) * stride_to
            flat[dst:dst + length] = scratch[k, :]


def cpu_trim_form(m: int, n: int, itemsize: int) -> Trim | None:
    """The trimmed form on the CPU: the first of the 64 cheapest blocks.both_sides_cuts (cuts of one side among
    them) whose edges fit in TRIM_BYTES and whose rest takes the block or grid form with squares of at least
    TRIM_SIDE_BYTES a row."""
    min_side = -(-max(TRIM_SIDE_BYTES, MIN_CHUNK_BYTES) // itemsize)
    if m == n or min(m, n) <= min_side:
        return None
    for trim in both_sides_cuts(m, n, itemsize, min_side, TRIM_BYTES)[:64]:
        if (trim.rows or trim.cols) and _chunked_form(*trim.inner, itemsize) is not None:
            return trim
    return None


def trim_steps(x: np.ndarray, trim: Trim, rest: tuple, work: Segments) -> int:
    """The trimmed form on one M x N matrix of words `x` (C-contiguous): `rest` is the (form, source, steps) of its
    (M - r) x (N - c) rest and `work` that form's chunk permutation. The last r rows saved, then the last c columns
    of the others; rows close up to N - c elements; the rest in its form; its rows spread out to M elements; the
    saved columns written transposed as the last c rows, the saved rows into the last r columns. Returns the
    scratch bytes it held at most."""
    m, n = x.shape
    (im, i_n), flat = trim.inner, x.reshape(-1)
    form, _, steps = rest
    below = x[im:].copy()
    right = x[:im, i_n:].copy()
    staged = _restride(flat, im, i_n, n, i_n) if trim.cols else 0
    saved = steps(flat[:im * i_n].reshape(im, i_n), form, work)
    if trim.rows:
        staged = max(staged, _restride(flat, i_n, im, im, m))
    out = flat.reshape(n, m)
    out[i_n:, :im] = right.T
    out[:, im:] = below.T
    return below.nbytes + right.nbytes + max(saved, staged)


def _chunked_form(m: int, n: int, itemsize: int) -> tuple | None:
    """(form, chunk source, steps) of the block or grid form of an M x N matrix on the CPU, or None."""
    form = cpu_block_form(m, n, itemsize)
    if form is not None:
        return form, chunk_source, block_steps
    form = cpu_grid_form(m, n, itemsize)
    return None if form is None else (form, grid_source, grid_steps)


def grid_steps(x: np.ndarray, form: GridForm, work: Segments) -> int:
    """The grid form on one M x N matrix of words `x` (C-contiguous): each row of squares through the square kernel
    as a (across, side, side) view whose rows are N elements apart, then the chunk permutation (`work`). Returns
    the bytes of chunks it saved."""
    from .inplace import transpose_squares

    g, q = form.side, form.across
    for band in x.reshape(form.down, g, q, g):  # [u, c, v]: row u of square c
        transpose_squares(band.transpose(1, 0, 2))
    return _permute_chunks(x.reshape(form.chunks, g), work)


def block_steps(x: np.ndarray, form: BlockForm, work: Segments) -> int:
    """The block form on one M x N matrix of words `x` (C-contiguous): `work` is the chunk permutation's segments.
    Returns the bytes of chunks it saved."""
    from .inplace import transpose_squares

    flat = x.reshape(-1)
    squares = flat.reshape(form.squares, form.side, form.side)
    if form.tall:
        transpose_squares(squares)
    saved = _permute_chunks(flat.reshape(form.chunks, form.side), work)
    if not form.tall:
        transpose_squares(squares)
    return saved


def _permute_chunks(chunks: np.ndarray, work: Segments) -> int:
    """The chunk permutation along the segments of `work`; returns the bytes of chunks it saved."""
    held = chunks[work.saved]  # a copy: the chunks that close cut cycles, taken before any moves
    if work.count:
        _move_chunks(chunks, work.table, work.order, held)
    return held.nbytes


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _columns(x, scratch, band, b, a, post):
    """y[i, j] = x[(phi(i) + r(j)) mod m, j]: phi(i) = s(i), r(j) = j if post; phi(i) = i, r(j) = j // b if not."""
    m, n = x.shape
    threads = scratch.shape[0]
    bands = (n + band - 1) // band
    for t in prange(threads):
        buf = scratch[t]
        shift = np.empty(band, np.int64)
        for band_index in range(t, bands, threads):
            j0 = band_index * band
            width = min(band, n - j0)
            r0 = j0 if post else j0 // b
            for jj in range(width):
                shift[jj] = ((j0 + jj if post else (j0 + jj) // b) - r0) % m
            for i in range(m):
                for jj in range(width):
                    buf[i * width + jj] = x[i, j0 + jj]
            for i in range(m):
                start = ((i * n - i // a) % m if post else i) + r0 % m
                for jj in range(width):
                    k = start + shift[jj]
                    while k >= m:
                        k -= m
                    x[i, j0 + jj] = buf[k * width + jj]


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _rows(x, scratch, c, b, a):
    """Row i's column u*b + v moves to column (c * (v*a mod b) + (i + u) mod m) mod n: the scatter form of
    ckg.row_source, walked so that the inner loop needs no division."""
    m, n = x.shape
    threads = scratch.shape[0]
    a_mod_b = a % b
    for t in prange(threads):
        buf = scratch[t]
        for i in range(t, m, threads):
            for j in range(n):
                buf[j] = x[i, j]
            for u in range(c):
                k = i + u
                if k >= m:
                    k -= m
                k %= n
                acc = 0  # v * a mod b
                for v in range(b):
                    dest = c * acc + k
                    if dest >= n:
                        dest -= n
                    x[i, dest] = buf[u * b + v]
                    acc += a_mod_b
                    if acc >= b:
                        acc -= b


def band_width(itemsize: int) -> int:
    """Columns per band: one 64-byte cache line of elements."""
    return max(1, 64 // itemsize)


def scratch_elements(rows: int, cols: int, itemsize: int, threads: int) -> int:
    return threads * max(rows * min(band_width(itemsize), cols), cols)


def transpose_matrix(x: np.ndarray, scratch: np.ndarray) -> None:
    """The three passes on one M x N matrix of words `x` (C-contiguous), with scratch of shape (threads, >= ...)."""
    m, n = x.shape
    d = Decomposition(m, n)
    band = min(band_width(x.itemsize), n)
    if d.rotates_first:
        _columns(x, scratch, band, d.b, d.a, False)
    _rows(x, scratch, d.c, d.b, d.a)
    _columns(x, scratch, band, d.b, d.a, True)


def transpose_batch(words: np.ndarray, small_bytes: int = SMALL_BYTES, blocks: bool = True) -> int:
    """Transpose each matrix of `words` (batch, M, N), C-contiguous, in place; the memory then holds (batch, N, M).
    The block, grid, peeled or trimmed form where one applies (`blocks`), else the three passes. Returns the
    scratch bytes it allocated.
    """
    count, m, n = words.shape
    matrix_bytes = m * n * words.itemsize
    if matrix_bytes <= small_bytes:
        return _through_scratch(words, max(1, small_bytes // max(matrix_bytes, 1)))
    size = words.itemsize
    direct = _chunked_form(m, n, size) if blocks else None
    if direct is not None:
        form, source, steps = direct
        work = _chunk_work(source(form), form.side * size)  # the same cycles for every matrix
        return max(steps(words[k], form, work) for k in range(count))
    peel = cpu_peel_form(m, n, size) if blocks else None
    if peel is not None:
        work = None if peel.front is None else _chunk_work(chunk_source(peel.front), peel.front.side * size)
        return max(peel_steps(words[k], peel, work) for k in range(count))
    trim = cpu_trim_form(m, n, size) if blocks else None
    if trim is not None:
        rest = _chunked_form(*trim.inner, size)
        form, source, _ = rest
        work = _chunk_work(source(form), form.side * size)
        return max(trim_steps(words[k], trim, rest, work) for k in range(count))
    threads = numba.get_num_threads()
    scratch = np.empty((threads, scratch_elements(m, n, words.itemsize, threads) // threads), words.dtype)
    for k in range(count):
        transpose_matrix(words[k], scratch)
    return scratch.nbytes


def _chunk_work(source: np.ndarray, chunk_bytes: int) -> Segments:
    """The segments of a chunk permutation: enough for every thread, at most SAVED_BYTES of saved chunks (or 64)."""
    wanted = max(64, numba.get_num_threads() * 16, SAVED_BYTES // chunk_bytes)
    return cut(source, min(wanted, 4096))


def _through_scratch(words: np.ndarray, per_chunk: int) -> int:
    count, m, n = words.shape
    chunk = min(per_chunk, count)
    scratch = np.empty((chunk, n, m), words.dtype)
    flat = words.reshape(count, m * n)
    for start in range(0, count, chunk):
        k = min(chunk, count - start)
        transpose_words(words[start:start + k], scratch[:k])
        flat[start:start + k] = scratch[:k].reshape(k, m * n)
    return scratch.nbytes
