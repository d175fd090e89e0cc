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
