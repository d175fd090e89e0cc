"""The two sides of a general permutation's tile, for every backend.

A Permutation's fused axes are moved as machine words. A run that is contiguous on both sides (the output's last
axis where the input walks it with unit stride) is one wide element, split into words. The tile then spans two
sides: A, the output's innermost axes (its offsets in the output are the linear index: stores run along A), and
B, the input's fastest axes among the rest (loads run along B); every other axis indexes tiles (the rest).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .problem import Permutation

MAX_SIDE_AXES = 3  # axes fused into one side of the tile (cuTT's "packed" plans)


@dataclass(frozen=True)
class Axis:
    extent: int
    in_stride: int  # words
    out_stride: int  # words


@dataclass(frozen=True)
class Sides:
    """A tile's sides and the rest, each innermost first, in words of `word` bytes."""

    word: int
    a: tuple[Axis, ...]
    b: tuple[Axis, ...]
    rest: tuple[Axis, ...]

    @property
    def size_a(self) -> int:
        return math.prod(axis.extent for axis in self.a)

    @property
    def size_b(self) -> int:
        return math.prod(axis.extent for axis in self.b)

    @property
    def size_rest(self) -> int:
        return math.prod(axis.extent for axis in self.rest)


def chained(axes: tuple[Axis, ...]) -> bool:
    """Whether the axes (innermost first) lie end to end in the input: their offsets are then index x first stride."""
    return all(outer.in_stride == inner.in_stride * inner.extent for inner, outer in zip(axes, axes[1:]))


def segment_axes(b: tuple[Axis, ...]) -> int:
    """How many of B's leading axes lie end to end in the input (at least one): a row's segment."""
    n = 1
    while n < len(b) and chained(b[:n + 1]):
        n += 1
    return n


def segment_extent(axes: tuple[Axis, ...]) -> int:
    """Elements in the leading axes that lie end to end in the input (segment_axes): one segment."""
    return math.prod(x.extent for x in axes[:segment_axes(axes)])


def element_bytes(perm: Permutation) -> int:
    """Bytes that move as one unit: the element, or the run contiguous on both sides that the last axis makes."""
    if perm.in_strides[-1] == perm.itemsize:
        return perm.itemsize * perm.extents[-1]
    return perm.itemsize


def widest_word(perm: Permutation, *addresses: int, widest: int = 8) -> int:
    """The widest word (16, 8, 4, 2, 1 bytes, at most `widest`) dividing the unit, every stride and address."""
    unit = element_bytes(perm)
    strides = perm.in_strides[:-1] if unit != perm.itemsize else perm.in_strides  # the unit's own stride is inside it
    g = 0
    for v in (unit, *strides, *addresses):
        g = math.gcd(g, abs(int(v)))
    return next(w for w in (16, 8, 4, 2, 1) if w <= widest and g % w == 0)


def word_axes(perm: Permutation, word: int) -> list[Axis]:
    """The permutation's axes in words, in the output's order (outermost first): the unit's words last."""
    unit = element_bytes(perm)
    shared = unit != perm.itemsize
    extents = perm.extents[:-1] if shared else perm.extents
    in_strides = perm.in_strides[:-1] if shared else perm.in_strides
    words = unit // word
    axes, step = [], words
    for extent, stride in zip(reversed(extents), reversed(in_strides)):
        axes.append(Axis(extent, stride // word, step))
        step *= extent
    axes.reverse()
    if words > 1:
        axes.append(Axis(words, 1, 1))
    return axes


def input_run(axes: list[Axis]) -> list[int]:
    """The indices of the axes that lie end to end from the input's unit stride on, fastest first."""
    run: list[int] = []
    step = 1
    while True:
        nxt = next((i for i, x in enumerate(axes) if x.in_stride == step and i not in run), None)
        if nxt is None:
            return run
        run.append(nxt)
        step *= axes[nxt].extent


def _b_axes(axes: list[Axis], left: list[int], target: int) -> list[int]:
    """B's axes among those `left`: the input's fastest, in order of their strides, until B holds `target` words."""
    b: list[int] = []
    for i in sorted(left, key=lambda i: (abs(axes[i].in_stride), -i)):
        if len(b) == MAX_SIDE_AXES or (b and math.prod(axes[j].extent for j in b) >= target):
            break
        b.append(i)
    return b


def tile_use(extent: int, block: int) -> float:
    """The share of a side's tiles that holds elements: `extent` in tiles of `block` (at most the power of two at
    or above `extent`)."""
    block = min(block, 1 << max(0, int(extent - 1).bit_length()))
    return extent / (math.ceil(extent / block) * block)


def split(perm: Permutation, word: int, target: int, pack_bytes: int = 0, run_to_b: int = 0,
          fill_block: int = 0, fill: float = 0.0, third_axis: Callable[[int, int], bool] | None = None) -> Sides:
    """Sides of at least `target` words each where the axes allow: A takes the output's innermost axes until the
    next one is the input's fastest of those left; B the input's fastest axes left, in order of their strides.
    With `pack_bytes`, A goes on past the input's fastest axis where both A so far and that axis hold fewer bytes
    (packed: the output's runs are then A and the input's together, not A alone). With `run_to_b`, A stops, once it
    holds that many bytes, before an axis that continues the input's run from its unit stride while that run holds
    fewer than `target` words: B takes it, and its leading axes then lie end to end. With `fill`, A goes on to the
    output's next axes while tiles of `fill_block` words along it would hold less than that share of elements and
    the next axis raises the share (tile_use), where that axis is not one that B takes; with `third_axis`, a third
    axis only where third_axis(A's size, A's size with it) holds."""
    axes = word_axes(perm, word)
    run = input_run(axes) if run_to_b else []
    left = list(range(len(axes)))
    a: list[int] = []
    while left and len(a) < MAX_SIDE_AXES and math.prod(axes[i].extent for i in a) < target:
        candidate = left[-1]
        fastest = min(left, key=lambda i: (abs(axes[i].in_stride), -i))
        short = max(math.prod(axes[i].extent for i in a), axes[candidate].extent) * word < pack_bytes
        if a and ((candidate == fastest and not short) or len(left) == 1):  # B keeps at least one axis
            break
        if a and candidate in run[1:] and math.prod(axes[i].extent for i in a) * word >= run_to_b and \
                math.prod(axes[i].extent for i in run[:run.index(candidate)]) < target:
            break
        a.append(left.pop())
    while fill and a and len(a) < MAX_SIDE_AXES and len(left) > 1:
        size = math.prod(axes[i].extent for i in a)
        candidate = left[-1]
        grown = size * axes[candidate].extent
        if candidate in _b_axes(axes, left, target) or tile_use(size, fill_block) >= fill or \
                tile_use(grown, fill_block) <= tile_use(size, fill_block) or \
                (third_axis is not None and len(a) == 2 and not third_axis(size, grown)):
            break
        a.append(left.pop())
    b = _b_axes(axes, left, target)
    rest = [i for i in reversed(left) if i not in b]
    return Sides(word, tuple(axes[i] for i in a), tuple(axes[i] for i in b), tuple(axes[i] for i in rest))
