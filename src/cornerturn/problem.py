"""Canonical form of a transpose request: what memory moves where, with everything fusable fused.

`x` of shape (..., M, N) with byte strides goes to a C-contiguous (..., N, M). Two requests that move memory the
same way get equal `Problem`s, hence one plan: fp16 and int16 are both 2-byte words; leading axes of extent 1
vanish; batch axes that are contiguous with each other merge; a batch axis laid out right after the columns
joins the columns (the request is then one wider matrix); a request that is a copy in disguise (one row, one
column, or an input whose rows are already contiguous in the output's order) becomes a copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .arrays import contiguous_strides

Kind = Literal["empty", "copy", "transpose"]


@dataclass(frozen=True)
class Problem:
    """A batch of strided matrices, each transposed into a C-contiguous output.

    kind "transpose": out[b..., j, i] = x[b..., i, j] for i < rows, j < cols, the input element at
    sum(b * batch_strides) + i * row_stride + j * col_stride bytes from its first element.
    kind "copy": out[b..., k] = x[b..., k] for k < cols (rows == 1), the input at
    sum(b * batch_strides) + k * col_stride.
    Output offsets are C-order over (batch..., cols, rows) or (batch..., cols) respectively.
    """

    kind: Kind
    batch: tuple[int, ...]
    batch_strides: tuple[int, ...]
    rows: int
    cols: int
    row_stride: int
    col_stride: int
    itemsize: int

    @property
    def key(self) -> tuple:
        """The plan-cache key: equal for requests that move memory the same way."""
        return (self.kind, self.batch, self.batch_strides, self.rows, self.cols, self.row_stride,
                self.col_stride, self.itemsize)

    @property
    def batch_count(self) -> int:
        count = 1
        for extent in self.batch:
            count *= extent
        return count

    @property
    def elements(self) -> int:
        return self.batch_count * self.rows * self.cols

    @property
    def bytes_moved(self) -> int:
        """Bytes read plus bytes written."""
        return 2 * self.elements * self.itemsize

    def describe(self) -> str:
        batch = "x".join(map(str, self.batch)) + " x " if self.batch else ""
        if self.kind == "copy":
            return f"copy of {batch}{self.cols} elements of {self.itemsize} B (stride {self.col_stride} B)"
        if self.kind == "empty":
            return "empty"
        return (f"transpose of {batch}{self.rows}x{self.cols}, {self.itemsize}-byte elements, "
                f"strides {self.row_stride}/{self.col_stride} B")


def _fuse(dims: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop extent-1 axes and merge (extent, stride) pairs, outer to inner, that walk memory as one axis."""
    fused: list[tuple[int, int]] = []
    for extent, stride in dims:
        if extent == 1:
            continue
        if fused and fused[-1][1] == stride * extent:
            outer_extent, _ = fused.pop()
            fused.append((outer_extent * extent, stride))
        else:
            fused.append((extent, stride))
    return fused


def _copy(dims: list[tuple[int, int]], itemsize: int) -> Problem:
    fused = _fuse(dims) or [(1, itemsize)]
    *batch, (cols, col_stride) = fused
    return Problem("copy", tuple(e for e, _ in batch), tuple(s for _, s in batch), 1, cols, 0, col_stride,
                   itemsize)


