"""The engine's plan for a general Permutation: the tile's sides (cornerturn.tiling), a tile shape, and the
launches of permute_tiles (one per index of the rest axes past the four that a launch walks itself); for a unit
contiguous on both sides of RUN_MIN bytes or more, the launches of permute_runs, which move such units whole; for most
permutations of bytes, one launch of permute_words, which moves them as 32-bit words (words_sides says which); for 1-
and 2-byte elements whose output ends in a short axis after the input's fastest, one launch of permute_interleave,
which builds each chunk's output words in registers (interleave_fit says which); for batches of small blocks permuted
inside that the tiles would pad, one launch of permute_gather, which writes the output as one flat run (gather_ok)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

from ..problem import Permutation
from ..tiling import Axis, Sides, chained, element_bytes, segment_axes, segment_extent, split, widest_word, word_axes
from . import plan as engine_plan
from .configs import MAX_BLOCK, OUT_MODES, TILE_BYTES, _pow2_at_least, _pow2_at_most, check_tile, padded_fill
from .launch import Launch, inline_asm
from .plan import EnginePlan, alignment

REST_IN_LAUNCH = 4  # rest axes a launch decomposes from its program id; outer ones are separate launches
SIDE_BYTES = 256  # each side aims at runs of 256 bytes: two 128-byte lines a row of the tile
PACK_BYTES = 64  # a packed tile's side A goes past the input's fastest axis where both hold fewer bytes (autotune)
RUN_MIN = 128  # units contiguous on both sides of this many bytes or more move whole (permute_runs)
RUN_BLOCK = 1024  # words a permute_runs program moves: several units, or a piece of a longer one
# The general tiles of 2-byte words load vectors of up to LOAD_WORDS words along B where the loads' offsets, written
# into the arithmetic, let them widen: 1.09x in geometric mean over 106 random 2-byte permutations, none behind by
# more than 2%, where plain tiles (one axis a side) whose output runs start at most 4-byte aligned keep word-wide
# loads (0.90-0.96x widened). Vectors of 8 words ran one permutation at 0.65x (H200, 2026-11-26, docs/permute.md).
LOAD_WORDS = {2: 4}
# The general tiles of words up to this size split their sides' indices into digits by multiplying (MAGIC_A, MAGIC_B:
# a high word and a shift, divisor_magic) instead of dividing, side B only where its loads gather element by element
# (not ARITH_IN). Those tiles hold 32 to 64 elements a thread and were bound by issuing instructions (167-254
# registers). On 96 random 1- and 2-byte permutations 1.21x in geometric mean (1-byte 1.64x, 2-byte 1.11x), 56 ahead
# by more than 2%, 4 behind; side B multiplying where the loads widen ran 1.04x with 7 of 54 behind down to 0.87x; on
# 40 of fresh seeds 1.07x, the slowest case 34% -> 39% of the copy; words of 4 to 16 bytes 0.99x, 9 of 47 behind
# (H200, 2026-11-27, docs/permute.md, "Digits by multiplying").
MULTIPLY_WORDS_MAX = 2
# Side A goes on to the output's next axes (EXTEND_A, tiling.split's fill) where its tiles would hold under FILL_A of
# its elements and that axis raises the share, unless B takes it; 2-byte words take a third axis only where the
# output's runs then start at more aligned words (a third digit costs their tiles, 64 indices a thread, and lost 0.93x
# over 8 cases where nothing else changed). int64 33x4x6x44x20x22 by (4,5,2,1,3,0) had A of 33 words in tiles of 32,
# the second tile writing one word of every output row: 64% -> 90% of the copy. Over random permutations of fresh
# seeds whose plan it changes, 1.10x in geometric mean on 64 (H200; words of 2, 4, 8 bytes 1.12x, 1.13x, 1.08x; 4
# behind by more than 2%, down to 0.89x) and 1.08x on 61 (H100; 4 behind, down to 0.83x); with the 2-byte condition,
# 1.10x on 64 more (H200, 4 behind, complex128 4x56x18x43x66 by (4,0,2,3,1) at 0.75x); narrowing A's tile instead ran
# 0.83x, and B filled the same way 1.00x (2026-11-27, docs/permute.md, "Side A filled").
FILL_A = 0.9
EXTEND_A = True
# The kernels of 32-bit words split their indices into digits by multiplying too (MAGIC). permute_words (the rows of
# A, the words of B's segments, the columns of B): 1.10x and 1.11x in geometric mean over 120 random byte
# permutations of seeds 17001-17070 (13 behind by more than 2%, down to 0.87x; the slowest ones 1.4x-1.8x), 1.07x over
# 60 fresh ones on an H100 (14 behind, down to 0.85x); no rule over the plans' constexprs told the ones behind apart
# (docs/permute.md, "permute_words by multiplying"). permute_interleave and permute_runs_words (each lane's chunk or
# unit and the rest axes' digits): 1.037x and 1.029x over 88 random permutations, 3 behind by at most 3%; 1.012x over
# 48 on an H100 (docs/permute.md, "Lanes' indices by multiplying"). H200 and H100, 2026-11-27.
WORDS_MULTIPLY = True


@dataclass(frozen=True)
class PermuteConfig:
    """A permute_tiles launch: BLOCK_A (output side) x BLOCK_B (input side) words, num_warps warps; `packed`: side A
    goes on past the input's fastest axis where both are short (tiling.split's pack_bytes, PACK_BYTES)."""

    block_a: int
    block_b: int
    num_warps: int = 4
    packed: bool = False

    def __post_init__(self) -> None:
        check_tile(self, "block_a", "block_b")
        if not isinstance(self.packed, bool):
            raise ValueError(f"PermuteConfig.packed: must be True or False, got {self.packed!r}")

    @property
    def name(self) -> str:
        return f"permute{self.block_a}x{self.block_b}-w{self.num_warps}" + ("-packed" if self.packed else "")


@dataclass(frozen=True)
class RunsConfig:
    """A permute_runs launch: programs of `block` words (whole units, or a piece of a longer one), num_warps warps.
    With `span`, a program's units are consecutive in the output whichever axes they lie on (each unit's start
    computed once, from its index), rather than along the output's next axis only."""

    block: int
    num_warps: int = 8
    span: bool = False

    def __post_init__(self) -> None:
        check_tile(self, "block", low=16, high=8 * MAX_BLOCK)

    @property
    def name(self) -> str:
        return f"runs{self.block}-w{self.num_warps}" + ("-span" if self.span else "")


@dataclass(frozen=True)
class ShiftedRunsConfig:
    """A permute_runs_words launch: programs storing up to `block` 32-bit words (as many whole units as fit in
    4 block - 3 bytes), num_warps warps."""

    block: int = 1024
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block", low=4, high=8 * MAX_BLOCK)

    @property
    def name(self) -> str:
        return f"sruns{self.block}-w{self.num_warps}"


@dataclass(frozen=True)
class PermuteGatherConfig:
    """A permute_gather launch: programs of `block` output words (a power of two), num_warps warps."""

    block: int = 1024
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block", low=128, high=8 * MAX_BLOCK)

    @property
    def name(self) -> str:
        return f"pgather{self.block}-w{self.num_warps}"


GATHER_AXES = 7  # the most axes (in words) permute_gather splits an output index into


def gather_fit(perm: Permutation) -> bool:
    """Whether permute_gather can move the permutation: positive strides, at most GATHER_AXES axes in its words."""
    return min(perm.in_strides) > 0 and len(word_axes(perm, widest_word(perm))) <= GATHER_AXES


