"""In-place transposition of square matrices on the GPU: plans of transpose_square_inplace and their launch."""

from __future__ import annotations

import functools
import math

from ..arrays import ArrayView
from .launch import Launch, inline_asm

# (block, warps) per element size, the best of a sweep on an H200 (docs/inplace.md)
SQUARE_DEFAULTS = {1: (128, 4), 2: (64, 4), 4: (64, 4), 8: (32, 4), 16: (32, 4)}
# when the side is not a multiple of 16, pairs inside the square move without masks (SPLIT_PAIRS), in words as
# wide as the side's alignment allows, and the store pointers are computed after the barrier (READDRESS); the pairs
# on the last column of tiles move one element an access, and larger tiles spill registers (an int8 128-tile took
# 17.6 ms for four 16383-squares on an H100, a 64-tile 2.2 ms). (block, warps) per element size from random squares
# on an H200 (2026-11-26, docs/inplace.md): 8-byte elements with tiles of 64 (1.09x in geometric mean against 32),
# 2-byte with 4 warps (1.03x against 8)
SQUARE_UNALIGNED = {1: (64, 4), 2: (64, 4), 4: (64, 4), 8: (64, 4), 16: (32, 4)}
SPLIT_PAIRS = True
# ... except for 1- and 2-byte squares of LARGE_SQUARE_FROM[itemsize] bytes or more, split: tiles of 128 (rows of 128
# or 256 bytes); on an H200 int8 11364- to 20004-squares at 61-64% of the copy against 50-57% with tiles of 64, float16
# 8004- to 30002-squares 61-77% against 55-69% (2026-11-26); float16 squares of 50-94 MiB 1.05x-1.12x on 7 of 7, of
# 41-47 MiB 0.92x-0.99x, then 1.06x over 10 of 52-94 MiB on a seed drawn after (0.98x-1.12x; 2026-12-04); only where
# rows move in words of LARGE_SQUARE_WORD bytes or more: with rows of 2-byte words the 128-tiles spill (255
# registers; float16 odd sides 25-26% of the copy against 58-60% with 64, int8 sides two off a word 0.81x-0.85x;
# H200, 2026-12-04; docs/inplace.md)
LARGE_SQUARE_FROM = {1: 100 << 20, 2: 48 << 20}
LARGE_SQUARE_TILES = {1: (128, 4), 2: (128, 4)}
LARGE_SQUARE_WORD = 4
# ... and byte squares from MID_BYTES_TWO_WARPS below that, split, whose rows move in words of 4 bytes or more: 2
# warps (int8 squares of 40-88 MiB 1.06x over 11, 0.97x-1.12x; of 11-27 MiB 0.90x-0.98x; rows of 2-byte words
# 0.80x-0.83x; on a seed drawn after, 1.06x over 8 of 41-84 MiB, 0.99x-1.09x; H200, 2026-12-04, docs/inplace.md)
MID_BYTES_TWO_WARPS = 32 << 20
# 16-byte elements in 8-byte words move their tiles as rows of words (transpose_square_inplace FLAT): complex128
# 8192^2 at 89.6% of the copy against 84.2% for the 3-D tiles, 8191^2 at 86.8% against 61% (H200, docs/inplace.md)
FLAT_PAIRS = True
# odd sides of 1- and 2-byte elements: tiles read through aligned 4-byte words (transpose_square_funnel), (block,
# warps) per element size: on an H200 four int8 16383-squares at 50% of the copy against 40% element by element,
# int8 8191-squares 62% against 51%, float16 16383-, 8191- and 4095-squares 70%, 74% and 76% against 63%, 67% and 72%
# (2026-11-23, docs/inplace.md). Sides of bytes two off a whole word take it from FUNNEL_TWO_OFF_FROM; below, the
# split kernel's 2-byte words both ways, which halve the funnel's byte stores, ran ahead on all 5 int8 squares of
# 31-80 MiB (1.04x-1.10x) and all 8 of 9-60 MiB on a seed drawn after (1.08x-1.24x), level from 160 MiB (0.99x over
# 14, 0.96x-1.02x; H200, 2026-12-04, docs/inplace.md)
FUNNEL_DEFAULTS = {1: (64, 4), 2: (64, 2)}
FUNNEL_TWO_OFF_FROM = 100 << 20
# ... but launches of FUNNEL_SPLIT_WHEN_WIDE-byte elements whose offsets take 64 bits (WIDE: 2 GiB or more) take the
# split kernel: the funnel's 2-warp program for 2-byte elements then needs 254 registers and spills (240 below);
# float16 squares of odd sides 33025-39897 ran at 55.7-57.9% of the copy split against 48.2-49.3% (1.17x over 8 of
# two seeds; the funnel on 8 warps 54.5-55.5%; H200, 2026-12-04, docs/inplace.md)
FUNNEL_SPLIT_WHEN_WIDE = {2}
# squares of TWO_WARPS_FROM[itemsize] bytes or more take 2 warps, whatever the table above says: on random squares of
# four seeds (H200, 2026-12-03, docs/inplace.md) 16-byte squares ran at 1.013x in geometric mean on 2 warps against 4
# (0.995x-1.023x, 40 squares), 4-byte ones of 100 MiB or more at 1.028x (0.989x-1.071x, 35 squares; float32 9148^2
# 76% -> 82% of the copy), where the smaller ones lost (0.98x; float32 3047^2 92% -> 86%); 8-byte ones lost (0.91x)
TWO_WARPS_FROM = {4: 100 << 20, 16: 0}

