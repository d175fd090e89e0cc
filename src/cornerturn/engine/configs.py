"""Launch configurations of the engine's kernels, as data: the heuristic choice and the autotune candidates.

A problem moves `itemsize`-byte elements; the kernels move machine words of `word` bytes (the widest of 8, 4,
2, 1 that divides the element size, the strides and the base addresses' alignment), WORDS of them per element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..problem import Problem

TILE_BYTES = 16 * 1024  # data per tile in the heuristic: enough in flight per SM, little shared memory
# matrices of at most SMALL_BYTES take 32 x 32 tiles with 4 warps: more, shorter programs (a float32 128x128 in
# 3.3 us of GPU time against 4.2 us with its 64x128 tile, on an H200; docs/engine.md)
SMALL_BYTES = 1 << 20
MAX_BLOCK = 1024


def check_tile(config, *blocks: str, low: int = 1, high: int = MAX_BLOCK) -> None:
    """The rules of a tile launch: each of the `blocks` fields a power of two from `low` to `high` (up to MAX_BLOCK
    unless told), num_warps one that Triton takes; errors name the config's class and field."""
    kind = type(config).__name__
    for name in blocks:
        v = getattr(config, name)
        if v < low or v > high or v & (v - 1):
            raise ValueError(f"{kind}.{name}: must be a power of two in {low}..{high}, got {v}")
    if config.num_warps not in (1, 2, 4, 8, 16):
        raise ValueError(f"{kind}.num_warps: must be one of 1, 2, 4, 8, 16, got {config.num_warps}")


@dataclass(frozen=True)
class TileConfig:
    """A transpose_tiles launch: tile of block_r x block_c elements, num_warps warps per program."""

    block_r: int
    block_c: int
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block_r", "block_c")

    @property
    def name(self) -> str:
        return f"tiles{self.block_r}x{self.block_c}-w{self.num_warps}"


def _check_word_tile(config) -> None:
    """A tile of block_r rows x block_cw 32-bit words holding groups of 4 rows: TileConfig's rules, and block_r
    at least 4."""
    TileConfig(config.block_r, config.block_cw, config.num_warps)  # same rules
    if config.block_r < 4:
        raise ValueError(f"{type(config).__name__}.block_r: must be >= 4, got {config.block_r}")


@dataclass(frozen=True)
class PairsConfig:
    """A transpose_pairs launch (16-byte elements with contiguous columns, as 8-byte words)."""

    block_r: int
    block_c: int
    num_warps: int = 4

    def __post_init__(self) -> None:
        TileConfig(self.block_r, self.block_c, self.num_warps)  # same rules

    @property
    def name(self) -> str:
        return f"pairs{self.block_r}x{self.block_c}-w{self.num_warps}"


OUT_MODES = ("words", "shifted", "items")  # transpose_words' OUT: how output rows are written
WORDS_OUT = ("shifted", "items", "joined")  # WordsConfig.out


@dataclass(frozen=True)
class WordsConfig:
    """A transpose_words launch (1- and 2-byte elements moved as 32-bit words, rows starting anywhere): block_r rows
    x block_cw words. `out` says how output rows that do not start at whole words are written: as words shifted
    into place from two groups of rows ("shifted"), the same with the word where one output row ends and the next
    begins built whole where the rows lie end to end ("joined"), or element by element ("items"); rows that do
    start at whole words are written as words whatever it says."""

    block_r: int
    block_cw: int
    num_warps: int = 4
    out: str = "shifted"

    def __post_init__(self) -> None:
        _check_word_tile(self)
        if self.out not in WORDS_OUT:
            raise ValueError(f"WordsConfig.out: one of {', '.join(WORDS_OUT)}, got {self.out!r}")

    @property
    def name(self) -> str:
        return f"words{self.block_r}x{self.block_cw}w-w{self.num_warps}" + ("" if self.out == "shifted" else
                                                                             f"-{self.out}")


