"""The decomposition of Catanzaro, Keller and Garland (PPoPP 2014) for transposing an M x N matrix in place.

The buffer is viewed as an M x N row-major matrix throughout, and the transpose becomes three gathers, each of
which moves elements only within a column or only within a row (so each needs O(max(M, N)) scratch):

1. columns rotate (only when c = gcd(M, N) > 1):     y[i, j] = x[(i + j // b) mod M, j]
2. each row is shuffled:                             y[i, j] = x[i, row_source(i, j)]
3. each column is rotated, then rows are permuted:   y[i, j] = x[(s(i) + j) mod M, j],  s(i) = (i N - i // a) mod M

with a = M / c, b = N / c. Afterwards the buffer holds the N x M transpose. The forms here are gathers (each output
element names its source), so every pass writes whole rows or columns in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Decomposition:
    """The constants of the three passes for an M x N matrix."""

    rows: int
    cols: int

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise ValueError(f"need a matrix of at least 1 x 1, got {self.rows} x {self.cols}")

    @property
    def c(self) -> int:
        return math.gcd(self.rows, self.cols)

    @property
    def a(self) -> int:
        return self.rows // self.c

    @property
    def b(self) -> int:
        return self.cols // self.c

    @property
    def a_inverse(self) -> int:
        """a^-1 modulo b (a and b are coprime); 0 when b == 1."""
        return pow(self.a, -1, self.b) if self.b > 1 else 0

    @property
    def rotates_first(self) -> bool:
        return self.c > 1


def row_source(d: Decomposition, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Pass 2: the column of row i that moves to column j (NumPy, any broadcastable integer arrays)."""
    m, n, c = d.rows, d.cols, d.c
    u = (j - i) % c
    k = (i + u) % m
    w = ((j - k) % n) // c
    return u * d.b + (w * d.a_inverse) % d.b


def row_permutation(d: Decomposition, i: np.ndarray) -> np.ndarray:
    """Pass 3's row permutation s(i)."""
    return (i * d.cols - i // d.a) % d.rows


def transpose_reference(x: np.ndarray) -> np.ndarray:
    """The three passes in NumPy on a copy of 2-D `x`: the result, shaped N x M, equals x.T."""
    m, n = x.shape
    d = Decomposition(m, n)
    i = np.arange(m, dtype=np.int64)[:, None]
    j = np.arange(n, dtype=np.int64)[None, :]
    y = x.copy()
    if d.rotates_first:
        y = y[(i + j // d.b) % m, j]
    y = y[i, row_source(d, i, j)]
    y = y[(row_permutation(d, i) + j) % m, j]
    return y.reshape(n, m)