# tile pairs numbered in blocks of PAIR_GROUP x PAIR_GROUP tiles (kernels._tile_pair_of_program) where a column of
# tiles spans PAIR_GROUP_FROM bytes or more (by element size; others PAIR_GROUP_FROM_ELSE): the programs running at
# one time then touch a few blocks of rows instead of every row above the diagonal. On 80 random squares of four seeds
# (H200, 2026-11-28, docs/inplace.md) blocks of 8 ran at 1.07x in geometric mean where this rule takes them (46
# squares, 0.98x-1.30x: int8 35549^2 39% -> 51% of the copy, float32 24407^2 63% -> 70%, float64 22325^2 74% -> 79%)
# and at 0.97x on the smaller ones (0.88x-1.04x), level between 256 and 512 MiB for elements of 2 bytes or more
PAIR_GROUP = 8
PAIR_GROUP_FROM = {1: 100 << 20}
PAIR_GROUP_FROM_ELSE = 512 << 20
# but squares (not the grid form) of odd side under ODD_WHOLE_COLUMNS_BELOW[itemsize] bytes, on 2 warps, keep whole
# columns: on 17 odd float32 squares of 512 MiB or more from ten seeds (H200, 2026-12-04, docs/inplace.md) whole
# columns ran at 1.026x-1.057x the blocks on all 13 up to 2073 MiB (float32 17275^2 70% -> 74% of the copy),
# 0.978x-0.999x on the four from 2917 MiB; even sides lost with them (0.87x-1.01x); on six seeds drawn after, 1.047x
# over 8 (1.039x-1.056x)
ODD_WHOLE_COLUMNS_BELOW = {4: 5 << 29}


def pair_group(n: int, row_stride: int, itemsize: int, num_warps: int | None = None) -> int:
    """PAIR_GROUP where a column of tiles of a square of side n, rows row_stride elements apart, spans the rule's
    bytes, else 1 (pairs numbered down whole columns of tiles); 1 also for a lone square of odd side under
    ODD_WHOLE_COLUMNS_BELOW launched on `num_warps` 2."""
    span = n * row_stride * itemsize
    if n % 2 and num_warps == 2 and row_stride == n and span < ODD_WHOLE_COLUMNS_BELOW.get(itemsize, 0):
        return 1
    return PAIR_GROUP if span >= PAIR_GROUP_FROM.get(itemsize, PAIR_GROUP_FROM_ELSE) else 1


@functools.cache
def square_launch(batch: int, n: int, itemsize: int, word: int, block: int | None = None,
                  num_warps: int | None = None, flat: bool | None = None, readdress: bool | None = None,
                  across: int = 0, funnel: int = 0, split: bool | None = None, align: int | None = None,
                  group: int | None = None) -> Launch:
    """The square kernel's launch; `flat` moves both tiles as whole rows of words and flips them in registers
    (default: FLAT_PAIRS for elements of two words, else not); `readdress` computes the store pointers after
    the barrier (default: where accesses are one element wide: rows that are not whole 16-byte runs, or the
    masked pairs of a split kernel). With
    `across`, the `batch` squares lie `across` to a row of squares in a matrix of across x n columns (the grid
    form), else one after another. With `funnel` (4 or 8: the base is aligned to it), transpose_square_funnel
    reads the tiles through words of that size. `group` numbers the tile pairs in blocks of group x group tiles
    (default: pair_group, told the launch's warps). With `split` (default: SPLIT_PAIRS where n is not a multiple
    of 16), pairs inside the square move without masks, told that rows start at multiples of `align` elements
    (default: side_alignment(n))."""
    from . import kernels
    from .plan import WIDE_FROM

    row_stride = across * n if across else n
    if group is not None and group < 1:
        raise ValueError(f"square_launch: group must be at least 1, got {group}")
    if funnel:
        return _funnel_launch(batch, n, itemsize, funnel, block, num_warps, across,
                              pair_group(n, row_stride, itemsize) if group is None else group)
    unaligned = n % 16 != 0
    split = SPLIT_PAIRS and unaligned if split is None else split
    align = (side_alignment(n) if align is None else align) if split else 1
    defaults = SQUARE_UNALIGNED if unaligned else SQUARE_DEFAULTS
    square_bytes = n * n * itemsize
    if (split and itemsize in LARGE_SQUARE_TILES and square_bytes >= LARGE_SQUARE_FROM[itemsize]
            and align * itemsize >= LARGE_SQUARE_WORD):
        defaults = LARGE_SQUARE_TILES
    default_block, default_warps = defaults[itemsize]
    if split and itemsize == 1 and align >= 4 and MID_BYTES_TWO_WARPS <= square_bytes < LARGE_SQUARE_FROM[1]:
        default_warps = 2
    if square_bytes >= TWO_WARPS_FROM.get(itemsize, math.inf):
        default_warps = 2
    block, num_warps = block or default_block, num_warps or default_warps
    if group is None:
        group = pair_group(n, row_stride, itemsize, num_warps)
    tiles = math.ceil(n / block)
    words = itemsize // word
    wide = batch * n * n * words >= WIDE_FROM
    flat = FLAT_PAIRS and words == 2 if flat is None else flat
    if readdress is None:  # where accesses are one element wide: rows not whole 16-byte runs, or the masked edge
        readdress = (n * itemsize) % 16 != 0 or (split and not flat)
    if n % align:
        raise ValueError(f"square_launch: align {align} does not divide the side {n}")
    return Launch(kernels.transpose_square_inplace, batch * _pair_slots(tiles, group),
                  (n, n * row_stride * words, tiles, row_stride, max(1, across)),
                  {"BLOCK": block, "WORDS": words, "WIDE": wide, "FLAT": flat, "READDRESS": readdress,
                   "GRID": bool(across), "ALIGN": align, "SPLIT": split, "GROUP": group}, num_warps, word)