def canonical(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> Problem:
    """The canonical problem for transposing the last two axes of an array of `shape` and byte `strides`."""
    if len(shape) < 2 or len(shape) != len(strides):
        raise ValueError(f"need ndim >= 2 and one stride per axis, got shape {shape} strides {strides}")
    if 0 in shape:
        return Problem("empty", (), (), 0, 0, 0, 0, itemsize)
    *batch_extents, rows, cols = shape
    *batch_strides, row_stride, col_stride = strides
    batch = list(zip(batch_extents, batch_strides))
    if rows == 1:
        return _copy([*batch, (cols, col_stride)], itemsize)
    if cols == 1:
        return _copy([*batch, (rows, row_stride)], itemsize)
    if row_stride == itemsize:
        # the input's columns are contiguous: out[..., j, :] is a contiguous run read from a contiguous run
        return _copy([*batch, (cols, col_stride), (rows, row_stride)], itemsize)
    batch = _fuse(batch)
    # a batch axis whose stride continues the columns joins them: (B, M, N) -> (M, B*N)
    while batch and batch[-1][1] == cols * col_stride:
        extent, _ = batch.pop()
        cols *= extent
    return Problem("transpose", tuple(e for e, _ in batch), tuple(s for _, s in batch), rows, cols,
                   row_stride, col_stride, itemsize)


# A permutation of axes (permute_dims) is planned the same way. In the output's order, axes of extent 1 vanish and
# neighbours that are also neighbours, in order, in the input fuse. What is left is a two-axis transpose (a
# Problem) when only two axes remain, or when the input's fastest axis is one of the output's last two and at most
# one batch axis remains; else a general permutation of the fused axes. The engines walk a Problem's further batch
# axes one launch (CPU: one call) at a time, and such Problems ran at 13% (float32 197x9x49x15x39 by (3,2,4,0,1))
# and 71% (int64 183x334x9x67 by (2,0,1,3)) of the copy on an H100, 2026-11-24 (docs/permute.md): those go to
# the general kernel, which walks every axis in one launch.


@dataclass(frozen=True)
class Permutation:
    """out[i_0, ..., i_k] = x at sum(i_a * in_strides[a]) bytes, for a C-contiguous out of shape `extents`: the
    fused axes of a permutation, in the output's order (three or more, none of extent 1)."""

    extents: tuple[int, ...]
    in_strides: tuple[int, ...]
    itemsize: int
    kind: str = "permute"

    @property
    def key(self) -> tuple:
        return (self.kind, self.extents, self.in_strides, self.itemsize)

    @property
    def out_strides(self) -> tuple[int, ...]:
        return contiguous_strides(self.extents, self.itemsize)

    @property
    def elements(self) -> int:
        return math.prod(self.extents)

    @property
    def bytes_moved(self) -> int:
        return 2 * self.elements * self.itemsize

    def describe(self) -> str:
        return (f"permutation of {len(self.extents)} fused axes {'x'.join(map(str, self.extents))} (output order), "
                f"{self.itemsize}-byte elements, input strides {'/'.join(map(str, self.in_strides))} B")


def check_axes(axes, ndim: int, argument: str = "axes") -> tuple[int, ...]:
    """`axes` as a tuple of ints in range(ndim) (negatives count from the end); raises unless it is a permutation of
    range(ndim)."""
    try:
        given = tuple(axes)
    except TypeError:
        raise TypeError(f"{argument}: expected a sequence of {ndim} ints, got {axes!r}") from None
    if any(isinstance(a, bool) or not hasattr(a, "__index__") for a in given):
        raise TypeError(f"{argument}: expected ints, got {given!r}")
    given = tuple(a.__index__() for a in given)
    if len(given) != ndim:
        raise ValueError(f"{argument}: {given} has {len(given)} entries; x has {ndim} axes, so it must be a "
                         f"permutation of {tuple(range(ndim))}")
    normal = tuple(a + ndim if a < 0 else a for a in given)
    if any(a < 0 or a >= ndim for a in normal) or len(set(normal)) != ndim:
        raise ValueError(f"{argument}: {given} is not a permutation of {tuple(range(ndim))} (each axis once, -{ndim} "
                         f"to {ndim - 1})")
    return normal


def canonical_permutation(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int,
                          axes: tuple[int, ...]) -> Problem | Permutation:
    """The canonical form of permuting the axes of an array of `shape` and byte `strides` into a C-contiguous
    output of shape [shape[a] for a in axes]: a Problem (empty, copy or batched transpose) where the request is one,
    else a Permutation of the fused axes."""
    if len(shape) != len(strides):
        raise ValueError(f"need one stride per axis, got shape {shape} strides {strides}")
    axes = check_axes(axes, len(shape))
    if 0 in shape:
        return Problem("empty", (), (), 0, 0, 0, 0, itemsize)
    fused = _fuse([(shape[a], strides[a]) for a in axes]) or [(1, itemsize)]
    if len(fused) == 1:
        return _copy(fused, itemsize)
    # the output's last two axes swapped: transposing that view's last two axes is the permutation
    view = [*fused[:-2], fused[-1], fused[-2]]
    problem = canonical(tuple(e for e, _ in view), tuple(s for _, s in view), itemsize)
    fastest = min(abs(s) for _, s in fused)
    tile_fast = problem.kind != "transpose" or abs(problem.col_stride) <= fastest
    if len(fused) == 2 or (tile_fast and len(problem.batch) <= 1):
        return problem
    return Permutation(tuple(e for e, _ in fused), tuple(s for _, s in fused), itemsize)
