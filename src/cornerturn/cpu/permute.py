"""The CPU's general permutation: the tile's sides of cornerturn.tiling, moved by one Numba kernel.

Each side's offsets are tables computed once (A's input offsets, B's input and output offsets, the rest's two);
a task moves one BLOCK x BLOCK tile of one rest index in MICRO x MICRO micro tiles, the inner loop along A, so that
each output row of a micro tile is written as one contiguous run while the loads gather from MICRO input lines,
which stay in L1. Runs contiguous on both sides of RUN_BYTES and more are copied whole, in the output's order. Tasks
are shared among threads (prange). Small requests go to NumPy's strided copy.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from ..arrays import ArrayView, byte_range
from ..problem import Permutation
from ..tiling import Sides, element_bytes, split, widest_word

BLOCK = 32  # words a tile side
MICRO = 8  # words a micro tile side
SIDE_WORDS = 16  # each side of the tile gathers axes until it spans this many words
# 32 x 32 tiles of 8 x 8 micro tiles: 1.3 to 1.9 times plain 64 x 64 tiles (float32 256^3 by (2,1,0) 29% of the copy
# against 21%, 16^6 by (5,3,1,4,0,2) 37% against 19%, 64^4 by (3,1,2,0) 29% against 21%; 2-core machine, 2026-11-24)
NUMPY_MAX_ELEMENTS = 100 * 100  # NumPy's strided copy below this many elements (the tile kernels' threshold too)
# Runs contiguous on both sides of at least RUN_BYTES are copied whole (_runs): float32 53x1032x167 by (1,0,2), runs
# of 668 bytes, went from 9% of the copy in the tile kernel to 72%; 2-core machine, 2026-11-24
RUN_BYTES = 64


@dataclass(frozen=True)
class PermutePlan:
    name: str
    reason: str
    perm: Permutation
    sides: Sides | None  # None where NumPy runs it


def plan(perm: Permutation) -> PermutePlan:
    if perm.elements < NUMPY_MAX_ELEMENTS:
        return PermutePlan("numpy", f"{perm.elements} elements: NumPy's strided copy", perm, None)
    unit = element_bytes(perm)
    if unit >= RUN_BYTES:  # A is the unit alone: one run a row of the output
        sides = split(perm, widest_word(perm), 2)
        return PermutePlan("runs", f"runs of {unit} B contiguous on both sides, copied whole on all threads", perm,
                           sides)
    sides = split(perm, widest_word(perm), SIDE_WORDS)
    return PermutePlan("permute-tiles", f"general permutation: tile sides of {len(sides.a)} and {len(sides.b)} axes "
                       f"({sides.size_a} x {sides.size_b} words of {sides.word} B), {len(sides.rest)} more axes",
                       perm, sides)


def _table(axes, stride: str) -> np.ndarray:
    """Offsets (words) of every index of `axes` (innermost first), in the axes' own linear order."""
    offsets = np.zeros(1, np.int64)
    for axis in axes:
        offsets = (offsets[None, :] + np.arange(axis.extent, dtype=np.int64)[:, None] * getattr(axis, stride)).ravel()
    return offsets


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _permute(x, out, in_a, in_b, out_b, in_r, out_r, block):
    """out[out_r[r] + out_b[b] + a] = x[in_r[r] + in_b[b] + in_a[a]] for every r, b, a; tiles of block x block cut
    into MICRO x MICRO micro tiles (loads from MICRO input lines, stores along MICRO output lines)."""
    size_a, size_b = in_a.size, in_b.size
    tiles_a = (size_a + block - 1) // block
    tiles_b = (size_b + block - 1) // block
    per_rest = tiles_a * tiles_b
    for t in prange(in_r.size * per_rest):
        r = t // per_rest
        u = t - r * per_rest
        tb = u // tiles_a
        a0 = (u - tb * tiles_a) * block
        a1 = min(a0 + block, size_a)
        b0 = tb * block
        b1 = min(b0 + block, size_b)
        x_base = in_r[r]
        out_base = out_r[r]
        for bb in range(b0, b1, MICRO):
            be = min(bb + MICRO, b1)
            for aa in range(a0, a1, MICRO):
                ae = min(aa + MICRO, a1)
                for b in range(bb, be):
                    src = x_base + in_b[b]
                    dst = out_base + out_b[b]
                    for a in range(aa, ae):
                        out[dst + a] = x[src + in_a[a]]


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _runs(x, out, run, in_b, out_b, in_r, out_r):
    """out[out_r[r] + out_b[b] + k] = x[in_r[r] + in_b[b] + k] for k < run: A is one run contiguous on both sides.
    A task takes one b and walks the rest in order, whose first axis is the output's next after A: its runs are
    written one after another."""
    for b in prange(in_b.size):
        src_b = in_b[b]
        dst_b = out_b[b]
        for r in range(in_r.size):
            src = in_r[r] + src_b
            dst = out_r[r] + dst_b
            for k in range(run):
                out[dst + k] = x[src + k]


@functools.lru_cache(maxsize=64)
def _tables(plan: PermutePlan):
    """The offset tables of a plan's sides, the rest's input offsets counted from the input's lowest address."""
    perm, sides = plan.perm, plan.sides
    lo, _ = byte_range(perm.extents, perm.in_strides, perm.itemsize)
    return (_table(sides.a, "in_stride"), _table(sides.b, "in_stride"), _table(sides.b, "out_stride"),
            _table(sides.rest, "in_stride") - lo // sides.word, _table(sides.rest, "out_stride"))


def run(plan: PermutePlan, x: ArrayView, out: ArrayView) -> None:
    perm = plan.perm
    if plan.sides is None:
        source = x.host_words(perm.extents, perm.in_strides, 0, perm.itemsize)
        np.copyto(out.host_words(perm.extents, perm.out_strides, 0, perm.itemsize), source)
        return
    word = plan.sides.word
    lo, hi = byte_range(perm.extents, perm.in_strides, perm.itemsize)
    flat = x.host_words((math.ceil((hi - lo) / word),), (word,), lo, word)
    out_words = out.host_words((perm.elements * perm.itemsize // word,), (word,), 0, word)
    in_a, in_b, out_b, in_r, out_r = _tables(plan)
    if plan.name == "runs":  # A is the unit alone: its input offsets are 0 to run - 1
        _runs(flat, out_words, in_a.size, in_b, out_b, in_r, out_r)
        return
    _permute(flat, out_words, in_a, in_b, out_b, in_r, out_r, BLOCK)