# Batches of small blocks (inner_block: the output's innermost axes are the input's, permuted among themselves) of
# GATHER_BLOCK_BYTES that the general tiles would take move in permute_gather instead: the tiles pad such blocks
# (float32 26x83x8x47x5x15 by (3,1,0,2,5,4), blocks of 5 x 15, ran in tiles of 8 x 512 at 53% of the copy, the
# gather at 93%). Against the tiles, on 77 random such batches of seeds 18101-18102 and 23 permutations whose tiles
# are under half full (H200, 2026-12-04, docs/permute.md, "Batches of small blocks permuted"): blocks of 256 B to
# 1 KiB of 2- to 16-byte elements 1.17x in geometric mean (0.95x-1.75x, 13 of 14 ahead), 16-byte blocks of 64-192 B
# 1.09x (1.01x-1.28x, 10 of 10); smaller blocks of 2- to 8-byte elements 0.97x (12 of 18 behind by more than 2%),
# larger blocks 0.89x (14 of 18), bytes 0.89x (12 of 21). Not yet checked on a fresh seed.
GATHER = True
GATHER_BLOCK_BYTES = {2: (256, 1024), 4: (256, 1024), 8: (256, 1024), 16: (64, 1024)}


def inner_block(perm: Permutation) -> int:
    """Elements of the smallest block of the output's innermost axes (two or more, not all) that are the input's
    innermost axes too, permuted among themselves: the permutation is then a batch of such blocks, each permuted
    inside and the batch permuted too. 0 where there is none."""
    n = len(perm.extents)
    order = sorted(range(n), key=lambda i: perm.in_strides[i])
    for k in range(2, n):
        if set(order[:k]) == set(range(n - k, n)):
            return math.prod(perm.extents[n - k:])
    return 0


def gather_ok(perm: Permutation) -> bool:
    """Whether the planner takes permute_gather where it would take the general tiles (GATHER): a batch of inner
    blocks (inner_block) of GATHER_BLOCK_BYTES."""
    if not GATHER or perm.itemsize not in GATHER_BLOCK_BYTES or not gather_fit(perm):
        return False
    low, high = GATHER_BLOCK_BYTES[perm.itemsize]
    return low <= inner_block(perm) * perm.itemsize <= high


def _build_gather(perm: Permutation, word: int, config: PermuteGatherConfig | None, reason: str | None) -> EnginePlan:
    """The permute_gather plan: the output as one flat run of words (the widest that divides the unit and the
    strides, at most `word` where that is given), each loaded from where it lies in the input."""
    from .gather_kernel import permute_gather

    if config is None:
        config = PermuteGatherConfig()
    if not gather_fit(perm):
        raise ValueError("PermuteGatherConfig: the permutation is not one permute_gather takes (engine.permute."
                         f"gather_fit: positive strides, at most {GATHER_AXES} axes in words)")
    word = min(word, widest_word(perm)) if word else widest_word(perm)
    axes = word_axes(perm, word)[::-1]  # innermost first
    total = math.prod(x.extent for x in axes)
    reach = sum((x.extent - 1) * x.in_stride for x in axes) + 1
    wide = max(reach, total) + config.block >= engine_plan.WIDE_FROM
    magic = not wide
    divisors = [x.extent for x in axes[:-1]]
    ints = (total, *_pad(divisors, GATHER_AXES - 1), *_pad([x.in_stride for x in axes], GATHER_AXES),
            *(_magic_pairs(divisors, GATHER_AXES - 1) if magic else [0] * (2 * GATHER_AXES - 2)))
    reason = reason or (f"general permutation: the output as one run of {word}-byte words, each gathered from the "
                        f"input over {len(axes)} axes")
    plan = EnginePlan(perm, config, word, reason)
    plan.pieces.append((0, 0, Launch(permute_gather, math.ceil(total / config.block), ints,
                                     {"N": len(axes), "BLOCK": config.block, "WIDE": wide, "MAGIC": magic},
                                     config.num_warps, word)))
    return plan


SHIFTED_UNIT_MIN = 4  # bytes a unit needs for permute_runs_words (a word then straddles at most two units)
# The planner's rule for permute_runs_words: 1-byte elements in units of 32-127 bytes that only 1-byte words divide
# (with the strides). Against the element tiles such units ran at 1.17x-2.39x where programs went along the next axis
# only and it filled them (26 cases; programs it filled to a third or less ran at 0.01x-0.52x), and at 1.18x-3.50x
# once programs span the rest axes too (28 cases of seeds drawn after the rule was set); units that 2-byte words
# divide ran at 0.70x-1.39x, 2-byte elements at 0.72x-1.21x, shorter units at 0.91x-1.25x, longer ones at
# 0.68x-0.95x against permute_runs in 2-byte words (H100, 2026-11-25, the probe of commit f4da523,
# docs/permute.md).
SHIFTED_UNITS = (32, RUN_MIN)
# Units of SHIFTED_LONG_UNIT bytes or more that one program of the default ShiftedRunsConfig holds (4 x 1,024 - 3
# bytes) go the same way: permute_runs moved them a byte a lane in pieces of 1,024. Over random such permutations
# 1.34x and 1.17x in geometric mean on two seed ranges (8 each, 1.08x-1.55x), and 1.26x on 30 of seeds drawn after
# (1.06x-1.57x, none behind); units of 128-1,023 bytes ran at 0.83x-1.06x by size band and longer ones, in programs
# of 2,048 words or more, 0.95x-1.04x (H200, 2026-11-29, docs/permute.md, "Long units of odd bytes").
SHIFTED_LONG_UNIT = 1024


def shifted_runs_fit(perm: Permutation, block: int) -> bool:
    """Whether permute_runs_words can move the permutation with programs of `block` words: a unit contiguous on both
    sides of SHIFTED_UNIT_MIN bytes or more and at most 4 block - 3 (a program holds whole units), positive strides,
    at most REST_IN_LAUNCH axes besides the unit's and the next one (one launch, whose pointers stay 4-byte
    aligned)."""
    unit = element_bytes(perm)
    return (unit != perm.itemsize and SHIFTED_UNIT_MIN <= unit <= 4 * block - 3 and min(perm.in_strides) > 0
            and len(perm.extents) - 2 <= REST_IN_LAUNCH)


def shifted_runs_ok(perm: Permutation) -> bool:
    """Whether the planner takes permute_runs_words: 1-byte elements in units of SHIFTED_UNITS bytes, or of
    SHIFTED_LONG_UNIT bytes up to what one program holds, that no 2-byte word divides together with the strides (see
    SHIFTED_UNITS and SHIFTED_LONG_UNIT)."""
    unit = element_bytes(perm)
    sized = SHIFTED_UNITS[0] <= unit < SHIFTED_UNITS[1] or unit >= SHIFTED_LONG_UNIT
    return (perm.itemsize == 1 and sized and widest_word(perm) == 1
            and shifted_runs_fit(perm, ShiftedRunsConfig().block))


# Units of an odd number of 2-byte elements (2-byte words) move whole from ODD_RUN_MIN bytes where programs along the
# output's next axis would fill ODD_RUN_FILL of their room or more (runs_filled): the element tiles ran those at
# 44-72% of the copy, permute_runs at 1.08x-1.78x them (26 random permutations of seeds 12031-12032, H200,
# 2026-12-02); the 6 that filled programs to 0.24-0.38 ran at 0.52x-0.80x, units of 62-82 bytes at 0.71x-1.45x
# (0.99x in geometric mean on seed 12031), shorter ones mostly behind. As built, on the fresh seeds 12041 and 12042:
# 1.18x over the 11 plans it changes (0.72x-1.43x, one behind) and 1.26x over 17 (0.97x-1.42x); docs/permute.md,
# "Units of an odd number of 2-byte elements".
ODD_RUN_MIN = 84
ODD_RUN_FILL = 0.5