def _pair_slots(tiles: int, group: int) -> int:
    """Programs a square of `tiles` x `tiles` tiles takes: one per tile pair, or with `group` > 1 one per slot of the
    pairs of blocks of group x group tiles (kernels._tile_pair_of_program)."""
    groups = -(-tiles // group)
    return groups * (groups + 1) // 2 * group * group


def side_alignment(n: int) -> int:
    """The largest power of two below 16 that divides n, or 1 (a side that is a multiple of 16 Triton sees itself)."""
    power = n & -n
    return power if 0 < power < 16 else 1


def funnel_wide(batch: int, n: int, itemsize: int, word: int) -> bool:
    """Whether transpose_square_funnel computes the offsets of `batch` squares of side n in 64 bits (its reads reach
    up to two words past the last element)."""
    from .plan import WIDE_FROM

    return batch * n * n * itemsize + 2 * word >= WIDE_FROM


def _funnel_launch(batch: int, n: int, itemsize: int, word: int, block: int | None, num_warps: int | None,
                   across: int, group: int) -> Launch:
    from . import kernels

    default_block, default_warps = FUNNEL_DEFAULTS.get(itemsize, (64, 4))  # (4-byte elements: not a default)
    block, num_warps = block or default_block, num_warps or default_warps
    tiles = math.ceil(n / block)
    row_stride = across * n if across else n
    wide = funnel_wide(batch, n, itemsize, word)
    return Launch(kernels.transpose_square_funnel, batch * _pair_slots(tiles, group),
                  (n, n * row_stride, tiles, row_stride, max(1, across)),
                  {"BLOCK": block, "ITEM": itemsize, "WORD": word, "WIDE": wide,
                   "ASM": inline_asm(), "GRID": bool(across), "GROUP": group}, num_warps, word)


def square_word(itemsize: int, ptr: int) -> int:
    """The widest word that divides the element size and the base address."""
    return next(w for w in (8, 4, 2, 1) if itemsize % w == 0 and ptr % w == 0)


def square_funnel(n: int, itemsize: int, align: int) -> int:
    """The word (4) through which transpose_square_funnel reads squares of side n whose bases are all aligned to
    `align` bytes, or 0 where transpose_square_inplace moves them (rows of whole words; bytes two off a word in
    squares under FUNNEL_TWO_OFF_FROM, whose rows start at whole pairs; elements of 4 bytes or more; bases that
    are not word-aligned)."""
    if itemsize not in FUNNEL_DEFAULTS or (n * itemsize) % 4 == 0 or align % 4:
        return 0
    return 4 if n % 2 or n * n * itemsize >= FUNNEL_TWO_OFF_FROM else 0


def square_default(batch: int, n: int, itemsize: int, align: int, across: int = 0) -> Launch:
    """The square launch with the default settings for squares whose bases are all aligned to `align` bytes."""
    funnel = square_funnel(n, itemsize, align)
    if funnel and itemsize in FUNNEL_SPLIT_WHEN_WIDE and funnel_wide(batch, n, itemsize, funnel):
        funnel = 0
    return square_launch(batch, n, itemsize, square_word(itemsize, align), across=across, funnel=funnel)


def run_square(x: ArrayView, batch: int, n: int) -> None:
    from .runtime import current_stream, on_device

    launch = square_default(batch, n, x.itemsize, x.ptr)
    device = int(x.device.split(":")[1])
    with on_device(device):
        launch.run_pointers(x.ptr, x.ptr, current_stream(x, device), device)