def words_candidates(items: bool) -> list[WordsConfig]:
    """The words kernel's tiles that the planner's table and autotuning measure: 4 to 64 KiB, 4 or 8 warps, and with
    `items` (output rows that start inside a word) a few that write those element by element or joined."""
    found = [WordsConfig(br, bcw, w) for br, bcw in ((32, 32), (64, 16), (64, 32), (64, 64), (128, 16), (128, 32),
                                                      (128, 64), (256, 16), (256, 32), (256, 64)) for w in (4, 8)]
    if items:
        found += [WordsConfig(br, bcw, w, "items") for br, bcw, w in ((64, 16, 4), (64, 32, 4), (128, 32, 4),
                                                                       (128, 32, 8), (256, 16, 8))]
        found += [WordsConfig(br, bcw, 4, "joined") for br, bcw in ((64, 32), (128, 16))]
    return found


def words_ok(problem: Problem) -> bool:
    """1- and 2-byte elements with contiguous columns and positive strides, the matrices of one launch in one
    piece whose separate pieces start at whole words: transpose_words, whatever the sides (the words' addresses are
    checked at launch: engine.runtime narrows the plan where x or out is not 4-byte aligned)."""
    return (problem.kind == "transpose" and problem.itemsize in (1, 2) and problem.col_stride == problem.itemsize
            and all(s > 0 for s in (*problem.batch_strides, problem.row_stride))
            and all(s % 4 == 0 for s in problem.batch_strides[:-1]))


def pairs_ok(problem: Problem, word: int) -> bool:
    return (problem.kind == "transpose" and problem.itemsize == 16 and word == 8
            and problem.col_stride == 16)


NARROW_MAX_ROW_BYTES = 64  # output rows of at most this many bytes: what transpose_narrow takes


@dataclass(frozen=True)
class NarrowConfig:
    """A transpose_narrow launch (1- and 2-byte elements, output rows of a few bytes): programs writing block_ow
    32-bit words of the output each, num_warps warps; the tile of input rows they read follows from the matrix."""

    block_ow: int = 1024
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block_ow", low=64, high=4096)

    @property
    def name(self) -> str:
        return f"narrow{self.block_ow}-w{self.num_warps}"


@dataclass(frozen=True)
class InterleaveConfig:
    """A transpose_interleave launch (2 or 4 rows of 1- or 2-byte elements, or 3 to INTERLEAVE_MAX_BYTE_ROWS of
    bytes): programs reading block_cw words of every row, num_warps warps."""

    block_cw: int = 256
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block_cw")

    @property
    def name(self) -> str:
        return f"interleave{self.block_cw}-w{self.num_warps}"


# transpose_interleave takes matrices of up to this many rows (of bytes, and since 2026-11-27 of 2-byte elements; 32
# rows or more would spill); the skinny rule gives byte ones of 5 or more programs
# of 128 words a row, 4 warps: 95% of the copy in geometric mean over 30 random matrices of 5-31 rows (83-107%),
# 1.81x the plans before (1.09x-2.88x; NVIDIA H200, 2026-11-27, docs/engine.md, "Skinny matrices")
INTERLEAVE_MAX_BYTE_ROWS = 31


def interleave_ok(problem: Problem) -> bool:
    """What transpose_interleave takes: a matrix that words_ok takes (1- and 2-byte elements) with 2 to
    INTERLEAVE_MAX_BYTE_ROWS rows; each matrix's output at a whole word (one matrix, or outputs of a whole number of
    words), or, in one batch axis, anywhere (outputs_shifted)."""
    return words_ok(problem) and 2 <= problem.rows <= INTERLEAVE_MAX_BYTE_ROWS and (
        not outputs_shifted(problem) or len(problem.batch) == 1)


# the skinny rule interleaves 2-byte matrices of up to this many rows: on 24 random ones of 3-31 rows, programs of 128
# words a row ran 1.05x-1.98x the plans before up to 28 rows (but shifted outputs of 23 rows, 0.89x), level at 30 and
# 0.97x at 31 (NVIDIA H200, 2026-11-27, docs/engine.md, "Skinny matrices")
INTERLEAVE_MAX_HALF_ROWS = 28

# batches whose outputs start inside words, of at least this many byte rows: programs of 256 words a row, 5-9 points
# ahead of 128 on all six such matrices of 22-31 rows of a random seed, 11 behind on 17 rows (NVIDIA H200,
# 2026-11-27, docs/engine.md, "Skinny matrices")
SHIFTED_LONG_FROM_ROWS = 20


def outputs_shifted(problem: Problem) -> bool:
    """Whether matrices of the batch have outputs that start inside words (C-contiguous outputs)."""
    return problem.batch_count > 1 and problem.rows * problem.cols * problem.itemsize % 4 != 0


