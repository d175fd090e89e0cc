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


@functools.cache
def square_launch(batch: int, n: int, itemsize: int, word: int, block: int | None = None,
                  num_warps: int | None = None, flat: bool | None = None, readdress: bool | None = None,
                  across: int = 0) -> Launch:
    """The square kernel's launch; `flat` moves both tiles as whole rows of words and flips them in registers
    (default: FLAT_PAIRS for elements of two words, else not); `readdress` computes the store pointers after
    the barrier (default: where rows are not whole 16-byte runs, so that accesses are one word wide). With
    `across`, the `batch` squares lie `across` to a row of squares in a matrix of across x n columns (the grid
    form), else one after another."""
    from . import kernels
    from .plan import WIDE_FROM

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


def square_word(itemsize: int, ptr: int) -> int:
    """The widest word that divides the element size and the base address."""
    return next(w for w in (8, 4, 2, 1) if itemsize % w == 0 and ptr % w == 0)


def run_square(x: ArrayView, batch: int, n: int) -> None:
    from .runtime import current_stream, on_device

    launch = square_launch(batch, n, x.itemsize, square_word(x.itemsize, x.ptr))
    device = int(x.device.split(":")[1])
    with on_device(device):
        launch.run_pointers(x.ptr, x.ptr, current_stream(x, device), device)
