"""The block form of the in-place transpose, for an M x N matrix where one side divides the other.

A tall matrix (M = k N) is k square N x N blocks one after another. Transposing each block in place leaves
block i's rows as N chunks of N elements, chunk (i, r) holding row r of the output's i-th column block; moving
chunk (i, r) to place r k + i (a permutation of whole chunks, cornerturn.cycles) lays them out as the N x M
transpose. A wide matrix (N = k M) takes the same two steps the other way round: chunks of M elements first
(row r's k pieces go to places i M + r, making k square blocks), then the blocks. Both steps read and write
each element once, in runs of at least a row, against three passes of scattered columns for the general
decomposition (cornerturn.ckg).

A matrix whose longer side is q times the shorter plus a few, r, rows (the peeled form, PeelForm) is the block
form of its first q x shorter rows and an edge of r rows. Tall (M = q N + r): the edge (the last r rows) is
saved, the first q N rows take the block form (leaving N rows of q N elements), each row j moves out to j M
(rows in descending order, so no row is overwritten before it is read), and the saved edge is written, transposed,
into the last r elements of every row. Wide (N = q M + r): the edge (the last r columns) is saved, rows close up
from N to q M elements (ascending), the M x q M front takes the block form, and the edge goes, transposed, into
the last r rows.

Where none of these fits, the trimmed form (Trim) sets the last few rows and columns aside so that the rest has
one: one_side_cuts and both_sides_cuts list the cuts to try.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class BlockForm(NamedTuple):
    """squares: how many square blocks, side: their side (the chunk length), tall: squares first, chunks after."""

    squares: int
    side: int
    tall: bool

    @property
    def chunks(self) -> int:
        return self.squares * self.side


def block_form(rows: int, cols: int) -> BlockForm | None:
    """The block form of a rows x cols matrix, or None when neither side divides the other or it is square."""
    if rows == cols:
        return None
    if rows % cols == 0:
        return BlockForm(rows // cols, cols, tall=True)
    if cols % rows == 0:
        return BlockForm(cols // rows, rows, tall=False)
    return None


def chunk_source(form: BlockForm) -> np.ndarray:
    """For each destination chunk, its source chunk. Tall: chunk r k + i takes chunk i N + r (the k x N matrix
    of chunks transposed); wide: chunk i M + r takes chunk r k + i."""
    k, side = form.squares, form.side
    d = np.arange(k * side, dtype=np.int64)
    if form.tall:
        return (d % k) * side + d // k
    return (d % side) * k + d // side


def transpose_reference(x: np.ndarray) -> np.ndarray:
    """The two steps in NumPy on a copy of 2-D `x` (one side dividing the other): the result equals x.T."""
    from .cycles import apply, segments

    m, n = x.shape
    form = block_form(m, n)
    if form is None:
        raise ValueError(f"{m} x {n} has no block form: neither side divides the other, or it is square")
    y = x.copy().reshape(-1)
    squares = y.reshape(form.squares, form.side, form.side)
    chunks = y.reshape(form.chunks, form.side)
    work = segments(chunk_source(form), 3)
    if form.tall:
        squares[:] = squares.swapaxes(1, 2).copy()
        apply(chunks, work)
    else:
        apply(chunks, work)
        squares[:] = squares.swapaxes(1, 2).copy()
    return y.reshape(n, m)


class GridForm(NamedTuple):
    """`down` x `across` squares of side `side` (the gcd of the sides), neither side dividing the other."""

    down: int
    across: int
    side: int

    @property
    def squares(self) -> int:
        return self.down * self.across

    @property
    def chunks(self) -> int:
        return self.squares * self.side


def grid_form(rows: int, cols: int) -> GridForm | None:
    """The grid form of a rows x cols matrix, or None when one side divides the other (block_form, or square) or
    the sides share no factor."""
    side = math.gcd(rows, cols)
    if side in (1, rows, cols):
        return None
    return GridForm(rows // side, cols // side, side)


def grid_source(form: GridForm) -> np.ndarray:
    """For each destination chunk, its source chunk: place (c g + u) k + b takes chunk (b g + u) q + c, for the
    k x q squares of side g (each already transposed where it lies)."""
    k, q, g = form.down, form.across, form.side
    d = np.arange(form.chunks, dtype=np.int64)
    b, row = d % k, d // k  # row c g + u of the output, its chunk b
    return (b * g + row % g) * q + row // g


def grid_reference(x: np.ndarray) -> np.ndarray:
    """The grid form's two steps in NumPy on a copy of 2-D `x`: the result equals x.T."""
    from .cycles import apply, segments

    m, n = x.shape
    form = grid_form(m, n)
    if form is None:
        raise ValueError(f"{m} x {n} has no grid form: one side divides the other, or they share no factor")
    y = x.copy().reshape(-1)
    squares = y.reshape(form.down, form.side, form.across, form.side)  # [b, u, c, v]: square (b, c), row u
    squares[:] = squares.transpose(0, 3, 2, 1).copy()
    apply(y.reshape(form.chunks, form.side), segments(grid_source(form), 3))
    return y.reshape(n, m)


