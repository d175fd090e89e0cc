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
LARGE_BYTE_MATRIX = 128 << 20  # bytes from here on take 64 KiB tiles: still thousands of programs
MAX_BLOCK = 1024


@dataclass(frozen=True)
class TileConfig:
    """A transpose_tiles launch: tile of block_r x block_c elements, num_warps warps per program."""

    block_r: int
    block_c: int
    num_warps: int = 4

    def __post_init__(self) -> None:
        for name in ("block_r", "block_c"):
            v = getattr(self, name)
            if v < 1 or v > MAX_BLOCK or v & (v - 1):
                raise ValueError(f"TileConfig.{name}: must be a power of two in 1..{MAX_BLOCK}, got {v}")
        if self.num_warps not in (1, 2, 4, 8, 16):
            raise ValueError(f"TileConfig.num_warps: must be one of 1, 2, 4, 8, 16, got {self.num_warps}")

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
class PackedConfig:
    """A transpose_packed launch (1- and 2-byte elements in 32-bit words): block_r rows x block_cw words."""

    block_r: int
    block_cw: int
    num_warps: int = 4
    split: bool = False  # combine a word group's rows elementwise instead of summing over their axis

    def __post_init__(self) -> None:
        _check_word_tile(self)

    @property
    def name(self) -> str:
        return f"packed{self.block_r}x{self.block_cw}w-w{self.num_warps}" + ("-split" if self.split else "")


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


@dataclass(frozen=True)
class FunnelConfig:
    """A transpose_funnel launch (bytes whose input rows do not start at whole 32-bit words): block_r rows x
    block_cw words."""

    block_r: int
    block_cw: int
    num_warps: int = 4

    def __post_init__(self) -> None:
        _check_word_tile(self)

    @property
    def name(self) -> str:
        return f"funnel{self.block_r}x{self.block_cw}w-w{self.num_warps}"


# The best of a sweep on an H200 over int8 16384x16383, 16383x16385, 32767x16383 and 4097x4095 (docs/engine.md)
FUNNEL_TILE = FunnelConfig(128, 32, 4)
FUNNEL_FROM = 4096  # both sides at least this long: measured faster there; slower on int8 100000x1001 and 2000x2003


def funnel_ok(problem: Problem) -> bool:
    """Bytes with contiguous columns whose input rows (or matrices of one launch) do not all start at whole
    32-bit words, positive strides, both sides at least FUNNEL_FROM: transpose_funnel, which reads them as
    aligned words."""
    strides = (*problem.batch_strides, problem.row_stride)
    return (problem.kind == "transpose" and problem.itemsize == 1 and problem.col_stride == 1
            and all(s > 0 for s in strides) and any(s % 4 for s in strides)
            and all(s % 4 == 0 for s in problem.batch_strides[:-1])  # separate launches start at whole words
            and min(problem.rows, problem.cols) >= FUNNEL_FROM)


def pairs_ok(problem: Problem, word: int) -> bool:
    return (problem.kind == "transpose" and problem.itemsize == 16 and word == 8
            and problem.col_stride == 16)


@dataclass(frozen=True)
class CopyConfig:
    block: int = 4096
    num_warps: int = 8

    @property
    def name(self) -> str:
        return f"copy{self.block}-w{self.num_warps}"


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


def pack_factor(problem: Problem) -> int:
    """Elements per 32-bit word when the problem can move as words (transpose_packed), else 0."""
    if problem.kind != "transpose" or problem.itemsize not in (1, 2):
        return 0
    pack = 4 // problem.itemsize
    strides_ok = all(s % 4 == 0 for s in (*problem.batch_strides, problem.row_stride))
    if problem.col_stride != problem.itemsize or not strides_ok or problem.rows % pack or problem.cols % pack:
        return 0
    return pack


def natural_word(problem: Problem) -> int:
    """The word a plan moves by default: 4 bytes for packable narrow elements and for bytes read through funnel
    shifts (the input's address must then be a multiple of 4), else the widest that fits."""
    return 4 if pack_factor(problem) or funnel_ok(problem) else word_size(problem)


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


def heuristic(problem: Problem, word: int | None = None) -> TileConfig | CopyConfig | PackedConfig | FunnelConfig:
    """A good configuration on first use, without measuring: square tiles of about TILE_BYTES, narrowed to the
    matrix where it is skinny so that no lanes idle and both the load and the store stay coalesced; packed
    words for narrow elements; the shapes that autotuning found best on an H200 where they differ."""
    if problem.kind != "transpose":
        return CopyConfig()
    word = word or natural_word(problem)
    if word == 4 and funnel_ok(problem):
        return FUNNEL_TILE
    if word == 4 and pack_factor(problem):
        pack = pack_factor(problem)
        block_cw = min(64, _pow2_at_least(problem.cols // pack))
        block_r = max(min(128, _pow2_at_least(problem.rows)), 4)
        if pack == 4:  # bytes: the elementwise (split) form
            if problem.elements >= LARGE_BYTE_MATRIX and problem.rows >= 256:
                # 256-row tiles with 4 warps: about 2 points faster on an H200 and an H100 (docs/engine.md)
                return PackedConfig(256, block_cw, 4, split=True)
            return PackedConfig(block_r, block_cw, 8, split=True)  # 8 warps, measured best on an H200
        return PackedConfig(block_r, block_cw, 4)
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


def candidates(problem: Problem, word: int | None = None) -> list:
    """What autotuning measures: tiles of 4 to 32 KiB no more than 8 times longer than wide (unless the matrix is
    that skinny), 4 or 8 warps; for packable narrow elements also the packed kernel's tiles, of 4 to 64 KiB."""
    if problem.kind != "transpose":
        return [CopyConfig(b, w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
    word = word or natural_word(problem)
    if word == 4 and funnel_ok(problem):  # the other kernels of bytes run in plans of 1-byte words
        return sorted({FunnelConfig(br, bcw, warps) for br in (64, 128, 256) for bcw in (16, 32, 64)
                       for warps in (4, 8) if 4096 <= br * bcw * 4 <= 64 * 1024}, key=lambda c: c.name)
    found = {heuristic(problem, word), heuristic(problem, problem.itemsize)}
    if pairs_ok(problem, word):
        for br in (8, 16, 32, 64):
            for bc in (8, 16, 32, 64):
                if 4096 <= br * bc * 16 <= 32 * 1024:
                    for warps in (4, 8):
                        found.add(PairsConfig(br, bc, warps))
    if word == 4 and pack_factor(problem):
        for br in (32, 64, 128, 256, 512):
            for bcw in (8, 16, 32, 64, 128):
                if 4096 <= br * bcw * 4 <= 64 * 1024:
                    for warps in (4, 8):
                        found.add(PackedConfig(br, bcw, warps))
                        found.add(PackedConfig(br, bcw, warps, split=True))
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
    return sorted(found, key=lambda c: c.name)
