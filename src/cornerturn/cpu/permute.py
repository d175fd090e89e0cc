"""The CPU's general permutation: three Numba kernels over offset tables, chosen by the unit that moves.

permute-plane (the unit is a host word of 1 to 16 bytes): a task moves one tile of the plane spanned by the output's
innermost axis (a: stored contiguously, loaded with one stride) and B, the input's fastest other axes (b: offsets
from a table, consecutive in the input), for one index of every other axis, in micro tiles whose sides are
compile-time constants, or for words of 1 to 4 bytes in blocks transposed in vector registers; the innermost loop
reads no table. Where the output's innermost axis has fewer than PLANE_MIN_A elements, a is the next output axis and
each step along it moves that short axis whole (its extent a compile-time constant too); so too, for 2- and 4-byte
words, where that axis is short in bytes (PLANE_NEXT_MAX_BYTES) and B does not hold the next output axis.
permute-tiles (units under NARROW_RUN_BYTES that are not one host word, such as 6 or 12 bytes): both sides of the
tile from tables.
runs (a unit contiguous on both sides of RUN_BYTES or more, or of NARROW_RUN_BYTES or more that is not one host word):
tiles of runs, B's runs against the output's next axis, each run copied whole (a memcpy of constant length inline
where runs are short, a loop of vector moves where they are longer, non-temporal stores where they are streamed).
Every index is unsigned, so Numba adds no negative-index fix-up to the loops. Tasks are shared among threads
(prange). Small requests go to NumPy.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types, uint64
from numba.core import cgutils
from numba.extending import intrinsic

from ..arrays import ArrayView, byte_range
from ..problem import Permutation
from ..tiling import Axis, Sides, element_bytes, segment_extent, split, widest_word, word_axes
from .nontemporal import STREAM_BYTES, STREAM_HOST, element_pointers, run_stream, store_fence
from .planner import NUMPY_MAX_ELEMENTS  # NumPy's strided copy below this many elements, as for the transpose
from .vectors import (
    block_rows,
    block_rows_some,
    block_side,
    gathered_rows,
    gathered_rows_some,
    half_rows,
    half_rows_some,
)

# permute-tiles: 32 x 32 tiles of 8 x 8 micro tiles, each side gathering axes until it spans SIDE_WORDS words
BLOCK, MICRO, SIDE_WORDS = 32, 8, 16
# Runs contiguous on both sides of at least RUN_BYTES are copied whole, up to RUN_TILE x RUN_TILE runs a tile
RUN_BYTES, RUN_TILE = 64, 16
# ... and so are runs of NARROW_RUN_BYTES or more that are not one host word: where the widest word dividing the run
# and the strides is under 8 bytes (the table kernel would move them in 1-, 2- or 4-byte words), or longer than
# PLANE_UNIT_BYTES in 8-byte words. Against the table kernel on 30 cases with such runs (2-core Intel Xeon,
# 2026-11-25, docs/permute.md): 1-byte words 3.9x-8.5x (9 cases), 2-byte 1.1x-4.5x (6; runs of 14 bytes 0.90x, 2),
# 4-byte 1.1x-2.2x (5); on 20 fresh cases the 14 it moves ran 1.11x-5.53x. 8-byte words read 0.72x-1.31x (8) then;
# since runs of up to 256 B copy with a constant length, runs of 24-56 B in 8-byte words ran at 1.31x-3.13x (13) and
# 1.46x-3.49x (16 of a seed drawn after; torch ahead of the tables on 10, of the runs on none), 16-byte ones, which
# the plane moves as one word, 0.85x-1.10x (3; 2-core AMD EPYC, 2026-12-04, docs/permute.md)
NARROW_RUN_BYTES, PLANE_UNIT_BYTES = 16, 16
# Where the runs kernel's tiles give fewer than RUN_TASKS_PER_THREAD tasks a thread, each run is cut into pieces (of
# RUN_PIECE_MIN bytes or more) that tasks share: float32 11x6x73x340x19 by (1,0,2,3,4), six runs of 1.9 MB, was one
# task on one thread (docs/permute.md)
RUN_TASKS_PER_THREAD, RUN_PIECE_MIN = 4, 16384
# Runs of up to RUN_INLINE_BYTES are each a memcpy of constant length (one kernel compiled for each length), which the
# compiler expands inline, instead of a call a run: 1.13x and 1.15x in geometric mean over 24 random permutations
# each of two seeds with runs of 16-512 bytes, 1.11x-1.34x by band up to 256 bytes, 0.99x-1.02x above (AMD EPYC,
# 2 cores, 2026-11-28, docs/permute.md, "Runs of constant length")
RUN_INLINE_BYTES = 256
# Units of the output's innermost axis from which it is the plane's side a, by word; below, it moves whole at each
# step along the next output axis. 8-byte words: 32, so that each b's output run is 256 B or more (docs/permute.md,
# "8-byte planes")
PLANE_MIN_A = {1: 8, 2: 8, 4: 8, 8: 32, 16: 8}
PLANE_COMPILED_SHORT = 8  # short axes under this many units are compile-time constants of the kernel
PLANE_MIN_B = 64  # B gathers the input's fastest axes (at most three) until it has this many elements


@dataclass(frozen=True)
class PlaneShape:
    """A permute-plane tile: `tile` x `tile` units, in micro tiles of micro_a (along the output) x micro_b."""

    tile: int
    micro_a: int
    micro_b: int

    def __post_init__(self) -> None:
        for name in ("tile", "micro_a", "micro_b"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"PlaneShape.{name}: a positive int, got {value!r}")
        if self.tile % self.micro_a or self.tile % self.micro_b:
            raise ValueError(f"PlaneShape: micro tiles {self.micro_a} x {self.micro_b} must divide the tile "
                             f"{self.tile}")


# Tiles per unit size, from random permutations on a 2-core machine (2026-11-24, scripts/cpu_permute_sweep.py at
# commit a81fa8e, seeds 303 and 404; docs/permute.md): 128 x 128 in 8 x 8 micro tiles with B of 64
# elements, against torch 2.5x (1 B), 3.3x (2 B), 1.25x (4 B) in geometric mean on seed 404; 16-byte units 64 x 64
# in 4 x 8 micro tiles (1.15x, 8 x 8 micro tiles 0.96x). 8-byte words: micro tiles of 4 a's by one b, with short
# axes under 32 units, 1.10x-1.30x the 8 x 8 of before on fresh seeds (2-core AMD EPYC, 2026-11-28; docs/permute.md,
# "8-byte planes"); the same for 16-byte words was level there (1.00x)
PLANE_SHAPES = {1: PlaneShape(128, 8, 8), 2: PlaneShape(128, 8, 8), 4: PlaneShape(128, 8, 8),
                8: PlaneShape(128, 4, 1), 16: PlaneShape(64, 4, 8)}


@dataclass(frozen=True)
class PlaneSides:
    """The plane's axes in units of `word` bytes: a (the output's innermost, or the next where that one is short),
    B (innermost first), the others (the output's innermost first); `short`, where the output's innermost axis has
    fewer than PLANE_MIN_A elements, is that axis, moved whole inside each step along a."""

    word: int
    a: Axis
    b: tuple[Axis, ...]
    others: tuple[Axis, ...]
    short: Axis | None = None


@dataclass(frozen=True)
class PermutePlan:
    name: str
    reason: str
    perm: Permutation
    sides: Sides | PlaneSides | None  # None where NumPy runs it


def plane_sides(perm: Permutation, fold_next: bool | None = None) -> PlaneSides | None:
    """The plane of permute-plane where the unit is one host word (1, 2, 4, 8 or 16 bytes dividing every stride),
    with the output's innermost axis as `short` where it has fewer than PLANE_MIN_A elements, or where the output's
    next axis is not in B and `fold_next` says so (None: PLANE_NEXT, for an innermost axis of up to
    PLANE_NEXT_MAX_BYTES), both axes together up to PLANE_NEXT_MAX_ROWS: a is then that next axis, and the output's
    rows along a * ns + k are written whole; else None."""
    unit = element_bytes(perm)
    if widest_word(perm, widest=16) != unit:  # the unit is a word of at most 16 bytes dividing every stride
        return None
    axes = word_axes(perm, unit)
    short = None
    if axes[-1].extent < PLANE_MIN_A[unit]:  # a short innermost axis rides inside each step along the next one
        if len(axes) < 3:
            return None
        short, axes = axes[-1], axes[:-1]
    a = axes[-1]
    left = sorted(range(len(axes) - 1), key=lambda i: abs(axes[i].in_stride))
    b: list[int] = []
    while left and len(b) < 3 and math.prod(axes[i].extent for i in b) < PLANE_MIN_B:
        b.append(left.pop(0))
    others = [axes[i] for i in reversed(range(len(axes) - 1)) if i not in b]
    if fold_next is None:
        fold_next = PLANE_NEXT and a.extent * unit <= PLANE_NEXT_MAX_BYTES.get(unit, 0)
    if (fold_next and short is None and len(axes) >= 3 and len(axes) - 2 not in b
            and a.extent * others[0].extent <= PLANE_NEXT_MAX_ROWS):
        short, a = a, others.pop(0)  # others[0] is the output's next axis
    return PlaneSides(unit, a, tuple(axes[i] for i in b), tuple(others), short)


# Where the output's innermost axis holds up to PLANE_NEXT_MAX_BYTES (by word) and the output's next axis is not in B,
# the plane's side a is that next axis, the innermost axis riding inside each step as a short one does, so that a tile
# writes the output's rows of a * ns + k whole; a tile spans about PLANE_NEXT_SPAN of those units along a * ns + k.
# Against the plane with a the innermost axis, forced on every word over 80 random permutations of seeds 20001-20003:
# 2- and 4-byte words up to 128 and 768 B 1.42x in geometric mean (29 cases, 0.72x-2.60x); 8- and 16-byte words
# 1.13x and 1.03x, bytes 1.28x but 0.68x-2.2x, and 1.03x (0.49x-1.65x) on the 9 of seed 20011, so they keep the plane.
# On the fresh seeds 20011 (its 15 2- and 4-byte cases), 20012 (24) and 20301 (20): 1.51x, 1.30x and 1.63x, 1 of 59
# behind by more than 2% (0.87x), torch ahead of 6 before and 1 after; tiles of 1,024 units level with 512, of 256
# behind (2-core AMD EPYC, 2026-12-06, docs/permute.md, "The output's next axis in the plane"). PLANE_NEXT off: never
# (for measuring)
PLANE_NEXT = True
PLANE_NEXT_MAX_BYTES = {2: 128, 4: 768}
PLANE_NEXT_SPAN = 512
# ... and where the table of input offsets along a * ns + k (short_rows: 8 bytes a unit, kept with the plan) holds up to
# this many: 8 MiB; the cases measured held up to 250,000
PLANE_NEXT_MAX_ROWS = 1 << 20


def plane_tile_a(sides: PlaneSides, tile: int) -> int:
    """The a's a plane's tile spans: `tile`, or where a short axis of PLANE_MIN_A units or more rides inside each a
    (plane_sides' fold_next), enough a's for PLANE_NEXT_SPAN units."""
    if sides.short is None or sides.short.extent < PLANE_MIN_A[sides.word]:
        return tile
    return max(1, PLANE_NEXT_SPAN // sides.short.extent)


# Words whose planes move in vector blocks: against element by element, 1.31x-3.59x for 1-, 2- and 4-byte words on 24
# of 25 random permutations (one float32 case 0.73x), 0.92x-1.08x for 8-byte words (2 x 2 blocks; 5 cases); 2-core
# Intel Xeon, 2026-11-25, docs/permute.md
PLANE_VECTOR_WORDS = (1, 2, 4)


def plane_run(sides: PlaneSides) -> int:
    """How many of B's indices in a row are neighbours in the input (B's first axes that lie end to end from a unit
    stride), where the plane moves vector blocks (words of PLANE_VECTOR_WORDS; with a short axis, where
    PLANE_SHORT_BLOCKS); else 0."""
    if sides.word not in PLANE_VECTOR_WORDS or sides.b[0].in_stride != 1:
        return 0
    if sides.short is not None and not PLANE_SHORT_BLOCKS:
        return 0
    return segment_extent(sides.b)


# Planes with a short axis (the output's innermost under PLANE_MIN_A) move in blocks too, along the output's
# contiguous index j = a * ns + k, each block's input rows gathered from a table of j's offsets (vectors.gathered_rows):
# in words of 1, 2 and 4 bytes 1.78x and 1.91x element by element in geometric mean over 16 random permutations each
# of two seeds (1.06x-4.81x, then 0.90x-3.18x), torch ahead on 1 and 3 of them before, on none after (2-core AMD EPYC,
# 2026-12-04, docs/permute.md, "Short output axes in gathered blocks")
PLANE_SHORT_BLOCKS = True


def short_rows(sides: PlaneSides) -> np.ndarray:
    """The input offsets (words) of j = a * ns + k for every a and k of a plane with a short axis: a * sa + k * ss."""
    a, k = sides.a, sides.short
    return (np.arange(a.extent, dtype=np.int64)[:, None] * a.in_stride
            + np.arange(k.extent, dtype=np.int64)[None, :] * k.in_stride).ravel()


def plan(perm: Permutation) -> PermutePlan:
    if perm.elements < NUMPY_MAX_ELEMENTS:
        return PermutePlan("numpy", f"{perm.elements} elements: NumPy's strided copy", perm, None)
    unit, word = element_bytes(perm), widest_word(perm)
    # the only unit of NARROW_RUN_BYTES or more that is one host word of the plane's is PLANE_UNIT_BYTES in 8-byte
    # words (16 bytes dividing every stride make `word` 8), so the two kinds of runs go first together
    if unit >= RUN_BYTES or (unit >= NARROW_RUN_BYTES and unit != perm.itemsize
                             and (word < 8 or unit > PLANE_UNIT_BYTES)):
        # A is the unit alone: one run a row of the output
        streamed = (", streamed into an output at a 16-byte boundary" if streams_runs(perm) else
                    ", each in 64-byte vector moves" if RUN_VECTORS and unit > RUN_INLINE_BYTES else "")
        return PermutePlan("runs", f"runs of {unit} B contiguous on both sides ({word}-byte words), tiles of "
                           f"up to {RUN_TILE} x {RUN_TILE} runs, each side cut into equal tiles, on all "
                           f"threads{streamed}", perm, split(perm, word, 2))
    plane = plane_sides(perm)
    if plane is not None:
        inner = f" (each step {plane.short.extent} units of the output's innermost axis)" if plane.short else ""
        return PermutePlan("permute-plane", f"general permutation: planes of {plane.a.extent}{inner} x "
                           f"{math.prod(x.extent for x in plane.b)} units of {plane.word} B ({len(plane.b)} input "
                           f"axes), {len(plane.others)} more axes", perm, plane)
    sides = split(perm, word, SIDE_WORDS)
    return PermutePlan("permute-tiles", f"general permutation: tile sides of {len(sides.a)} and {len(sides.b)} axes "
                       f"({sides.size_a} x {sides.size_b} words of {sides.word} B), {len(sides.rest)} more axes",
                       perm, sides)


def _table(axes, stride: str) -> np.ndarray:
    """Offsets (words) of every index of `axes` (innermost first), in the axes' own linear order."""
    offsets = np.zeros(1, np.int64)
    for axis in axes:
        offsets = (offsets[None, :] + np.arange(axis.extent, dtype=np.int64)[:, None] * getattr(axis, stride)).ravel()
    return offsets


# Pieces of B of fewer than n input neighbours (n the block side), and at least n / PLANE_SOME_SHARE of them, move in
# blocks too: each row loads n elements (reading past the piece, inside x) and only the piece's rows are stored. On
# random permutations whose B runs are under a block (the input's innermost axis short, 3-15 bytes; 2-core AMD EPYC,
# 2026-12-04, docs/permute.md, "Short input runs in vector blocks"): a quarter block or more 1.95x and 2.10x element
# by element in geometric mean over 14 and 16 cases of two seeds (1.37x-3.99x on the second), torch ahead on 4 and 4
# before, on none after; half a block or more 1.82x (runs of bytes under 8 and 2-byte ones under 4 stayed behind)
PLANE_SOME_SHARE = 4


def plane_some_min(side: int) -> int:
    """The fewest input neighbours a piece of B needs to move in vector blocks of `side` (0: none, PLANE_SOME_SHARE
    0), where it has fewer than `side`."""
    return max(1, side // PLANE_SOME_SHARE) if PLANE_SOME_SHARE else 0


# Planes of bytes whose side a (along the output) is 8 to 15, under a block of 16, move in blocks of 8 x 8 bytes (rows
# of 8 bytes) instead of element by element: 1.70x and 1.87x in geometric mean over 16 random permutations each of two
# seeds (0.89x-2.70x, then 1.04x-2.75x; a of 9, two blocks that overlap by 7, the least), torch ahead on 1 and 2 of
# them before, on none after (2-core AMD EPYC, 2026-12-04, docs/permute.md, "Half blocks of bytes")
PLANE_HALF_BLOCKS = True


def plane_block(word: int, a: int, halves: bool = True) -> tuple[int, bool]:
    """The side of the plane's vector blocks for words of `word` bytes and a side a of `a` words, and whether they
    are half blocks (rows of 8 bytes): block_side, or for bytes with a of 8 to 15 (PLANE_HALF_BLOCKS, where `halves`)
    8; 0 where a is under a block."""
    side = block_side(word)
    if a >= side:
        return side, False
    if PLANE_HALF_BLOCKS and halves and word == 1 and a >= side // 2:
        return side // 2, True
    return 0, False


@functools.cache
def plane_kernel(micro_a: int, micro_b: int, short: int = 1, vector: int = 0, some: int = 0, half: bool = False,
                 gather: bool = False):
    """kernel(x, out, na, sa, ns, ss, in_b, out_b, in_o, out_o, tile_a, tile_b, run_b, in_j, j_max):
    out[out_o[o] + out_b[b] + a * ns + k] = x[in_o[o] + in_b[b] + a * sa + k * ss] for every o, b, a < na and k < ns;
    micro tiles of micro_a a's (stored
    along the output) by micro_b b's (loaded along the input). micro_a, micro_b and `short` (ns, the extent of a short
    innermost output axis moved whole at each a, 1 where there is none) are compile-time constants; `short` 0 reads
    ns from the argument instead (one kernel for every extent of PLANE_COMPILED_SHORT or more). With `vector`
    (n, the block side of x's word: vectors.block_side), tiles of n a's or more move in n x n blocks through the
    vector registers (vectors.block_rows): the tile's b's are cut where runs of `run_b` b's that are neighbours in the
    input (in_b[b] + 1 = in_b[b + 1]) end, and each piece of n or more moves in blocks, the last of which overlaps
    the one before it rather than leaving a remnant (writing an element twice writes the same bits), as do the
    last blocks along a; shorter pieces of `some` b's or more (0: none) move in blocks that store only their rows
    (vectors.block_rows_some) where every row's n elements lie inside x, and the rest element by element. With
    `half`, the blocks' rows are 8 bytes (vectors.half_rows: n = 8 for bytes) instead of 16. With `gather` (a short
    axis), the blocks run along j = a * ns + k, the output's contiguous index, their input rows at in_j[j] (a * sa +
    k * ss; j_max the largest) past each piece's first b (vectors.gathered_rows)."""
    U, V, S, N = micro_a, micro_b, short, vector
    P = some if some and some < vector else 0
    LOW = P if P else N
    rows_of, some_rows_of = (half_rows, half_rows_some) if half else (block_rows, block_rows_some)
    G = gather and N > 0

    @numba.njit(inline="always")
    def move(x, out, src, dst, a, step, step_k, ns):
        n = uint64(S) if S else ns
        at = dst + uint64(a) * n
        base = src + uint64(a) * step
        for k in range(n):
            out[at + uint64(k)] = x[base + uint64(k) * step_k]

    @numba.njit(inline="always")
    def micro_tiles(x, out, x_o, out_o, in_b, out_b, a0, a1, b0, b1, step, step_k, ns):
        a_full = a0 + (a1 - a0) // U * U
        b_full = b0 + (b1 - b0) // V * V
        for bb in range(b0, b_full, V):
            for aa in range(a0, a_full, U):
                for b in range(bb, bb + V):
                    src = x_o + uint64(in_b[b])
                    dst = out_o + uint64(out_b[b])
                    for a in range(aa, aa + U):
                        move(x, out, src, dst, a, step, step_k, ns)
            for b in range(bb, bb + V):
                src = x_o + uint64(in_b[b])
                dst = out_o + uint64(out_b[b])
                for a in range(a_full, a1):
                    move(x, out, src, dst, a, step, step_k, ns)
        for b in range(b_full, b1):
            src = x_o + uint64(in_b[b])
            dst = out_o + uint64(out_b[b])
            for a in range(a0, a1):
                move(x, out, src, dst, a, step, step_k, ns)

    @numba.njit(inline="always")
    def blocks(x, out, x_o, out_o, in_b, out_b, a0, a1, b0, b1, step, run_b):
        word = uint64(x.itemsize)
        x_step = np.int64(step) * np.int64(x.itemsize)
        bn = b0
        while bn < b1:  # the tile's b's cut at the ends of runs
            end = min(b1, (bn // run_b + 1) * run_b)
            if end - bn >= N:
                for bb in range(bn, end, N):
                    bs = min(bb, end - N)
                    src = x_o + uint64(in_b[bs])
                    for an in range(a0, a1, N):
                        at = min(an, a1 - N)
                        rows_of(x, (src + uint64(at) * step) * word, x_step, out, out_o + uint64(at), out_b,
                                   np.int64(bs))
            elif P and end - bn >= P and _rows_inside(x.size, x_o + uint64(in_b[bn]), a0, a1, step, N):
                src = x_o + uint64(in_b[bn])
                for an in range(a0, a1, N):
                    at = min(an, a1 - N)
                    some_rows_of(x, (src + uint64(at) * step) * word, x_step, out, out_o + uint64(at), out_b,
                                 np.int64(bn), np.int64(end - bn))
            else:
                micro_tiles(x, out, x_o, out_o, in_b, out_b, a0, a1, bn, end, step, uint64(0), uint64(1))
            bn = end

    @numba.njit(inline="always")
    def gathered(x, out, x_o, out_o, in_b, out_b, a0, a1, b0, b1, step, step_k, ns, run_b, in_j, j_max):
        word = np.int64(x.itemsize)
        width = np.int64(S) if S else np.int64(ns)
        j0, j1 = np.int64(a0) * width, np.int64(a1) * width
        bn = b0
        while bn < b1:  # the tile's b's cut at the ends of runs, as in blocks
            end = min(b1, (bn // run_b + 1) * run_b)
            if end - bn >= N:
                for bb in range(bn, end, N):
                    bs = min(bb, end - N)
                    at_x = np.int64(x_o + uint64(in_b[bs])) * word
                    for jn in range(j0, j1, N):
                        at = min(jn, j1 - N)
                        gathered_rows(x, at_x, in_j, at, out, out_o + uint64(at), out_b, np.int64(bs))
            elif P and end - bn >= P and np.int64(x_o + uint64(in_b[bn])) + j_max + N <= x.size:
                at_x = np.int64(x_o + uint64(in_b[bn])) * word
                for jn in range(j0, j1, N):
                    at = min(jn, j1 - N)
                    gathered_rows_some(x, at_x, in_j, at, out, out_o + uint64(at), out_b, np.int64(bn),
                                       np.int64(end - bn))
            else:
                micro_tiles(x, out, x_o, out_o, in_b, out_b, a0, a1, bn, end, step, step_k, ns)
            bn = end

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, na, sa, ns, ss, in_b, out_b, in_o, out_o, tile_a, tile_b, run_b, in_j, j_max):
        nb = in_b.size
        tiles_a = (na + tile_a - 1) // tile_a
        per = tiles_a * ((nb + tile_b - 1) // tile_b)
        step = uint64(sa)  # a negative stride wraps; the sums below land on the right word all the same
        step_k = uint64(ss)
        n = uint64(ns)
        for t in prange(in_o.size * per):
            o = t // per
            u = t - o * per
            tb = u // tiles_a
            a0 = (u - tb * tiles_a) * tile_a
            b0 = tb * tile_b
            a1 = min(a0 + tile_a, na)
            b1 = min(b0 + tile_b, nb)
            x_o = uint64(in_o[o])
            out_o_ = uint64(out_o[o])
            if G and (a1 - a0) * ns >= N and b1 - b0 >= LOW and run_b >= LOW:
                gathered(x, out, x_o, out_o_, in_b, out_b, a0, a1, b0, b1, step, step_k, n, run_b, in_j, j_max)
            elif N and not G and a1 - a0 >= N and b1 - b0 >= LOW and run_b >= LOW:
                blocks(x, out, x_o, out_o_, in_b, out_b, a0, a1, b0, b1, step, run_b)
            else:
                micro_tiles(x, out, x_o, out_o_, in_b, out_b, a0, a1, b0, b1, step, step_k, n)

    return kernel


@numba.njit(inline="always")
def _rows_inside(size, src, a0, a1, step, n):
    """Whether rows a0 to a1 - 1 of n elements from word src, `step` words apart (wrapped where negative), lie in
    x's `size` words."""
    s = np.int64(step)
    first = np.int64(src) + np.int64(a0) * s
    last = np.int64(src) + np.int64(a1 - 1) * s
    return max(first, last) + n <= size


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
        x_base = uint64(in_r[r])
        out_base = uint64(out_r[r])
        for bb in range(b0, b1, MICRO):
            be = min(bb + MICRO, b1)
            for aa in range(a0, a1, MICRO):
                ae = min(aa + MICRO, a1)
                for b in range(bb, be):
                    src = x_base + uint64(in_b[b])
                    dst = out_base + uint64(out_b[b])
                    for a in range(aa, ae):
                        out[dst + uint64(a)] = x[src + uint64(in_a[a])]


@functools.cache
def _copy_run(words: int = 0):
    """copy(x, src, out, dst, count): out[dst:dst + count] = x[src:src + count] as one memcpy, which moves a run in
    the widest vectors the machine has; with `words`, a memcpy of that constant length (count unused), which the
    compiler expands into a few vector moves inline instead of a call."""

    @intrinsic
    def copy(typingctx, x, src, out, dst, count):
        if not isinstance(x, types.Array) or x.dtype != out.dtype:
            return None

        def codegen(context, builder, signature, args):
            x_val, src, out_val, dst, count = args
            length = context.get_constant(types.uint64, words) if words else count
            size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
            base_x = context.make_array(signature.args[0])(context, builder, x_val).data
            base_out = context.make_array(signature.args[2])(context, builder, out_val).data
            cgutils.raw_memcpy(builder, builder.gep(base_out, [dst]), builder.gep(base_x, [src]), length, size)
            return context.get_dummy_value()

        return types.void(x, src, out, dst, count), codegen

    return copy


@functools.cache
def vector_runs_kernel(word: int):
    """runs_kernel's kernel with each run moved by a loop of vector loads and stores of `word`-byte words
    (_vector_move) instead of a memcpy call."""
    return _runs_kernel(_vector_move(word), _no_fence, 1)


@functools.cache
def runs_kernel(words: int = 0):
    """kernel(x, out, run, in_b, out_b, in_r, out_r, n1, tile, pieces): out[out_r[r] + out_b[b] + k] = x[in_r[r] +
    in_b[b] + k] for k < run: A is one run contiguous on both sides. A task takes tile x tile runs: `tile` b's
    (neighbours in the input) by `tile` indices of the rest's innermost axis (n1 long; neighbours in the output), for
    one index of the rest's other axes; and of each run the piece `pieces` tasks share (all of it where `pieces` is
    1), so that a few long runs keep every thread busy. With `words` (the run's length; pieces 1) each run is a
    memcpy of constant length (RUN_INLINE_BYTES)."""
    return _runs_kernel(_copy_run(words), _no_fence, 1)


@functools.cache
def streamed_runs_kernel(vectors: int, per: int):
    """runs_kernel's kernel for runs of whole 16-byte vectors (`per` words each) whose output offsets all lie at
    16-byte boundaries: each run, or its piece (whole vectors), copied in aligned non-temporal stores
    (nontemporal.run_stream), `vectors` of them unrolled where it is not 0 (pieces 1), else a loop; a fence at each
    task's end."""
    return _runs_kernel(_streamed_move(vectors, per), store_fence, per)


@functools.cache
def _streamed_move(vectors: int, per: int):
    """move(x, src, out, dst, count): a run of whole 16-byte vectors (`per` words each) in aligned non-temporal
    stores, `vectors` of them unrolled where it is not 0, else a loop over `count` words."""
    copy = run_stream(max(1, vectors))
    VECTORS, STEP = vectors, uint64(per)

    @numba.njit(inline="always", boundscheck=False, nogil=True)
    def move(x, src, out, dst, count):
        if VECTORS:
            copy(x, src, out, dst)
        else:
            v = uint64(0)
            while v < count:
                copy(x, src + v, out, dst + v)
                v += STEP

    return move


def _vector_copy(nbytes: int):
    """An intrinsic copy(x, src, out, dst): `nbytes` bytes from element src of x to element dst of out as one vector
    load and one vector store, both at any alignment; x and out of one dtype. Bits move unchanged."""

    @intrinsic
    def copy(typingctx, x, src, out, dst):
        if not (isinstance(x, types.Array) and isinstance(out, types.Array) and x.dtype == out.dtype):
            return None

        def codegen(context, builder, signature, args):
            from_x, to_out = element_pointers(context, builder, signature, args)
            vector = ir.VectorType(ir.IntType(64), nbytes // 8).as_pointer()
            builder.store(builder.load(builder.bitcast(from_x, vector), align=1), builder.bitcast(to_out, vector),
                          align=1)
            return context.get_dummy_value()

        return types.void(x, src, out, dst), codegen

    return copy


@functools.cache
def _vector_move(word: int):
    """move(x, src, out, dst, count): `count` words of `word` bytes as 64-byte vectors, then one of 32 bytes where
    that many are left, then word by word, loads and stores at any alignment (a loop inline in the kernel, not a
    call)."""
    wide, half = _vector_copy(64), _vector_copy(32)
    WIDE, HALF, ONE = uint64(64 // word), uint64(32 // word), uint64(1)

    @numba.njit(inline="always", boundscheck=False, nogil=True)
    def move(x, src, out, dst, count):
        k = uint64(0)
        while k + WIDE <= count:
            wide(x, src + k, out, dst + k)
            k += WIDE
        if k + HALF <= count:
            half(x, src + k, out, dst + k)
            k += HALF
        while k < count:
            out[dst + k] = x[src + k]
            k += ONE

    return move


@numba.njit(inline="always", nogil=True)
def _no_fence():
    pass


def _runs_kernel(move, finish, granule: int):
    """The runs kernel (runs_kernel) that copies each run's piece with move(x, src, out, dst, count), pieces cut at
    multiples of `granule` words, and calls finish() at each task's end."""

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, run, in_b, out_b, in_r, out_r, n1, tile_b, tile_r, pieces):
        nb = in_b.size
        tiles_b = (nb + tile_b - 1) // tile_b
        tiles_r = (n1 + tile_r - 1) // tile_r
        per = tiles_b * tiles_r
        units = run // granule
        for t in prange(in_r.size // n1 * per * pieces):
            piece = t % pieces
            u = t // pieces
            o = u // per
            u = u - o * per
            ib = u // tiles_r
            r0 = o * n1 + (u - ib * tiles_r) * tile_r
            r1 = min(r0 + tile_r, o * n1 + n1)
            k0 = uint64(units * piece // pieces * granule)
            count = uint64(units * (piece + 1) // pieces * granule) - k0
            for b in range(ib * tile_b, min(ib * tile_b + tile_b, nb)):
                src_b = uint64(in_b[b]) + k0
                dst_b = uint64(out_b[b]) + k0
                for r in range(r0, r1):
                    move(x, uint64(in_r[r]) + src_b, out, uint64(out_r[r]) + dst_b, count)
            finish()

    return kernel


# The runs kernel's tiles cut each extent into tiles of equal size, as many as RUN_TILE gives (18 runs: 9 + 9, not
# 16 + 2): a ragged last tile read the input's rows a second time, apart from the first. On a 2-core AMD EPYC
# (2026-12-04, docs/permute.md, "Runs in balanced tiles"): 1.07x and 1.11x in geometric mean over 16 random runs
# permutations each of two seeds whose tiles it changes (0.88x-1.62x), int32 15717x18x33 by (1,0,2) 1.25x-1.53x
RUN_TILES_BALANCED = True  # off: tiles of RUN_TILE and a ragged last one (for measuring)


# Runs longer than RUN_INLINE_BYTES that are not streamed move by a loop of 64-byte vector loads and stores inline in
# the kernel (_vector_move) instead of a memcpy call a run. On a 2-core AMD EPYC (2026-12-04, docs/permute.md, "Runs
# moved by vector loops"): 1.30x in geometric mean over 10 random such permutations of seed 19011 (1.11x-1.90x, all
# ahead by more than 2%) and 1.185x over 15 of the fresh seed 19012 (0.94x-1.89x, 14 ahead), where the same kernel
# timed twice read 1.09x and 1.02x; torch ahead on 9 and 13 before, on 6 and 10 after.
RUN_VECTORS = True  # off: a memcpy a run (for measuring)


def run_tiles(nb: int, n1: int) -> tuple[int, int]:
    """The runs kernel's tile sides over B's runs and the next axis's: RUN_TILE, or where RUN_TILES_BALANCED the
    side that cuts the extent into as many tiles of equal size (18 runs: two tiles of 9, not 16 and 2)."""
    if not RUN_TILES_BALANCED:
        return RUN_TILE, RUN_TILE
    return _balanced(nb), _balanced(n1)


def _balanced(n: int) -> int:
    tiles = max(1, -(-n // RUN_TILE))
    return max(1, -(-n // tiles))


def run_pieces(run_bytes: int, tasks: int, threads: int) -> int:
    """How many pieces the runs kernel cuts each run into: enough for RUN_TASKS_PER_THREAD tasks a thread where there
    are fewer, none under RUN_PIECE_MIN bytes."""
    want = -(-RUN_TASKS_PER_THREAD * threads // tasks)
    return max(1, min(want, run_bytes // RUN_PIECE_MIN))


@functools.lru_cache(maxsize=64)
def _tables(plan: PermutePlan):
    """The offset tables of a plan's sides, the input's counted from the input's lowest address."""
    perm, sides = plan.perm, plan.sides
    lo, _ = byte_range(perm.extents, perm.in_strides, perm.itemsize)
    if isinstance(sides, PlaneSides):
        return (_table(sides.b, "in_stride"), _table(sides.b, "out_stride"),
                _table(sides.others, "in_stride") - lo // sides.word, _table(sides.others, "out_stride"))
    return (_table(sides.a, "in_stride"), _table(sides.b, "in_stride"), _table(sides.b, "out_stride"),
            _table(sides.rest, "in_stride") - lo // sides.word, _table(sides.rest, "out_stride"))


@functools.lru_cache(maxsize=64)
def _short_rows(plan: PermutePlan) -> tuple[np.ndarray, int]:
    """short_rows of a plan's sides and its largest offset, computed once a plan."""
    rows = short_rows(plan.sides)
    return rows, int(rows.max())


_NO_SHORT_ROWS = (np.zeros(1, np.int64), 0)


def streams_runs(perm: Permutation) -> bool:
    """Whether the runs kernel streams the output of `perm` (STREAM_RUNS; aligned non-temporal stores, which write
    lines without reading them first): x86-64, STREAM_MIN_BYTES or more, runs of whole 16-byte vectors (so that every
    output offset is a whole number of vectors too); at run time also an output at a 16-byte boundary. On a 2-core
    AMD EPYC (2026-12-02, docs/permute.md, "Streamed runs"): 1.43x and 1.62x plain stores over 16 random
    permutations of each of two seeds (1.00x-4.31x, none behind), torch ahead of it on 1 and 3 of them."""
    from .planner import STREAM_MIN_BYTES  # read at the call, so that tests may lower it

    return (STREAM_HOST and perm.elements * perm.itemsize >= STREAM_MIN_BYTES
            and element_bytes(perm) % STREAM_BYTES == 0)


STREAM_RUNS = True  # off: plain stores (for measuring)


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
    tables = _tables(plan)
    if plan.name == "permute-plane":
        shape = PLANE_SHAPES[word]
        a, short = plan.sides.a, plan.sides.short
        run_b = plane_run(plan.sides)
        n = short.extent if short else 1
        # blocks along a, or along j = a * n + k where there is a short axis (gathered: whole blocks only)
        side, half = plane_block(word, a.extent * n, halves=short is None) if run_b else (0, False)
        some = plane_some_min(side) if side else 0
        vector = side if run_b >= (some or side) else 0
        kernel = plane_kernel(shape.micro_a, shape.micro_b, n if n < PLANE_COMPILED_SHORT else 0, vector,
                              some if vector else 0, half and bool(vector), bool(short and vector))
        in_j, j_max = _short_rows(plan) if short and vector else _NO_SHORT_ROWS
        kernel(flat, out_words, a.extent, a.in_stride, n, short.in_stride if short else 0, *tables,
               plane_tile_a(plan.sides, shape.tile), shape.tile, run_b, in_j, j_max)
    elif plan.name == "runs":  # A is the unit alone: its input offsets are 0 to run - 1
        in_a, in_b, out_b, in_r, out_r = tables
        n1 = plan.sides.rest[0].extent if plan.sides.rest else 1
        streamed = STREAM_RUNS and streams_runs(perm) and out_words.ctypes.data % STREAM_BYTES == 0
        tile_b, tile_r = run_tiles(in_b.size, n1)
        tasks = in_r.size // n1 * -(-in_b.size // tile_b) * -(-n1 // tile_r)
        pieces = run_pieces(in_a.size * word, tasks, numba.get_num_threads())
        inline = pieces == 1 and in_a.size * word <= RUN_INLINE_BYTES
        if streamed:
            kernel = streamed_runs_kernel(in_a.size * word // STREAM_BYTES if inline else 0, STREAM_BYTES // word)
        elif RUN_VECTORS and not inline:
            kernel = vector_runs_kernel(word)
        else:
            kernel = runs_kernel(in_a.size if inline else 0)
        kernel(flat, out_words, in_a.size, in_b, out_b, in_r, out_r, n1, tile_b, tile_r, pieces)
    else:
        _permute(flat, out_words, *tables, BLOCK)