class PeelForm(NamedTuple):
    """The front (rows x cols: its block form, None when it is square) and the edge of `edge` rows (tall) or
    columns (wide)."""

    front: BlockForm | None
    rows: int
    cols: int
    edge: int
    tall: bool


def peel_form(rows: int, cols: int) -> PeelForm | None:
    """The peeled form of a rows x cols matrix, or None when a side divides the other (block_form) or it is square."""
    short, long = sorted((rows, cols))
    edge = long % short
    if rows == cols or not edge:
        return None
    if rows > cols:
        front = rows - edge
        return PeelForm(block_form(front, cols), front, cols, edge, tall=True)
    front = cols - edge
    return PeelForm(block_form(rows, front), rows, front, edge, tall=False)


def peeled_reference(x: np.ndarray) -> np.ndarray:
    """The peeled form's steps in NumPy on a copy of 2-D `x` (flat buffer moves as the GPU makes them)."""
    m, n = x.shape
    form = peel_form(m, n)
    if form is None:
        raise ValueError(f"{m} x {n} has no peeled form")
    buf = x.copy().reshape(-1)
    fm, fn, r = form.rows, form.cols, form.edge
    if form.tall:
        edge = buf[fm * n:].reshape(r, n).copy()
        buf[:fm * n] = _front_transposed(buf[:fm * n].reshape(fm, fn))
        for j in reversed(range(n)):  # row j of fm elements out to j * m
            buf[j * m:j * m + fm] = buf[j * fm:(j + 1) * fm].copy()
        buf.reshape(n, m)[:, fm:] = edge.T
    else:
        edge = buf.reshape(m, n)[:, fn:].copy()
        for i in range(m):  # row i's first fn elements in to i * fn
            buf[i * fn:(i + 1) * fn] = buf[i * n:i * n + fn].copy()
        buf[:m * fn] = _front_transposed(buf[:m * fn].reshape(m, fn))
        buf[fn * m:] = edge.T.reshape(-1)
    return buf.reshape(n, m)


def _front_transposed(front: np.ndarray) -> np.ndarray:
    rows, cols = front.shape
    return (front.T if rows == cols else transpose_reference(front)).reshape(-1)


class Trim(NamedTuple):
    """The trimmed form: the last `rows` rows and the last `cols` columns of an M x N matrix set aside, so that the
    rest, `inner` = (M - rows) x (N - cols), has a form of its own."""

    rows: int
    cols: int
    inner: tuple[int, int]


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def one_side_cuts(m: int, n: int, min_side: int) -> list[Trim]:
    """The shorter side cut by short mod h for each divisor h (min_side <= h < short) of the longer one, the
    smallest edge first, so that the rest's sides share the factor h (float32 32768 x 12289 less one column is 8 x 3
    squares of 4096)."""
    short, long = min(m, n), max(m, n)
    edges = sorted({short % h for h in divisors(long) if min_side <= h < short} - {0})
    return [short_side_cut(m, n, e) for e in edges]


def short_side_cut(m: int, n: int, edge: int) -> Trim:
    """The last `edge` columns (tall) or rows (wide) of an M x N matrix set aside."""
    return Trim(0, edge, (m, n - edge)) if m > n else Trim(edge, 0, (m - edge, n))


def pass_speed(side_bytes: np.ndarray) -> np.ndarray:
    """The squares' and chunk cycles' speed, as a share of the copy, by the squares' row length: whole 128-byte
    lines, whole 16-byte runs, else; rows under 4 KiB a tenth slower. From the two-sided trimmed form on an H200:
    float32 squares of side 9984 at 93% of the copy and their chunks at 88%, of side 10000 at 76%; int8 squares of
    768 at 91% and 90%, of 3632 at 68% and 74% (docs/inplace.md)."""
    speed = np.where(side_bytes % 128 == 0, 0.93, np.where(side_bytes % 16 == 0, 0.78, 0.6))
    return speed * np.where(side_bytes < 4096, 0.9, 1.0)


def both_sides_cuts(m: int, n: int, itemsize: int, min_side: int, edge_bytes: int) -> list[Trim]:
    """Both sides cut to multiples of one g (min_side <= g < min(M, N)), M mod g rows and N mod g columns, so that the
    rest's sides share the factor gcd(M - rows, N - cols), a multiple of g; edges of at most `edge_bytes`; the cut
    of least estimated time first: four passes over the matrix at pass_speed of the rest's squares, and the edges
    moved twice at a third of the copy's speed (float32 30011 x 20011 less 59 rows and 43 columns is 3 x 2 squares
    of 9984)."""
    g = np.arange(max(2, min_side), min(m, n), dtype=np.int64)
    rows, cols = m % g, n % g
    edge = rows * n + cols * (m - rows)
    side = np.gcd(m - rows, n - cols)
    cost = 4 * m * n / pass_speed(side * itemsize) + 2 * edge / 0.3
    order = np.argsort(cost, kind="stable")
    order = order[edge[order] * itemsize <= edge_bytes]  # (with no cut where g divides both sides)
    return [Trim(int(rows[k]), int(cols[k]), (m - int(rows[k]), n - int(cols[k]))) for k in order]