def runs_ok(perm: Permutation, word: int) -> bool:
    """Whether permute_runs takes the permutation in `word`-byte words: a unit contiguous on both sides of RUN_MIN
    bytes or more, two words or more, or of 2-byte elements in 2-byte words as ODD_RUN_MIN says. Other units keep the
    tiles, whose loads also walk the input's next axis (H100, 2026-11-25, docs/permute.md: units of 17-64 bytes at
    0.74-0.83x the tiles)."""
    if not has_unit(perm, word):
        return False
    unit = element_bytes(perm)
    if unit >= RUN_MIN:
        return True
    if perm.itemsize != 2 or word != 2 or unit < ODD_RUN_MIN:
        return False
    axes = word_axes(perm, word)
    return runs_filled(axes[-2], axes[-1].extent, RUNS_CONFIG.block) >= ODD_RUN_FILL


def has_unit(perm: Permutation, word: int) -> bool:
    """Whether a unit contiguous on both sides spans two or more `word`-byte words (what permute_runs moves), the
    word dividing the unit and every stride."""
    unit = element_bytes(perm)
    return unit != perm.itemsize and unit // word >= 2 and widest_word(perm, widest=16) % word == 0


# The planner's permute_runs launch: RUN_BLOCK words with 4 warps (8 words a lane), as many whole units as fit or a
# piece of a longer unit. Blocks of 2,048 and 4,096 words measured level with it in geometric mean, and those of 1-
# and 2-byte words fell to 30-46% on three cases (H100, 2026-11-25, docs/permute.md).
RUNS_CONFIG = RunsConfig(RUN_BLOCK, 4)
# Where a program's units along the output's next axis would fill under SPAN_BELOW of it (runs_filled), they run on
# over the next axes (RunsConfig.span). On the H200 (2026-11-28, docs/permute.md, "Units that run on over the next
# axes"): 1.03x-2.27x the plan before on the 12 random and named permutations under 0.2 of seeds 7201-7220 (1.30x in
# geometric mean), 0.89x-1.02x on the 23 from 0.2 to 0.6 (0.98x), 0.90x-1.05x on the 38 above (1.00x); on the fresh
# seeds 7221-7240, 1.10x-2.88x on the 9 under 0.2 (1.46x; torch ahead on 5 of them before, on 1 after, by 0.3%), 0.98x
# on the 30 from 0.2 to 0.6 it leaves
SPAN_BELOW = 0.2


@dataclass(frozen=True)
class PermuteWordsConfig:
    """A permute_words launch: block_a rows (indices of A, a multiple of 4) x block_cw 32-bit words along B. `out`
    says how the output's runs along A are written where A does not span whole words: as words shifted into place
    from two groups of rows ("shifted"), or element by element ("items")."""

    block_a: int
    block_cw: int
    num_warps: int = 4
    out: str = "shifted"

    def __post_init__(self) -> None:
        check_tile(self, "block_a", "block_cw")
        if self.block_a < 4:
            raise ValueError(f"PermuteWordsConfig.block_a: must be at least 4, got {self.block_a}")
        if self.out not in OUT_MODES[1:]:
            raise ValueError(f"PermuteWordsConfig.out: one of {', '.join(OUT_MODES[1:])}, got {self.out!r}")

    @property
    def name(self) -> str:
        return f"pwords{self.block_a}x{self.block_cw}w-w{self.num_warps}" + ("-items" if self.out == "items" else "")


WORDS_TILE = (128, 16, 8)  # rows, words along B, warps: 2,048 words a tile
WORDS_MIN_B = 16  # bytes along B from which permute_words takes a permutation (4 words)
SEGMENT_MIN = 8  # bytes a segment of B needs (its leading axes that lie end to end in the input)
WORDS_MIN_A = 16  # bytes along A that permute_words needs
# Output runs along A that do not span whole words are shifted into place where A holds this many bytes or more and
# B has two axes or more, else written element by element. Shifted against element by element on 24 cases of seeds
# 3000-3015: 1.04x-1.51x on the 13 such cases, 0.56x-1.22x (11 cases, 8 behind) on the others; on 32 cases of the
# fresh seeds 4000-4015 with the rule set, 1.12x in geometric mean on the 18 it shifts (0.98x-1.28x), 0.73x on the 14
# it does not (11 behind); H100, 2026-11-25, docs/permute.md. With the kernel as it is since (the next group gathered,
# digits by multiplying), A of 128-255 bytes ran 1.17x written element by element (6 of 6 ahead; seeds 7000-7099) and
# 1.11x on 3 of seeds 7600-7699, A of 256-511 bytes level (1.01x), longer A 1.11x-1.18x shifted (H200, 2026-11-29,
# docs/permute.md, "Output runs shifted into place from 256 bytes of A")
SHIFTED_OUT_MIN_A = 256
# Where the sides leave B segments of fewer than SHORT_SEGMENT bytes (its first axes end to end in the input; a row's
# segments are then pieces of 8-15 bytes far apart, one sector a piece), A stops at RUN_TO_B bytes before an axis that
# continues the input's run, so that B's segments grow, where they then hold SHORT_SEGMENT bytes or more and A spans
# whole words: 1.59x and 1.39x in geometric mean over 32 and 40 random byte permutations of seeds 19001-22500 (4 and 5
# behind, down to 0.73x; medians 46% -> 74% and 51% -> 70% of the copy); wherever such an axis went to B, 0.84x and
# 0.78x (92 cases: A too short where the segments were long enough). H200, 2026-11-27, docs/permute.md.
SHORT_SEGMENT = 16
RUN_TO_B = 16
# The same sides where the first ones are refused (B cut to fewer than WORDS_MIN_B bytes, or its segments under
# SEGMENT_MIN), unless the output runs would be shifted into place or the element tiles' B holds under WORDS_MIN_B
# bytes (they then take tall tiles that read B whole): those permutations went to the element tiles, reading B's
# runs a few bytes at a time (int8 144x40x5040x6 by (0,3,2,1), B of 6 bytes then 144 far apart: 34% of the copy, in
# words 77%). Set on seeds 7000-8099 (1.37x and 1.51x over the 20 and 16 it keeps); on the fresh seeds 8200-8999
# 1.36x over 28 (0.64x-2.95x; 18 ahead, 9 behind by more than 2%); H200, 2026-11-29, docs/permute.md, "B takes the
# input's run where the first sides are refused".
RUN_TO_B_REFUSED = True
OUT_WRITTEN = {"shifted": "words shifted into place", "items": "element by element"}  # the plan's reason, per out


def words_sides(perm: Permutation, segment_min: int | None = None) -> Sides | None:
    """The tile's sides for permute_words (_words_sides), or None where it does not take the permutation. Where B's
    segments hold fewer than SHORT_SEGMENT bytes, the sides that leave to B the axes continuing the input's run
    (tiling.split's run_to_b, RUN_TO_B bytes of A) where their segments are not short and A spans whole words.
    Where the first sides are refused (B cut short, or its segments under SEGMENT_MIN bytes), those sides where
    their segments are not short, their output runs are not shifted into place, and the element tiles' B holds
    WORDS_MIN_B bytes or more (RUN_TO_B_REFUSED)."""
    sides = _words_sides(perm, segment_min)
    if sides is not None and segment_extent(sides.b) * perm.itemsize >= SHORT_SEGMENT:
        return sides
    if sides is None and not (RUN_TO_B_REFUSED and perm.itemsize == 1 and
                              split(perm, 1, SIDE_BYTES).size_b >= WORDS_MIN_B):
        return None
    other = _words_sides(perm, segment_min, RUN_TO_B)
    if other is None or segment_extent(other.b) * perm.itemsize < SHORT_SEGMENT:
        return sides
    whole = other.size_a * perm.itemsize % 4 == 0
    if whole or (sides is None and words_config(other).out != "shifted"):
        return other
    return sides


