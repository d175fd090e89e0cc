"""In-place transposition of square matrices on the GPU: plans of transpose_square_inplace and their launch."""

from __future__ import annotations

import functools
import math

from ..arrays import ArrayView
from .launch import Launch

# (block, warps) per element size, the best of a sweep on an H200 (docs/inplace.md)
SQUARE_DEFAULTS = {1: (128, 4), 2: (64, 4), 4: (64, 4), 8: (32, 4), 16: (32, 4)}
# when the side is not a multiple of 16, accesses are one word each and larger tiles spill registers: an int8
# 128-tile took 17.6 ms for four 16383-squares on an H100, a 64-tile 2.2 ms; with the store pointers computed
# after the barrier (READDRESS), 2-byte elements run best with 8 warps (float16 4095-squares at 67.5% of the
# copy against 58.9% with 4, on an H200; docs/inplace.md)
SQUARE_UNALIGNED = {1: (64, 4), 2: (64, 8), 4: (64, 4), 8: (32, 4), 16: (32, 4)}
# 16-byte elements in 8-byte words move their tiles as rows of words (transpose_square_inplace FLAT): complex128
# 8192^2 at 89.6% of the copy against 84.2% for the 3-D tiles, 8191^2 at 86.8% against 61% (H200, docs/inplace.md)
FLAT_PAIRS = True
# sides whose rows are not whole 4-byte words, of 1- and 2-byte elements: tiles read through aligned 4-byte words
# (transpose_square_funnel), (block, warps) per element size: on an H200 four int8 16383-squares at 50% of the copy
# against 40% element by element, int8 8191-squares 62% against 51%, float16 16383-, 8191- and 4095-squares 70%, 74%
# and 76% against 63%, 67% and 72% (2026-11-23, docs/inplace.md)
FUNNEL_DEFAULTS = {1: (64, 4), 2: (64, 2)}


@functools.cache
def square_launch(batch: int, n: int, itemsize: int, word: int, block: int | None = None,
                  num_warps: int | None = None, flat: bool | None = None, readdress: bool | None = None,
                  across: int = 0, funnel: int = 0) -> Launch:
    """The square kernel's launch; `flat` moves both tiles as whole rows of words and flips them in registers
    (default: FLAT_PAIRS for elements of two words, else not); `readdress` computes the store pointers after
    the barrier (default: where rows are not whole 16-byte runs, so that accesses are one word wide). With
    `across`, the `batch` squares lie `across` to a row of squares in a matrix of across x n columns (the grid
    form), else one after another. With `funnel` (4 or 8: the base is aligned to it), transpose_square_funnel
    reads the tiles through words of that size."""
    from . import kernels
    from .plan import WIDE_FROM

    if funnel:
        return _funnel_launch(batch, n, itemsize, funnel, block, num_warps, across)
    default_block, default_warps = (SQUARE_DEFAULTS if n % 16 == 0 else SQUARE_UNALIGNED)[itemsize]
    block, num_warps = block or default_block, num_warps or default_warps
    tiles = math.ceil(n / block)
    words = itemsize // word
    wide = batch * n * n * words >= WIDE_FROM
    flat = FLAT_PAIRS and words == 2 if flat is None else flat
    readdress = (n * itemsize) % 16 != 0 if readdress is None else readdress
    row_stride = across * n if across else n
    return Launch(kernels.transpose_square_inplace, batch * (tiles * (tiles + 1) // 2),
                  (n, n * row_stride * words, tiles, row_stride, max(1, across)),
                  {"BLOCK": block, "WORDS": words, "WIDE": wide, "FLAT": flat, "READDRESS": readdress,
                   "GRID": bool(across)}, num_warps, word)


def _funnel_launch(batch: int, n: int, itemsize: int, word: int, block: int | None, num_warps: int | None,
                   across: int) -> Launch:
    import os

    from . import kernels
    from .plan import WIDE_FROM

    default_block, default_warps = FUNNEL_DEFAULTS.get(itemsize, (64, 4))  # (4-byte elements: not a default)
    block, num_warps = block or default_block, num_warps or default_warps
    tiles = math.ceil(n / block)
    row_stride = across * n if across else n
    wide = batch * n * n * itemsize + 2 * word >= WIDE_FROM
    return Launch(kernels.transpose_square_funnel, batch * (tiles * (tiles + 1) // 2),
                  (n, n * row_stride, tiles, row_stride, max(1, across)),
                  {"BLOCK": block, "ITEM": itemsize, "WORD": word, "WIDE": wide,
                   "ASM": os.environ.get("TRITON_INTERPRET", "0") != "1", "GRID": bool(across)}, num_warps, word)


def square_word(itemsize: int, ptr: int) -> int:
    """The widest word that divides the element size and the base address."""
    return next(w for w in (8, 4, 2, 1) if itemsize % w == 0 and ptr % w == 0)


def square_funnel(n: int, itemsize: int, align: int) -> int:
    """The word (4) through which transpose_square_funnel reads squares of side n whose bases are all aligned to
    `align` bytes, or 0 where transpose_square_inplace moves them (rows of whole words, elements of 4 bytes or
    more, or bases that are not word-aligned)."""
    return 4 if itemsize in FUNNEL_DEFAULTS and (n * itemsize) % 4 and align % 4 == 0 else 0


def square_default(batch: int, n: int, itemsize: int, align: int, across: int = 0) -> Launch:
    """The square launch with the default settings for squares whose bases are all aligned to `align` bytes."""
    return square_launch(batch, n, itemsize, square_word(itemsize, align), across=across,
                         funnel=square_funnel(n, itemsize, align))


def run_square(x: ArrayView, batch: int, n: int) -> None:
    from .runtime import current_stream, on_device

    launch = square_default(batch, n, x.itemsize, x.ptr)
    device = int(x.device.split(":")[1])
    with on_device(device):
        launch.run_pointers(x.ptr, x.ptr, current_stream(x, device), device)