def narrow_ok(problem: Problem) -> bool:
    """What transpose_narrow takes: a matrix that words_ok takes whose output rows (its input's rows, `rows`
    elements) hold 2 to NARROW_MAX_ROW_BYTES bytes, and where each matrix's output starts at a whole word (one
    matrix, or outputs of a whole number of words)."""
    row_bytes = problem.rows * problem.itemsize
    return (words_ok(problem) and problem.rows >= 2 and row_bytes <= NARROW_MAX_ROW_BYTES
            and (problem.batch_count == 1 or row_bytes * problem.cols % 4 == 0))


def narrow_tile(problem: Problem, config: NarrowConfig) -> tuple[int, int]:
    """(BLOCK_R, BLOCK_CW) of transpose_narrow: every row, and the words of as many columns as block_ow output words
    can span (their first element anywhere in a column)."""
    pack = 4 // problem.itemsize
    rows = problem.rows
    spanned = (rows - 2 + config.block_ow * pack) // rows + 1
    return _pow2_at_least(rows), _pow2_at_least(-(-spanned // pack))


@dataclass(frozen=True)
class SplitConfig:
    """A transpose_split launch (matrices of a few columns of 1- or 2-byte elements, rows end to end): programs of
    `block` lanes, each a group of 4 / itemsize input rows, num_warps warps."""

    block: int = 256
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block", low=32)

    @property
    def name(self) -> str:
        return f"split{self.block}-w{self.num_warps}"


SPLIT_MAX_COLS = {1: 31, 2: 16}  # columns that transpose_split takes: a lane keeps C words, twice where shifted


def split_ok(problem: Problem) -> bool:
    """What transpose_split takes: a matrix that words_ok takes of 2 to SPLIT_MAX_COLS columns whose rows lie end to
    end (each matrix's input one run) and whose batch, if any, is one axis."""
    return (words_ok(problem) and 2 <= problem.cols <= SPLIT_MAX_COLS[problem.itemsize]
            and problem.row_stride == problem.cols * problem.itemsize and len(problem.batch) <= 1)


def split_shifted(problem: Problem) -> bool:
    """Whether transpose_split's output rows start inside words: rows not a whole number of words."""
    return problem.rows % (4 // problem.itemsize) != 0


# Few columns whose rows lie end to end move in transpose_split where a row holds up to SPLIT_MAX_BYTES, in programs
# of 512 lanes where output rows start inside words and of 256 where they start at whole words (but not rows of
# whole words there: the words kernel's tiles read those as they lie, and ran them at 91-99% of the copy, ahead of
# transpose_split on 4 of 6 by 3-7%); shifted rows of up to SPLIT_MAX_SHIFTED_BYTES in programs of 256. Not columns
# that are a multiple of 16: uint8 4768889 x 16 ran at 22-24% of the copy in every program size (2026-11-29), and with
# the kernel's span unspecialised (commit ebb99c7) 35-46% where the words kernel ran 65-68% (seed 12011). 8 columns
# ran at 22-24% then too; since, bytes at 1.01x-1.06x the words kernel in programs of 512 and 2-byte elements at
# 1.12x-1.14x in programs of 256 (NVIDIA H200, 2026-12-01, `scripts/split_probe.py OUT 12011 16 --cols=8,16`); on
# the fresh seed 12021 all 19 matrices the change reaches ran ahead (bytes 1.01x-1.05x, 2-byte 1.08x-1.16x).
# Batches only up to SPLIT_MAX_BATCH_BYTES a row: the words kernel's tiles ran batches of 11-15 bytes a row at
# 77-101% of the copy, and transpose_split at 0.88x-1.00x those. Set on seeds 9501 and 9502 (61 matrices; NVIDIA
# H200, 2026-11-29) and 9503 (the rows of whole words), checked on seed 9504; docs/engine.md, "Pixels split into
# planes".
SPLIT_MAX_BYTES = 12
SPLIT_MAX_SHIFTED_BYTES = 20
SPLIT_MAX_BATCH_BYTES = 10


def split_rule(problem: Problem) -> SplitConfig | None:
    """transpose_split's program for a matrix of few columns (see above), or None where the rule leaves it."""
    if not split_ok(problem) or problem.cols % 16 == 0:
        return None
    row_bytes = problem.cols * problem.itemsize
    shifted = split_shifted(problem)
    if problem.batch_count > 1 and row_bytes > SPLIT_MAX_BATCH_BYTES:
        return None
    if shifted and row_bytes <= SPLIT_MAX_BYTES:
        return SplitConfig(512, 4)
    if (shifted and row_bytes <= SPLIT_MAX_SHIFTED_BYTES) or (not shifted and row_bytes <= SPLIT_MAX_BYTES
                                                              and row_bytes % 4):
        return SplitConfig(256, 4)
    return None


@dataclass(frozen=True)
class CopyConfig:
    block: int = 4096
    num_warps: int = 8

    @property
    def name(self) -> str:
        return f"copy{self.block}-w{self.num_warps}"


@dataclass(frozen=True)
class GatherConfig:
    """A transpose_gather launch: `block` output elements a program (a power of two), num_warps warps."""

    block: int = 2048
    num_warps: int = 4

    def __post_init__(self) -> None:
        check_tile(self, "block", low=32, high=8 * MAX_BLOCK)

    @property
    def name(self) -> str:
        return f"gather{self.block}-w{self.num_warps}"


# Batches of small matrices of 4- to 16-byte elements move in transpose_gather (GATHER_BLOCKS elements a program by
# element size) where a matrix holds at most GATHER_MATRIX_BYTES or the tile the planner would take fills under
# GATHER_FILL of its lanes with elements (the tile holds one matrix, padded to powers of two along both sides). On 40
# random batches of matrices with sides of 2 to 128 (seed 9001) the 21 such ran 2.17x the tiles in geometric mean
# (1.03x-11.6x: float32 2702631 x (5x4) 7% -> 91% of the copy, complex128 1315168 x (5x5) 32% -> 97%), the other 19
# 0.50x-1.02x, 17 behind (tiles that fill their lanes and matrices of several KiB, whose gathers the L1 holds less
# of); on the fresh seeds 9002 and 9003, 2.08x and 3.49x over 20 and 23. H200, 2026-11-29, docs/engine.md, "Batches
# of small matrices".
GATHER_SMALL = True
GATHER_MATRIX_BYTES = 1024
GATHER_FILL = 0.3
GATHER_MAX_SIDE = 128  # the sides the rule was measured on (2 to 128): larger matrices gather from more than the L1
GATHER_BLOCKS = {4: 1024, 8: 2048, 16: 2048}


def padded_fill(size_a: int, size_b: int, block_a: int, block_b: int) -> float:
    """The share of a tile's lanes that hold elements: the sides' extents over the extents rounded up to whole
    blocks."""
    return size_a * size_b / (-(-size_a // block_a) * block_a * -(-size_b // block_b) * block_b)


def tile_fill(problem: Problem, config) -> float:
    """The share of a tile's lanes that hold elements of one matrix (a TileConfig's or PairsConfig's block_r x
    block_c over the matrix, ragged edges padded: padded_fill); 1 for other configurations."""
    if not isinstance(config, (TileConfig, PairsConfig)):
        return 1.0
    return padded_fill(problem.rows, problem.cols, config.block_r, config.block_c)


def small_matrices(problem: Problem, config, word: int | None = None) -> tuple[int, GatherConfig, str] | None:
    """(word, GatherConfig, reason) for a transpose of 4- to 16-byte elements with sides of at most GATHER_MAX_SIDE
    whose matrices hold at most GATHER_MATRIX_BYTES, or that `config` (the plan it would take; the heuristic's in
    `word` where None) tiles under GATHER_FILL full; else None."""
    if not GATHER_SMALL or problem.kind != "transpose" or problem.itemsize not in GATHER_BLOCKS or \
            max(problem.rows, problem.cols) > GATHER_MAX_SIDE:
        return None
    matrix = problem.rows * problem.cols * problem.itemsize
    if matrix <= GATHER_MATRIX_BYTES:
        why = f"matrices of {matrix} B"
    else:
        fill = tile_fill(problem, config or heuristic(problem, word))
        if fill >= GATHER_FILL:
            return None
        why = f"tiles {fill:.0%} full"
    return (word_size(problem), GatherConfig(GATHER_BLOCKS[problem.itemsize]),
            f"small matrices: {why}, moved as one flat run (engine.configs.small_matrices)")


def _pow2_at_most(n: int) -> int:
    return 1 << max(0, int(n).bit_length() - 1)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, int(n - 1).bit_length())


def word_size(problem: Problem, *addresses: int) -> int:
    """The widest machine word (8, 4, 2, 1 bytes) that divides the element size, every stride and address."""
    values = [problem.itemsize, *problem.batch_strides, problem.row_stride, problem.col_stride, *addresses]
    g = 0
    for v in values:
        g = math.gcd(g, abs(int(v)))
    for w in (8, 4, 2, 1):
        if g % w == 0 and problem.itemsize % w == 0:
            return w
    return 1


def natural_word(problem: Problem) -> int:
    """The word a plan moves by default: 4 bytes for 1- and 2-byte elements that transpose_words takes (the
    addresses must then be multiples of 4; engine.runtime narrows the plan where they are not), else the widest
    that fits."""
    return 4 if words_ok(problem) else word_size(problem)


# Rows that are not whole 16-byte runs (an odd side) move one element per access on that side, and each run of a
# row straddles one more sector; longer runs on that side pay: (element size, input rows unaligned, output rows
# unaligned) -> tiles, the best of an autotuning sweep on an H200 (docs/engine.md). Output rows unaligned take tall
# tiles (long output runs), input rows unaligned wide ones.
UNALIGNED_TILES = {
    (1, True, True): TileConfig(64, 128, 4), (1, True, False): TileConfig(64, 256, 8),
    (2, True, True): TileConfig(256, 64, 8), (2, True, False): TileConfig(32, 256, 8),
    (2, False, True): TileConfig(256, 64, 8),
    (4, True, True): TileConfig(256, 32, 8), (4, True, False): TileConfig(64, 128, 8),
    (4, False, True): TileConfig(256, 32, 8),
    (8, True, True): TileConfig(128, 32, 8), (8, True, False): TileConfig(32, 64, 8),
    (8, False, True): TileConfig(128, 32, 8),
}


def unaligned_tiles(problem: Problem, word: int) -> TileConfig | None:
    """UNALIGNED_TILES' choice for a matrix of one-word elements with contiguous columns and an odd side, where
    the matrix holds at least one whole tile; None elsewhere."""
    if problem.kind != "transpose" or word != problem.itemsize or problem.col_stride != problem.itemsize:
        return None
    input_odd = any(s % 16 for s in (*problem.batch_strides, problem.row_stride))
    output_odd = (problem.rows * problem.itemsize) % 16 != 0
    config = UNALIGNED_TILES.get((problem.itemsize, input_odd, output_odd))
    if config is None or problem.rows < config.block_r or problem.cols < config.block_c:
        return None
    return config


def heuristic(problem: Problem, word: int | None = None) -> TileConfig | CopyConfig | WordsConfig | PairsConfig:
    """A good configuration on first use, without measuring: square tiles of about TILE_BYTES, narrowed to the
    matrix where it is skinny so that no lanes idle and both the load and the store stay coalesced; packed
    words for narrow elements; the shapes that autotuning found best on an H200 where they differ."""
    if problem.kind != "transpose":
        return CopyConfig()
    word = word or natural_word(problem)
    if word == 4 and words_ok(problem):
        pack = 4 // problem.itemsize
        block_cw = min(32, _pow2_at_least(-(-problem.cols // pack)))
        block_r = max(min(128 if problem.elements * problem.itemsize > SMALL_BYTES else 32,
                          _pow2_at_least(problem.rows)), 4)
        return WordsConfig(block_r, block_cw, 4, "items")  # the planner's table measured "items" ahead on most
    if pairs_ok(problem, word):
        return PairsConfig(32, 64, 8)  # measured best on an H200 (docs/engine.md)
    if problem.itemsize == 16 and problem.rows >= 8 and problem.cols >= 32:
        return TileConfig(8, 32, 8)
    unaligned = unaligned_tiles(problem, word)
    if unaligned is not None:
        return unaligned
    if problem.rows >= 32 and problem.cols >= 32 and problem.elements * problem.itemsize <= SMALL_BYTES:
        return TileConfig(32, 32, 4)
    elements = max(64, TILE_BYTES // problem.itemsize)
    side = _pow2_at_most(int(math.isqrt(elements)))
    if side < problem.cols <= 2 * side:  # one tile spans the columns: 2097152x96 -> 64x128
        return TileConfig(side, 2 * side, 8)
    block_c = min(side, _pow2_at_least(problem.cols))
    block_r = min(_pow2_at_least(problem.rows), _pow2_at_most(elements // block_c), MAX_BLOCK)
    if block_r < side:  # few rows: give the spare lanes to the columns
        block_c = min(_pow2_at_least(problem.cols), _pow2_at_most(elements // block_r), MAX_BLOCK)
    warps = 8 if block_r * block_c * problem.itemsize >= 16 * 1024 else 4
    return TileConfig(block_r, block_c, warps)


# Byte matrices of JOINED_MIN_ROWS to JOINED_MAX_ROWS - 1 rows, output rows that do not start at whole words: words
# tiles of 64 rows x 32 words, the word where one output row ends and the next begins built whole. Against the
# heuristic's tile (every row, written element by element) 1.15x in geometric mean over 20 matrices of 32-255 rows
# (0.94x-1.41x) and 1.11x on 26 of a fresh seed; on 9-31 rows every tile tried ran level with the heuristic's or
# behind (NVIDIA H200). On an H100 the matrices of 192-255 rows ran behind (0.97x, 5 of 7), those of 32-191 rows
# 1.13x (21); 2026-11-27, docs/engine.md, "Skinny matrices"
JOINED_MIN_ROWS = 32
JOINED_MAX_ROWS = 192
# 2-byte matrices of HALF_TILES_MIN_ROWS to 255 rows: element tiles of every row (in tiles of 64, 128 or 256 rows) by
# 128, 64 or 64 columns, against the heuristic's words tile of 64 or 128 rows x 32 words written element by element:
# 1.14x in geometric mean over 25 matrices of 36-245 rows (0.97x-1.33x), 1.11x and 1.08x over 19 and 15 of two fresh
# seeds (NVIDIA H200, 2026-11-28, docs/engine.md, "Skinny matrices", "Sides of 32 to 255")
HALF_TILES_MIN_ROWS = 32
HALF_ROW_TILES = {64: (128, 4), 128: (64, 4), 256: (64, 8)}  # rows of the tile: (columns, warps)
SKINNY_SIDE = 256  # a side shorter than this: the planner's table (sides of 256 and more) does not hold the matrix
# 16-byte elements with a side of at most this many: element tiles of 8 KiB instead of the pairs kernel's 32 x 64.
# Sides of 2-8 on fresh seeds: 1.35x-4.08x in geometric mean by group on an H200 and an H100, none behind by more than
# 1%; sides of 9-16: 1.26x on the H200 but 1.01x on the H100 (13 of 19 behind, by up to 6%); over 16 the pairs
# kernel led on most (2026-11-26, docs/engine.md, "Skinny matrices")
PAIRS_MIN_SIDE = 8


# Batches of matrices whose rows hold fewer words than transpose_interleave's programs read along them (rows of 128-512
# words; 15780 matrices of 29 x 174 bytes, 44 words a row, read 256 a program): rows of up to SHORT_ROWS_GATHER words
# move in transpose_gather, rows under 128 words in programs of 64 words on 2 warps, longer ones in programs of 256
# where the rule's were 512. Set on 64 random batches of 2-31 rows of 16-2,048 bytes of two seeds, where the plans
# before ran at 1-105% of the copy (torch 24-57%); on 40 of a seed drawn after, 4.06x those plans in geometric mean
# (0.82x-45x; median 16% -> 57% of the copy), torch ahead on 28 before and on 9 after, all of 2-byte elements (NVIDIA
# H200, 2026-12-04, docs/engine.md, "Batches of short rows")
SHORT_ROWS = True
SHORT_ROWS_GATHER = 32


def short_rows(problem: Problem, found: tuple[int, object, str]) -> tuple[int, object, str]:
    """The skinny rule's interleave plan `found`, or where the matrices' rows hold fewer words than its programs read
    (SHORT_ROWS), transpose_gather (rows of up to SHORT_ROWS_GATHER words) or narrower programs."""
    config = found[1]
    words = -(-problem.cols * problem.itemsize // 4)
    if not SHORT_ROWS or words >= config.block_cw:
        return found
    if words <= SHORT_ROWS_GATHER:
        return word_size(problem), GatherConfig(1024, 4), f"rows of {words} words, gathered"
    narrow = InterleaveConfig(64, 2) if words < 128 else InterleaveConfig(256, 4)
    if narrow.block_cw >= config.block_cw:
        return found
    return found[0], narrow, f"{found[2]}, programs of {narrow.block_cw} words for rows of {words}"


def skinny(problem: Problem, word: int | None = None, split: bool = True) -> tuple[int, object, str] | None:
    """(word, configuration, reason) for a matrix of 1- or 2-byte elements over SMALL_BYTES with a side under
    SKINNY_SIDE (planes interleaved or split, the transposes that permutations fold into), where the heuristic's
    words tile (4 to 128 rows x 32 words) ran at 15-75% of the copy, or of 16-byte elements with a side of at most
    PAIRS_MIN_SIDE (element tiles of 8 KiB); None elsewhere, or where `word` was fixed to another word than the
    rule's. Few rows: 2 to INTERLEAVE_MAX_BYTE_ROWS rows of bytes or INTERLEAVE_MAX_HALF_ROWS of 2-byte elements
    (interleave_ok; in batches whose outputs start inside words too, their words shifted into place, but for 2-byte
    ones of SHIFTED_LONG_FROM_ROWS rows or more), transpose_interleave (512 words of each row a program up to 4 rows,
    128 beyond, 256 for shifted byte outputs of SHIFTED_LONG_FROM_ROWS rows or more); other 2-byte elements in an odd
    number of rows up to 31, element tiles of every row x 8192 / rows; 2-byte elements in HALF_TILES_MIN_ROWS rows or
    more, element tiles of HALF_ROW_TILES; other byte matrices of up to 8 rows, element tiles; byte matrices of
    JOINED_MIN_ROWS to JOINED_MAX_ROWS - 1 rows, not a multiple of 4 (output rows that start inside words), words
    tiles of 64 rows with output rows joined. Few columns: input rows of up to 16 words (bytes) or 8 (2-byte
    elements), the words kernel with 4,096 words a tile (but those that split_rule gives transpose_split, unless not
    `split`: x or out past a whole word); longer byte rows, tiles of 128 rows with output rows shifted into place.
    (transpose_narrow, once the rule for output rows of 2 to 8 bytes, is left to autotuning: every such matrix
    that it takes is interleaved.)
    Set on 62 matrices and trimmed on 48 more, then 1.69x the heuristic's plan in geometric mean on the 37 of a
    fresh seed that they move (0.97x-3.65x, 34 ahead; NVIDIA H200, 2026-11-26), 1.66x on 35 on an H100, and 1.71x
    on 80 of two more seeds (the longer byte rows among them 1.09x on 12); docs/engine.md, "Skinny matrices". The
    2-byte tiles of 32-255 rows and the byte rows that are a multiple of 4 left to the heuristic came later (2026-11-28,
    1.08x-1.11x and 1.11x-1.23x on two fresh seeds each)."""
    if problem.kind != "transpose" or problem.elements * problem.itemsize <= SMALL_BYTES:
        return None
    size, rows, cols = problem.itemsize, problem.rows, problem.cols
    found = None
    if pairs_ok(problem, word_size(problem)) and min(rows, cols) <= PAIRS_MIN_SIDE:
        span = _pow2_at_least(min(rows, cols))
        other = min(MAX_BLOCK, 8192 // (16 * span))
        config = TileConfig(span, other, 8) if rows <= cols else TileConfig(other, span, 8)
        found = 8, config, f"a side of {min(rows, cols)} 16-byte elements, tiles of 8 KiB"
    elif not words_ok(problem) or min(rows, cols) >= SKINNY_SIDE:
        return None
    elif rows <= cols:
        span = _pow2_at_least(rows)
        shifted = outputs_shifted(problem)
        long_shifted = shifted and rows >= SHIFTED_LONG_FROM_ROWS
        if interleave_ok(problem) and (size == 1 or (rows <= INTERLEAVE_MAX_HALF_ROWS and not long_shifted)):
            config = InterleaveConfig(256 if long_shifted else 512 if rows <= 4 else 128, 4)
            found = 4, config, f"{rows} rows interleaved in registers" + (
                ", outputs shifted into place" if shifted else "")
            found = short_rows(problem, found)
        elif size == 2 and rows % 2 and rows <= 31:
            found = size, TileConfig(span, min(MAX_BLOCK, 8192 // span), 8), "odd rows of 2-byte elements"
        elif size == 1 and rows <= 8:
            found = size, TileConfig(span, MAX_BLOCK, 8), f"output rows of {rows} bytes"
        elif size == 2 and rows >= HALF_TILES_MIN_ROWS:
            block_r = min(256, max(64, span))
            found = size, TileConfig(block_r, *HALF_ROW_TILES[block_r]), f"{rows} rows of 2-byte elements"
        elif size == 1 and JOINED_MIN_ROWS <= rows < JOINED_MAX_ROWS and rows % 4:
            found = 4, WordsConfig(64, 32, 4, "joined"), f"output rows of {rows} bytes, joined into whole words"
    else:
        words = _pow2_at_least(-(-cols // (4 // size)))
        planes = split_rule(problem) if split else None
        if planes is not None:
            found = 4, planes, f"input rows of {cols * size} bytes split into planes"
        elif words <= 16 // size:
            out = "shifted" if words == 2 else "items"
            found = 4, WordsConfig(min(1024, 4096 // words), words, 4, out), f"input rows of {words} words"
        elif size == 1:
            found = 4, WordsConfig(128, words, 4, "shifted"), f"input rows of {cols} bytes, output rows shifted"
    if found is None or (word is not None and word != found[0]):
        return None
    return found[0], found[1], f"skinny: {found[2]} (engine.configs.skinny)"


def candidates(problem: Problem, word: int | None = None) -> list:
    """What autotuning measures: tiles of 4 to 32 KiB no more than 8 times longer than wide (unless the matrix is
    that skinny), 4 or 8 warps; for packable narrow elements also the packed kernel's tiles, of 4 to 64 KiB, and
    transpose_narrow, transpose_interleave and transpose_split where they take the matrix; for
    matrices of 4- to 16-byte elements with both sides under 256, transpose_gather in programs of 1,024 to 4,096."""
    if problem.kind != "transpose":
        return [CopyConfig(b, w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
    word = word or natural_word(problem)
    if word == 4 and words_ok(problem):  # the element kernels of these run in plans of 1- and 2-byte words
        narrow = [NarrowConfig(b, w) for b, w in ((512, 4), (1024, 4), (2048, 4), (2048, 8))] if narrow_ok(problem) \
            else []
        if interleave_ok(problem):
            narrow += [InterleaveConfig(b, w) for b, w in ((64, 2), (128, 4), (256, 4), (512, 4), (512, 8))]
        if split_ok(problem):
            narrow += [SplitConfig(b, 4) for b in (256, 512, 1024)]
        return sorted({heuristic(problem, word), *words_candidates(items=True), *narrow}, key=lambda c: c.name)
    found = {heuristic(problem, word), heuristic(problem, problem.itemsize)}
    if pairs_ok(problem, word):
        for br in (8, 16, 32, 64):
            for bc in (8, 16, 32, 64):
                if 4096 <= br * bc * 16 <= 32 * 1024:
                    for warps in (4, 8):
                        found.add(PairsConfig(br, bc, warps))
    r_cap, c_cap = _pow2_at_least(problem.rows), _pow2_at_least(problem.cols)
    for br in (8, 16, 32, 64, 128, 256, 512, 1024):
        for bc in (8, 16, 32, 64, 128, 256, 512, 1024):
            size = br * bc * problem.itemsize
            skinny = br >= r_cap or bc >= c_cap
            if br > max(r_cap, 8) or bc > max(c_cap, 8) or not 4096 <= size <= 32 * 1024:
                continue
            if not skinny and max(br, bc) > 8 * min(br, bc):
                continue
            for warps in (4, 8):
                found.add(TileConfig(br, bc, warps))
    if problem.itemsize in GATHER_BLOCKS and max(problem.rows, problem.cols) < 256 and problem.itemsize % word == 0:
        found |= {GatherConfig(1024, 4), GatherConfig(2048, 4), GatherConfig(4096, 8)}
    return sorted(found, key=lambda c: c.name)