def _words_sides(perm: Permutation, segment_min: int | None = None, run_to_b: int = 0) -> Sides | None:
    """The tile's sides for permute_words, or None where it does not take the permutation: 1-byte elements (no unit
    shared by both sides), positive strides, side B's first axis of unit stride, WORDS_MIN_B bytes or more along B;
    at most REST_IN_LAUNCH rest axes (one launch, whose pointers stay 4-byte aligned); and not where the element
    tiles move 16 bytes a lane (tiles_in_vectors). Where B's axes do not lie end to end in the input, A needs
    WORDS_MIN_A bytes or more, and B is cut to its first axis (the others join the rest) if that leaves WORDS_MIN_B
    bytes along B and at most REST_IN_LAUNCH rest axes, else read in segments of `segment_min` (SEGMENT_MIN) bytes
    or more (segment_axes), several a tile. Such B with under WORDS_MIN_A bytes along A ran behind the element tiles
    where B was cut (tiles of 64-512 words; 7 of 8 cases, five at 0.22x-0.43x) and in segments (11 of 16); where B
    lies end to end short A stays in words (float8 98x301x7x133x11 by (3,1,0,4,2), 7 bytes along A, 1.85x the
    tiles; H100, 2026-11-25, docs/permute.md). 2-byte elements keep the element tiles: in words they ran at 64% of
    the copy in geometric mean against 71% (H100, 2026-11-25), and told where rows and runs start 0.87x-0.96x the
    element tiles (H200, H100, 2026-11-27), and 0.90x on 60 random ones (H200, 2026-11-29; docs/permute.md)."""
    if perm.itemsize != 1 or element_bytes(perm) != perm.itemsize or min(perm.in_strides) <= 0:
        return None
    sides = split(perm, perm.itemsize, max(16, SIDE_BYTES // perm.itemsize), run_to_b=run_to_b)
    if sides.b[0].in_stride != 1:
        return None
    if not chained(sides.b):
        if sides.size_a * perm.itemsize < WORDS_MIN_A:
            return None
        rest = tuple(sorted((*sides.b[1:], *sides.rest), key=lambda x: x.out_stride))
        cut = Sides(sides.word, sides.a, sides.b[:1], rest)
        if cut.size_b >= WORDS_MIN_B and len(rest) <= REST_IN_LAUNCH:
            sides = cut
    segment = segment_extent(sides.b) * perm.itemsize
    if segment_min is None:
        segment_min = SEGMENT_MIN
    if len(sides.rest) > REST_IN_LAUNCH or sides.size_b < WORDS_MIN_B or segment < segment_min:
        return None
    return None if tiles_in_vectors(perm) else sides


# Larger tiles (A words, B words, warps) that autotune also measures for 1-byte element tiles whose loads and stores
# are all 16-byte vectors and whose side B is one run of the input (vector_run). No rule: against the word size's tile,
# 128 x 256 on 8 warps ran 1.05-1.06x in geometric mean on 64 random such permutations on the H100 (0.89x-1.49x) and
# 1.00x on 16 fresh ones on the H200 (0.91x-1.22x), 256 x 256 on 4 warps 1.06-1.08x and 1.00x (0.81x-1.45x); the
# plans that ran slowest gained most (int8 71x16x3130x64 by (3,2,0,1) 56% -> 74% of the copy on the H200), those near
# 90% lost up to 11-19%. 2026-11-28, docs/permute.md ("Larger tiles of 16-byte vectors").
VECTOR_TILES = ((128, 256, 8), (256, 256, 4))


def _in_vectors(launch: Launch) -> bool:
    """Whether a permute_tiles launch's loads and stores all start at 16-byte boundaries."""
    return min(launch.constexprs[k] for k in ("ALIGN_IA", "ALIGN_IB", "ALIGN_OA", "ALIGN_OB")) * launch.word >= 16


def vector_run(launch: Launch) -> bool:
    """Whether a permute_tiles launch moves 16-byte vectors on every load and store and reads side B as one run of
    the input (where autotune also measures VECTOR_TILES)."""
    return launch.constexprs["NB_IN"] == 1 and _in_vectors(launch)


def tiles_in_vectors(perm: Permutation) -> bool:
    """Whether the element tiles' loads and stores all start at 16-byte boundaries, so that each lane moves 16 bytes:
    there they ran ahead of the words (int8 256x256x64x64 by (3,2,1,0): 90% of the copy against 82%, and the only
    other such case of 30, 91% against 84%; H100, 2026-11-25, docs/permute.md)."""
    return _in_vectors(build(perm, perm.itemsize).pieces[0][2])


def words_ok(perm: Permutation) -> bool:
    return words_sides(perm) is not None


def words_config(sides: Sides) -> PermuteWordsConfig:
    """WORDS_TILE narrowed to the sides as the element tiles are: rows up to its rows (at least 4), words along B up
    to what is left of its 2,048 words, then rows up to what is left of them; output runs shifted into place per
    SHIFTED_OUT_MIN_A."""
    rows, words, warps = WORDS_TILE
    tile = rows * words
    block_a = min(max(4, _pow2_at_least(sides.size_a)), rows)
    block_cw = min(_pow2_at_least(_words_along_b(sides)[2]), tile // block_a, MAX_BLOCK)
    block_a = min(max(4, _pow2_at_least(sides.size_a)), max(4, tile // block_cw), MAX_BLOCK)
    shifted = sides.size_a * sides.word >= SHIFTED_OUT_MIN_A and len(sides.b) >= 2
    return PermuteWordsConfig(block_a, block_cw, warps, "shifted" if shifted else "items")


def _words_along_b(sides: Sides) -> tuple[int, int, int]:
    """(elements a segment, words a segment, words in all) along B in permute_words."""
    seg_len = segment_extent(sides.b)
    seg_words = -(-seg_len // (4 // sides.word))
    return seg_len, seg_words, sides.size_b // seg_len * seg_words


@dataclass(frozen=True)
class PermuteInterleaveConfig:
    """A permute_interleave launch: `block` word-columns a program (one lane each), num_warps warps."""

    block: int = 128
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block", low=32, high=MAX_BLOCK)

    @property
    def name(self) -> str:
        return f"pinterleave{self.block}-w{self.num_warps}"


INTERLEAVE_ROWS = (2, 31)  # output rows (elements along the output's innermost axis) that permute_interleave takes
INTERLEAVE_WIDE = PermuteInterleaveConfig(256, 8)  # the other program size that autotune measures
# permute_words writing element by element on 4 warps instead of 8: ahead by more than 2% on 20 of 40 random byte
# permutations (up to 1.24x), behind on 17 (down to 0.83x), 1.04x in geometric mean, and no rule over the sides told
# which (H200, 2026-11-27, docs/permute.md): a candidate autotune measures, not the planner's choice
ITEMS_WARPS = 4


def interleave_fit(perm: Permutation) -> bool:
    """Whether permute_interleave can move the permutation: 1- or 2-byte elements, positive strides, the output's
    innermost axis R of INTERLEAVE_ROWS elements, its next axis the input's fastest (unit stride), at most
    REST_IN_LAUNCH other axes."""
    size = perm.itemsize
    return (size in (1, 2) and min(perm.in_strides) > 0 and perm.in_strides[-2] == size
            and INTERLEAVE_ROWS[0] <= perm.extents[-1] <= INTERLEAVE_ROWS[1]
            and len(perm.extents) - 2 <= REST_IN_LAUNCH)


# The planner takes permute_interleave wherever it fits. Against the plans before it on the random permutations of the
# permute suite that it fits (bit-exact, in the same rounds as torch and the copy): H200 seeds 1000-1047, 32 cases,
# 1.64x in geometric mean (1-byte 2.21x, 2-byte 1.26x); fresh seeds 5000-5030 (H200), 24 cases, 1.57x; fresh seeds
# 7000-7033 (H100), 24 cases, 1.30x; torch ahead on none. 11 of the 80 ran 2-14% behind: 2-byte elements whose
# element tiles ran at 61-97% of the copy (9 of them with input rows that start inside words), and one of 3 rows of
# bytes (2026-11-27, docs/permute.md, "Output rows interleaved").
def interleave_ok(perm: Permutation) -> bool:
    """Whether the planner takes permute_interleave (see above): wherever it fits."""
    return interleave_fit(perm)


def _build_interleave(perm: Permutation, config: PermuteInterleaveConfig | None, reason: str | None) -> EnginePlan:
    """The permute_interleave plan: chunks of R x C elements, the rest axes in the input's order (a warp's lanes
    read each row as one run); chunks' outputs shifted into place where they are not whole words (the other output
    strides are multiples of R C)."""
    from .permute_kernel import permute_interleave

    if not interleave_fit(perm):
        raise ValueError("PermuteInterleaveConfig: the permutation is not one permute_interleave takes (engine."
                         f"permute.interleave_fit: 1- or 2-byte elements, positive strides, {INTERLEAVE_ROWS[0]} to "
                         f"{INTERLEAVE_ROWS[1]} elements along the output's innermost axis, the input's fastest axis "
                         "next, at most four more axes)")
    size = perm.itemsize
    rows, cols = perm.extents[-1], perm.extents[-2]
    if config is None:
        config = PermuteInterleaveConfig()
    rest = sorted(zip(perm.extents[:-2], perm.in_strides[:-2], perm.out_strides[:-2]), key=lambda x: x[1])
    chunk_words = -(-cols * size // 4)
    chunks = math.prod(x[0] for x in rest)
    lanes = chunks * chunk_words
    programs = math.ceil(lanes / config.block)
    reason = reason or (f"general permutation: output rows of {rows} elements of {size} B along the input's fastest "
                        f"axis ({cols}), interleaved in 32-bit words, {chunks} chunks of {rows} x {cols}")
    nbytes = sum((e - 1) * i for e, i, _ in rest) + (rows - 1) * perm.in_strides[-1] + cols * size
    wide = max(nbytes, perm.elements * size) + 4 * config.block >= engine_plan.WIDE_FROM or \
        lanes + config.block >= engine_plan.WIDE_FROM
    row_stride = perm.in_strides[-1]
    magic = WORDS_MULTIPLY and not wide and chunk_words >= 2  # 31-bit indices, no divisor of 1
    ints = (lanes, chunk_words, row_stride, rows * cols * size, *_pad([e for e, _, _ in rest[:-1]], 3),
            *_pad([i for _, i, _ in rest], 4), *_pad([o for _, _, o in rest], 4), nbytes,
            *(_lane_multipliers(chunk_words, [e for e, _, _ in rest]) if magic else [0] * 8))
    constexprs = {"NR": len(rest), "R": rows, "E": size, "RP": _pow2_at_least(rows), "BLOCK": config.block,
                  "IN_WORDS": all(s % 4 == 0 for s in (row_stride, *(i for _, i, _ in rest))),
                  "SHIFT": rows * cols * size % 4 != 0, "WIDE": wide, "ASM": inline_asm(), "MAGIC": magic}
    plan = EnginePlan(perm, config, 4, reason)
    plan.pieces.append((0, 0, Launch(permute_interleave, programs, ints, constexprs, config.num_warps, 4)))
    return plan


def natural_word(perm: Permutation) -> int:
    """4 where permute_words or permute_runs_words takes the permutation (their plans move 32-bit words;
    engine.runtime narrows them where an address is not 4-byte aligned), else the widest word dividing the unit and
    every stride."""
    return 4 if words_ok(perm) or shifted_runs_ok(perm) or interleave_ok(perm) else widest_word(perm)


# The tile (A words, B words, warps) per word size. Words of 1 and 2 bytes: the best of five tiles by geometric mean
# over the narrow general cases of the permute suite (seeds 7, 11, 23), then checked on the unseen seed 41: 1-byte
# 64x128 geomean 42% of the copy (worst 27%) against 27% (worst 7%) for the 256x64 of the rule below, 2-byte
# 256x32 69% (51%) against 58% (40%); H100, 2026-11-24, docs/permute.md. Wider words keep the rule: sides of
# SIDE_BYTES, tiles of TILE_BYTES.
TILES = {1: (64, 128, 8), 2: (256, 32, 4)}
# 4-byte words whose tiles (of TILES' base) cannot move 16-byte vectors, a load or a store starting off a 16-byte
# boundary: the heuristic's tile from a base of 128 x 32 words instead of 64 x 64 (warps by the tile's bytes; side A
# is still filled against the word's own base, so that a plan rebuilt from its config is the same plan). With the
# base itself set to 128 x 32, on 133 such random permutations of the H200 (seeds 2910-2917), 1.048x in geometric
# mean, 7 behind by more than 5% (0.79x-0.95x); on the 19 whose tiles move vectors 0.983x (float32 512^3 by (2,1,0)
# 0.93x), so those keep 64 x 64. The rule as built, on the fresh seeds 2920-2926: 1.041x over the 94 cases it
# changes (0.89x-1.27x, 5 behind by more than 5%; 1.12x on those under 70% of the copy before). 8-byte words
# likewise from a base of 64 x 64 instead of 32 x 64: 1.052x over 59 such random permutations (seeds 2930-2933,
# 0.967x-1.447x, minimum 63% -> 74% of the copy; 1.015x on the 29 whose tiles move vectors); as built, on the fresh
# seeds 2934-2938, 1.057x over the 57 cases it changes (0.89x-1.19x, one behind by more than 5%). 2026-11-28,
# docs/permute.md ("Longer tiles for unaligned 4-byte words", "Wider tiles for unaligned 8-byte words").
UNALIGNED_TILES = {4: (128, 32, 0), 8: (64, 64, 0)}
# 16-byte elements (two 8-byte words each) take UNALIGNED_TILES' 8-byte base whatever their alignment: on the H200
# (2026-11-28, docs/permute.md, "Wider tiles for 16-byte elements") 1.032x over the 50 random complex128 permutations
# of seeds 7301-7303 and two named ones that it changes (0.97x-1.20x, none behind by more than 5%; torch ahead on 6
# before, 1 after), and on the fresh seeds 7304-7306 1.020x over 53 (0.95x-1.20x, one behind by 5.4%), the cases'
# minimum from 70% to 83% of the copy
WIDE_BASE_ITEMSIZES = (16,)
# General tiles of 8-byte words of NARROW_B_FROM_A words or more along A and 64 along B take NARROW_B along B where
# the share of the tile's lanes that hold elements (the sides' extents over the extents rounded up to whole blocks)
# grows NARROW_B_GAIN times or more: on the H200 (2026-11-29, docs/permute.md, "B narrowed where it pads fewer
# lanes") 1.040x over 19 random 8- and 16-byte permutations of seeds 7401-7444 (0.996x-1.21x), and on the fresh
# seeds 7445-7464 1.019x over the 67 it changes (0.985x-1.17x, none behind by more than 2%, 24 ahead by more than 2%)
NARROW_B, NARROW_B_FROM_A, NARROW_B_GAIN = 32, 64, 1.05


def narrow_b(sides: Sides, config: PermuteConfig) -> PermuteConfig:
    """`config`, or its tile with NARROW_B words along B where that fills NARROW_B_GAIN times the lanes or more."""
    if sides.word != 8 or config.block_a < NARROW_B_FROM_A or config.block_b != 2 * NARROW_B:
        return config
    narrowed = dataclasses.replace(config, block_b=NARROW_B)
    before = padded_fill(sides.size_a, sides.size_b, config.block_a, config.block_b)
    after = padded_fill(sides.size_a, sides.size_b, config.block_a, NARROW_B)
    return narrowed if after > before * NARROW_B_GAIN else config


def tile_base(word: int) -> tuple[int, int, int]:
    """(A words, B words or 0 for TILE_BYTES in all, warps or 0 for by size) of the heuristic's tile."""
    return TILES.get(word, (max(16, SIDE_BYTES // word), 0, 0))


def runs_align_better(size_a: int, grown: int) -> bool:
    """Whether output runs of `grown` words start at more aligned words than runs of `size_a` (the tiles' ALIGN_OA):
    the test for side A of 2-byte words taking a third axis (EXTEND_A)."""
    return alignment(grown) > alignment(size_a)


def heuristic(sides: Sides, base: tuple[int, int, int] | None = None) -> PermuteConfig:
    """The word size's tile (or `base`: A words, B words, warps), or one of about TILE_BYTES with each side
    SIDE_BYTES long; then narrowed to sides shorter than it, the spare given to the other side."""
    base_a, base_b, warps = base or tile_base(sides.word)
    words = base_a * base_b if base_b else TILE_BYTES // sides.word
    block_a = min(_pow2_at_least(sides.size_a), base_a)
    block_b = min(_pow2_at_least(sides.size_b), _pow2_at_most(words // block_a), MAX_BLOCK)
    block_a = min(_pow2_at_least(sides.size_a), _pow2_at_most(words // block_b), MAX_BLOCK)
    if not warps:
        warps = 8 if block_a * block_b * sides.word >= 16 * 1024 else 4
    return PermuteConfig(block_a, block_b, warps)


def divisor_magic(d: int) -> tuple[int, int]:
    """(m, h) such that n // d is the high word of n * m shifted right by h for every 0 <= n < 2**31 (m = ceil(2**(31
    + l) / d), l = ceil(log2 d): Granlund and Montgomery's multiply for 31-bit dividends), m as a signed 32-bit
    integer."""
    if not 2 <= d < 2**31:
        raise ValueError(f"divisor_magic: {d} is not from 2 to 2**31 - 1")
    bits = (d - 1).bit_length()
    m = -(-(1 << (31 + bits)) // d)
    return (m - (1 << 32) if m >= 1 << 31 else m), bits - 1


def _pad(values: list[int], n: int) -> list[int]:
    return values + [1] * (n - len(values))


def _magic_pairs(divisors: list[int], slots: int) -> list[int]:
    """divisor_magic's (m, h) of each divisor, then zeros up to `slots` pairs (the kernel's unused ones)."""
    pairs = [v for d in divisors for v in divisor_magic(d)]
    return pairs + [0] * (2 * slots - len(pairs))


def _multipliers(side: tuple[Axis, ...]) -> list[int]:
    """The pairs of each extent that the side's digits divide by (all but its last axis's), two slots."""
    return _magic_pairs([axis.extent for axis in side[:-1]], 2)


def _lane_multipliers(first: int, rest: list[int]) -> list[int]:
    """The pairs of `first` (what a lane's index is divided by first) and of the rest axes' extents that
    _rest_offsets divides by (all but the last), four slots."""
    return _magic_pairs([first, *rest[:-1]], 4)


def _contig(first: Axis, count: int, block: int, unit: bool) -> int:
    """How many neighbouring indices of a side are neighbours in memory (its first axis of unit stride; `count` is 1
    where the side's offsets are one linear index)."""
    if not unit:
        return 1
    if count == 1:
        return block
    return min(block, first.extent & -first.extent)


def _launch(sides: Sides, config: PermuteConfig, rest: tuple[Axis, ...]) -> Launch:
    from .permute_kernel import permute_tiles

    a, b = sides.a, sides.b
    tiles_a = math.ceil(sides.size_a / config.block_a)
    tiles_b = math.ceil(sides.size_b / config.block_b)
    rest_in = math.prod(axis.extent for axis in rest)
    programs = rest_in * tiles_a * tiles_b
    reach = sum((axis.extent - 1) * max(abs(axis.in_stride), axis.out_stride) for axis in (*a, *b, *rest))
    wide = reach + config.block_a + config.block_b >= engine_plan.WIDE_FROM or programs >= engine_plan.WIDE_FROM
    magic = (sides.word <= MULTIPLY_WORDS_MAX and not wide  # 31-bit indices on both sides
             and max(sides.size_a + config.block_a, sides.size_b + config.block_b) < 2**31)
    ins = [axis.in_stride for axis in rest]
    outs = [axis.out_stride for axis in rest]
    na_in = 1 if chained(a) else len(a)
    nb_in = 1 if chained(b) else len(b)
    contig_ia = _contig(a[0], na_in, config.block_a, a[0].in_stride == 1)
    contig_ib = _contig(b[0], nb_in, config.block_b, b[0].in_stride == 1)
    align_ia = alignment(*([contig_ia] if contig_ia > 1 else [a[0].in_stride]),
                         *(x.in_stride for x in a[1:]), *ins)
    align_ib = alignment(*([contig_ib] if contig_ib > 1 else [b[0].in_stride]), *(x.in_stride for x in b[1:]))
    ints = (*_pad([x.extent for x in a[:-1]], 2), *_pad([x.in_stride for x in a], 3),
            *_pad([x.extent for x in b[:-1]], 2), *_pad([x.in_stride for x in b], 3),
            *_pad([x.out_stride for x in b], 3),
            *_pad([x.extent for x in rest[:-1]], 3), *_pad(ins, 4), *_pad(outs, 4),
            sides.size_a, sides.size_b, tiles_a, tiles_b,
            *(_multipliers(a) + _multipliers(b) if magic else [0] * 8))
    align_oa = alignment(config.block_a, *outs)
    widen = LOAD_WORDS.get(sides.word, 0) if contig_ib > 1 and not (na_in == 1 and len(b) == 1 and align_oa <= 2) \
        else 0
    if widen:  # the loads' alignments, capped at the widest vector wanted, go into the arithmetic
        align_ia, align_ib = min(align_ia, widen), min(align_ib, widen)
    constexprs = {"NA_IN": na_in, "NB": len(b), "NB_IN": nb_in, "NR": len(rest),
                  "BLOCK_A": config.block_a, "BLOCK_B": config.block_b,
                  "CONTIG_IA": contig_ia, "ALIGN_IA": align_ia, "CONTIG_IB": contig_ib, "ALIGN_IB": align_ib,
                  "ALIGN_OA": align_oa, "ALIGN_OB": alignment(*(x.out_stride for x in b)), "WIDE": wide,
                  "ALIGN_SA": alignment(sides.size_a), "ARITH_IN": bool(widen),
                  "ALIGN_SB": min(alignment(sides.size_b), widen) if widen else 1,
                  "MAGIC_A": magic, "MAGIC_B": magic and not widen}
    return Launch(permute_tiles, programs, ints, constexprs, config.num_warps, sides.word)


def runs_filled(one: Axis, unit: int, block: int) -> float:
    """How full permute_runs programs are where a program's units lie along axis `one` only: the units there over
    the room the programs have for them (block // unit each; 1 where a unit takes the whole block or more)."""
    runs = block // unit
    if runs <= 1:
        return 1.0
    return one.extent / (math.ceil(one.extent / runs) * runs)


def _runs_launch(one: Axis, unit: int, rest: tuple[Axis, ...], config: RunsConfig, word: int) -> Launch:
    """permute_runs over units of `unit` words of `word` bytes along axis `one`, the rest axes innermost first."""
    from .permute_kernel import permute_runs

    chunks = math.ceil(unit / config.block)
    span = config.span and chunks == 1
    units = one.extent * math.prod(axis.extent for axis in rest)
    runs = config.block // unit
    if span:
        count = units
        programs = math.ceil(units / runs)
    else:
        count = math.ceil(one.extent / runs) if chunks == 1 else one.extent * chunks  # tiles along axis one
        programs = math.prod(axis.extent for axis in rest) * count
    reach = sum((axis.extent - 1) * max(abs(axis.in_stride), axis.out_stride) for axis in (one, *rest)) + unit
    wide = reach + config.block >= engine_plan.WIDE_FROM or programs >= engine_plan.WIDE_FROM
    magic = span and WORDS_MULTIPLY and not wide and units + _pow2_at_least(runs) < 2**31  # 31-bit unit indices
    ints = (one.extent, one.in_stride, count, *_pad([x.extent for x in rest[:-1]], 3),
            *_pad([x.in_stride for x in rest], 4),
            *(_lane_multipliers(one.extent, [x.extent for x in rest]) if magic else [0] * 8))
    constexprs = {"NR": len(rest), "UNIT": unit, "BLOCK": config.block, "CHUNKS": chunks,
                  "ALIGN": alignment(one.in_stride, *(x.in_stride for x in rest)), "WIDE": wide, "SPAN": span,
                  "RUNS_P2": _pow2_at_least(max(runs, 1)), "MAGIC": magic}
    return Launch(permute_runs, programs, ints, constexprs, config.num_warps, word)


def _build_runs(perm: Permutation, word: int, config: RunsConfig | None, reason: str | None) -> EnginePlan:
    if not has_unit(perm, word):
        raise ValueError(f"RunsConfig: the permutation has no unit of two or more words of {word} B contiguous on "
                         f"both sides (words of {word} B must divide the unit and every stride)")
    axes = word_axes(perm, word)  # outermost first, the unit's words last
    unit, one, rest = axes[-1].extent, axes[-2], tuple(reversed(axes[:-2]))
    if config is None:
        filled = runs_filled(one, unit, RUNS_CONFIG.block)
        config = dataclasses.replace(RUNS_CONFIG, span=filled < SPAN_BELOW)
        share = (f"{config.block // unit} a program" if config.block >= unit
                 else f"in pieces of {config.block} words")
        where = (f"running on over the next axes (along an axis of {one.extent} they would fill {filled:.0%} of "
                 "each program)" if config.span else f"along an axis of {one.extent}")
        reason = reason or (f"general permutation: units of {unit} words of {word} B contiguous on both sides, "
                            f"{share} {where}, {len(rest)} more axes")
    plan = EnginePlan(perm, config, word, reason or "given")
    inner, outer = rest[:REST_IN_LAUNCH], rest[REST_IN_LAUNCH:]
    if outer and math.prod(x.extent for x in inner) * one.extent * unit >= 2**31:
        raise ValueError("a permutation this large with more than four tile-less axes is not supported")
    launch = _runs_launch(one, unit, inner, config, word)
    for index in itertools.product(*(range(x.extent) for x in outer)):
        plan.pieces.append((sum(i * x.in_stride for i, x in zip(index, outer)) * word,
                            sum(i * x.out_stride for i, x in zip(index, outer)) * word, launch))
    return plan


def _build_words(perm: Permutation, sides: Sides | None, config: PermuteWordsConfig | None,
                 reason: str | None) -> EnginePlan:
    """The permute_words plan on `sides` (words_sides of perm)."""
    from .permute_kernel import permute_words

    if sides is None:
        raise ValueError("PermuteWordsConfig: the permutation is not one permute_words takes (engine.permute."
                         "words_sides: 1-byte elements, positive strides, B's first axis of unit stride, 16 bytes or "
                         f"more along B in segments of {SEGMENT_MIN} or more, at most four rest axes, element tiles "
                         "that do not move 16-byte vectors)")
    size = perm.itemsize
    a, b, rest = sides.a, sides.b, sides.rest
    out_words = sides.size_a * size % 4 == 0
    segments = b[segment_axes(b):]  # B's axes past its first segment: where each segment starts
    seg_len, seg_words, words_b = _words_along_b(sides)
    if config is None:
        config = words_config(sides)
        reason = reason or (f"general permutation of {size}-byte elements in 32-bit words: tile sides of {len(a)} "
                            f"and {len(b)} axes ({sides.size_a} x {sides.size_b}, segments of {seg_len}), "
                            f"{len(rest)} more axes, output " + ("words" if out_words else OUT_WRITTEN[config.out]))
    out = 0 if out_words else OUT_MODES.index(config.out)  # the kernel's OUT: words, shifted or items
    tiles_a = math.ceil(sides.size_a / config.block_a)
    tiles_b = math.ceil(words_b / config.block_cw)
    programs = math.prod(x.extent for x in rest) * tiles_a * tiles_b
    nbytes = (sum((x.extent - 1) * x.in_stride for x in (*a, *b, *rest)) + 1) * size
    wide = max(nbytes, perm.elements * size) + 4 * config.block_cw >= engine_plan.WIDE_FROM or \
        programs >= engine_plan.WIDE_FROM
    in_words = all(x.in_stride * size % 4 == 0 for x in (*a, *segments, *rest))
    # the powers of two that divide, in words, where segments start (and B's words) and where output runs start (and
    # A's words): told to the kernel so that loads and stores widen to vectors
    in_align = alignment(seg_words, *(x.in_stride * size // 4 for x in (*a, *segments, *rest))) \
        if in_words else 1
    out_align = alignment(sides.size_a * size // 4, *(x.out_stride * size // 4 for x in (*b, *rest))) \
        if out_words else 1
    na_in = 1 if chained(a) else len(a)
    ints = (*_pad([x.extent for x in a[:-1]], 2), *_pad([x.in_stride for x in a], 3),
            *_pad([x.extent for x in b[:-1]], 2), *_pad([x.out_stride for x in b], 3),
            seg_len, seg_words, *_pad([x.extent for x in segments[:1]], 1), *_pad([x.in_stride for x in segments], 2),
            *_pad([x.extent for x in rest[:-1]], 3), *_pad([x.in_stride for x in rest], 4),
            *_pad([x.out_stride for x in rest], 4), sides.size_a, sides.size_b, tiles_a, tiles_b, nbytes)
    # digits by multiplying (WORDS_MULTIPLY) where the indices of A, of B's words and of its elements fit 31 bits and
    # every divisor is 2 or more (a segment of one word is not)
    magic = WORDS_MULTIPLY and not wide and (not segments or seg_words >= 2) and \
        max(sides.size_a + config.block_a + 4, 4 * (words_b + config.block_cw + seg_words)) < 2**31
    if magic:
        segment_pairs = _magic_pairs([seg_words, segments[0].extent] if segments else [], 2)
        ints += (*_multipliers(a), *segment_pairs, *_multipliers(b))
    else:
        ints += (0,) * 12
    constexprs = {"NA_IN": na_in, "NB": len(b), "NS": len(segments), "NR": len(rest), "BLOCK_A": config.block_a,
                  "BLOCK_CW": config.block_cw, "E": size, "IN_WORDS": in_words, "OUT": out, "WIDE": wide,
                  "ASM": inline_asm(),
                  # shifted runs take each group's successor gathered from the tile, not read again: 1.08x on 30
                  # random cases (0.93x-1.55x; H200, 2026-11-26, docs/permute.md)
                  "NEXT_BY_GATHER": out == 1 and config.block_a // 4 >= 2, "IN_ALIGN": in_align,
                  "OUT_ALIGN": out_align, "MAGIC": magic}
    plan = EnginePlan(perm, config, 4, reason or "given")
    plan.pieces.append((0, 0, Launch(permute_words, programs, ints, constexprs, config.num_warps, 4)))
    return plan


def _build_shifted_runs(perm: Permutation, config: ShiftedRunsConfig | None, reason: str | None) -> EnginePlan:
    """The permute_runs_words plan: units in bytes along the output's next axis, the rest axes in the launch."""
    from .permute_kernel import permute_runs_words

    if config is None:
        config = ShiftedRunsConfig()
    if not shifted_runs_fit(perm, config.block):
        raise ValueError("ShiftedRunsConfig: the permutation is not one permute_runs_words takes (engine.permute."
                         f"shifted_runs_fit: a unit of {SHIFTED_UNIT_MIN} bytes or more contiguous on both sides, at "
                         f"most {4 * config.block - 3} bytes, positive strides, at most four more axes)")
    axes = word_axes(perm, 1)  # outermost first, the unit's bytes last
    unit, one, rest = axes[-1].extent, axes[-2], tuple(reversed(axes[:-2]))
    runs = (4 * config.block - 3) // unit
    reason = reason or (f"general permutation: units of {unit} bytes contiguous on both sides, {runs} a program in "
                        f"funnel-shifted 32-bit words, along an axis of {one.extent}, {len(rest)} more axes")
    units = one.extent * math.prod(axis.extent for axis in rest)
    programs = math.ceil(units / runs)
    nbytes = sum((x.extent - 1) * x.in_stride for x in (one, *rest)) + unit
    wide = max(nbytes, perm.elements * perm.itemsize) + 4 * config.block >= engine_plan.WIDE_FROM or \
        programs >= engine_plan.WIDE_FROM
    magic = WORDS_MULTIPLY and not wide and units + _pow2_at_least(runs) < 2**31  # 31-bit unit indices
    ints = (units, one.extent, one.in_stride, *_pad([x.extent for x in rest[:-1]], 3),
            *_pad([x.in_stride for x in rest], 4), nbytes,
            *(_lane_multipliers(one.extent, [x.extent for x in rest]) if magic else [0] * 8))
    constexprs = {"NR": len(rest), "UNIT": unit, "RUNS": runs, "RUNS_P2": _pow2_at_least(runs),
                  "BLOCK_W": config.block, "WIDE": wide, "ASM": inline_asm(), "MAGIC": magic}
    plan = EnginePlan(perm, config, 4, reason)
    plan.pieces.append((0, 0, Launch(permute_runs_words, programs, ints, constexprs, config.num_warps, 4)))
    return plan


def candidates(perm: Permutation) -> list[tuple[int, PermuteConfig | RunsConfig | PermuteWordsConfig |
                                                ShiftedRunsConfig | PermuteInterleaveConfig]]:
    """(word, config) of each plan autotune measures for a permutation: the planner's own first, then the element
    tiles in the widest word with the heuristic's tile on 4 and 8 warps, plain and packed where packing changes
    side A. Measured on 101 random permutations whose side A holds under PACK_BYTES, the best of these ran 1.17x
    the planner's plan in geometric mean; no rule over the plans' integers told beforehand which (H200,
    2026-11-26, docs/permute.md). Where permute_interleave fits, also its programs of 256 lanes on 8 warps: ahead of
    the planner's 128 on 4 by 3-19% on 8 of the 80 cases of its probe, behind on most (2026-11-27, docs/permute.md).
    Where the planner's permute_words tile writes its output element by element, that tile on ITEMS_WARPS warps.
    Where the planner's 1-byte element tiles move 16-byte vectors with B one run of the input, VECTOR_TILES too.
    Where the planner moves whole units a program in permute_runs, the same with `span` the other way. Where the
    permutation is a batch of inner blocks (inner_block) that permute_gather fits, permute_gather in programs of
    1,024 words.
    """
    natural = natural_word(perm)
    planned = build(perm, natural)
    out = [(natural, planned.config)]
    if isinstance(planned.config, RunsConfig) and planned.pieces[0][2].constexprs["CHUNKS"] == 1:
        out.append((natural, dataclasses.replace(planned.config, span=not planned.config.span)))
    if isinstance(planned.config, PermuteWordsConfig) and planned.pieces[0][2].constexprs["OUT"] == 2 and \
            planned.config.num_warps != ITEMS_WARPS:
        out.append((4, dataclasses.replace(planned.config, num_warps=ITEMS_WARPS)))
    if interleave_fit(perm) and (4, INTERLEAVE_WIDE) not in out:
        out.append((4, INTERLEAVE_WIDE))
    if gather_fit(perm) and inner_block(perm) and not isinstance(planned.config, PermuteGatherConfig):
        out.append((widest_word(perm), PermuteGatherConfig()))
    if natural == 1 and isinstance(planned.config, PermuteConfig) and vector_run(planned.pieces[0][2]):
        sides = split(perm, 1, SIDE_BYTES)
        out += [(1, c) for c in dict.fromkeys(heuristic(sides, base) for base in VECTOR_TILES)
                if (1, c) not in out]
    word = widest_word(perm)
    target = max(16, SIDE_BYTES // word)
    plain_a = split(perm, word, target).a
    for packed in (False, True):
        sides = split(perm, word, target, PACK_BYTES if packed else 0)
        if packed and sides.a == plain_a:
            continue
        base = heuristic(sides)
        for warps in (4, 8):
            config = PermuteConfig(base.block_a, base.block_b, warps, packed)
            if (word, config) not in out:
                out.append((word, config))
    return out


def build(perm: Permutation, word: int,
          config: PermuteConfig | RunsConfig | PermuteWordsConfig | ShiftedRunsConfig | PermuteInterleaveConfig
          | PermuteGatherConfig | None = None,
          reason: str | None = None) -> EnginePlan:
    if isinstance(config, PermuteGatherConfig):
        return _build_gather(perm, word, config, reason)
    if isinstance(config, PermuteInterleaveConfig) or (config is None and word == 4 and interleave_ok(perm)):
        return _build_interleave(perm, config, reason)
    words = isinstance(config, PermuteWordsConfig) or (config is None and word == 4)
    sides = words_sides(perm) if words else None
    if isinstance(config, PermuteWordsConfig) or sides is not None:
        return _build_words(perm, sides, config, reason)
    if isinstance(config, ShiftedRunsConfig) or (config is None and word == 4 and shifted_runs_ok(perm)):
        return _build_shifted_runs(perm, config, reason)
    if isinstance(config, RunsConfig) or (config is None and runs_ok(perm, word)):
        return _build_runs(perm, word, config, reason)
    if config is None and gather_ok(perm):
        return _build_gather(perm, word, None, reason or f"general permutation: a batch of blocks of "
                             f"{inner_block(perm)} elements permuted inside, the output as one run, each word gathered")
    packed = isinstance(config, PermuteConfig) and config.packed
    sides = split(perm, word, max(16, SIDE_BYTES // word), PACK_BYTES if packed else 0,
                  fill_block=tile_base(word)[0], fill=FILL_A if EXTEND_A else 0.0,
                  third_axis=runs_align_better if word <= MULTIPLY_WORDS_MAX else None)
    inner, outer = sides.rest[:REST_IN_LAUNCH], sides.rest[REST_IN_LAUNCH:]
    if outer and math.prod(x.extent for x in inner) * sides.size_a * sides.size_b >= 2**31:
        raise ValueError("a permutation this large with more than four tile-less axes is not supported")
    launch = None
    if config is None:
        first = config = heuristic(sides)
        launch = _launch(sides, config, inner)
        unaligned = word in UNALIGNED_TILES and not _in_vectors(launch)
        wide_elements = word in UNALIGNED_TILES and perm.itemsize in WIDE_BASE_ITEMSIZES
        if unaligned or wide_elements:
            config = heuristic(sides, UNALIGNED_TILES[word])
        why = (", accesses narrower than 16-byte vectors: the longer tile" if unaligned else
               f", {perm.itemsize}-byte elements: the longer tile" if wide_elements else "")
        narrowed = narrow_b(sides, config)
        if narrowed != config:
            config = narrowed
            why += f", B in blocks of {NARROW_B} words: fewer idle lanes"
        if config != first:
            launch = None  # built below, once, for the tile taken
        reason = reason or (f"general permutation: tile sides of {len(sides.a)} and {len(sides.b)} axes "
                            f"({sides.size_a} x {sides.size_b} words of {word} B), {len(sides.rest)} more axes" + why)
    plan = EnginePlan(perm, config, word, reason or "given")
    if launch is None:
        launch = _launch(sides, config, inner)
    for index in itertools.product(*(range(x.extent) for x in outer)):
        plan.pieces.append((sum(i * x.in_stride for i, x in zip(index, outer)) * word,
                            sum(i * x.out_stride for i, x in zip(index, outer)) * word, launch))
    return plan
