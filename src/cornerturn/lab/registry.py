"""The lab's kernels as data: what each is, how it launches, what it teaches.

`build(kernel, dtype)` compiles (or, under NUMBA_ENABLE_CUDASIM=1, prepares for the simulator) the kernel for
one element type and keeps it; `launch_shape(kernel, rows, cols)` gives the grid and block for an input of
rows x cols. A kernel that cannot run on a problem (in place on a non-square matrix) says why.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

GRID_Y_MAX = 65535


@dataclass(frozen=True)
class LabKernel:
    name: str
    family: str  # copy | naive | tiled | rectangular | inplace
    teaches: str
    factory: str  # "module:function" under cornerturn.lab.kernels
    params: dict = field(default_factory=dict)
    tile: tuple[int, int] = (32, 32)  # rows x columns of the input tile a block covers
    block: tuple[int, int] = (32, 8)  # threads (x, y)
    pad: int = 0
    transposes: bool = True  # False for the copy kernels (the reference)
    in_place: bool = False
    unpadded_twin: str | None = None  # for pictures "before and after padding"
    itemsizes: tuple[int, ...] = (1, 2, 4, 8)

    def cannot_run(self, rows: int, cols: int) -> str | None:
        if self.in_place and rows != cols:
            return f"in place needs a square matrix, got {rows}x{cols}"
        if self.in_place and math.ceil(rows / self.tile[0]) > GRID_Y_MAX:
            return f"in place launches one block per tile pair; {rows} rows exceed {GRID_Y_MAX} tiles"
        return None

    @property
    def uses_shared(self) -> bool:
        return self.family in ("tiled", "rectangular", "inplace") or self.name == "copy-shared"

    def shared_bytes(self, itemsize: int) -> int:
        """Static shared memory per block, as the kernel declares it."""
        if not self.uses_shared:
            return 0
        tiles = 2 if self.in_place else 1
        return tiles * self.tile[0] * (self.tile[1] + self.pad) * itemsize


def _k(name, family, teaches, factory, **kw) -> LabKernel:
    return LabKernel(name, family, teaches, factory, **kw)


REGISTRY: tuple[LabKernel, ...] = (
    _k("copy", "copy", "the ceiling: coalesced reads and writes, no shared memory", "copy:make_copy",
       transposes=False),
    _k("copy-shared", "copy", "what staging through shared memory and a barrier costs a copy",
       "copy:make_copy_shared", transposes=False),
    _k("naive-rows", "naive", "coalesced reads, strided writes: one sector per element written",
       "naive:make_naive_rows"),
    _k("naive-cols", "naive", "strided reads, coalesced writes: reads waste the sectors instead",
       "naive:make_naive_cols"),
    _k("naive-1d", "naive", "one thread per element on a 1-D grid: the row-wise pattern plus index division",
       "naive:make_naive_1d", tile=(1, 1), block=(256, 1)),
    _k("tile32", "tiled", "32x32 shared tile, one element per thread: coalesced both ways, 32-way bank "
       "conflicts reading tile columns", "tiled:make_tiled", params={"tile": 32, "rows": 32, "pad": 0},
       block=(32, 32)),
    _k("tile32-padded", "tiled", "the same tile padded to 32x33: the column reads spread over all banks",
       "tiled:make_tiled", params={"tile": 32, "rows": 32, "pad": 1}, block=(32, 32), pad=1,
       unpadded_twin="tile32"),
    _k("rect32x16", "rectangular", "16-row x 32-column tiles: the write side runs in 64-byte pieces",
       "rectangular:make_rectangular", params={"tile_r": 16, "tile_c": 32, "rows": 8, "pad": 0}, tile=(16, 32)),
    _k("rect32x16-padded", "rectangular", "the rectangular tile padded: no bank conflicts, still short writes",
       "rectangular:make_rectangular", params={"tile_r": 16, "tile_c": 32, "rows": 8, "pad": 1}, tile=(16, 32),
       pad=1, unpadded_twin="rect32x16"),
    _k("tile32-coarse8", "tiled", "32x32 tile with 32x8 threads, four elements each: coarsening, with the "
       "bank conflicts", "tiled:make_tiled", params={"tile": 32, "rows": 8, "pad": 0}),
    _k("tile32-coarse8-padded", "tiled", "coarsened and padded: the classic fast kernel",
       "tiled:make_tiled", params={"tile": 32, "rows": 8, "pad": 1}, pad=1, unpadded_twin="tile32-coarse8"),
    _k("tile16-padded", "tiled", "16x17 tile, 16x16 threads: half-warps on half rows, 64-byte pieces",
       "tiled:make_tiled", params={"tile": 16, "rows": 16, "pad": 1}, tile=(16, 16), block=(16, 16), pad=1),
    _k("diagonal", "tiled", "the padded coarsened kernel with blocks numbered along diagonals",
       "tiled:make_tiled", params={"tile": 32, "rows": 8, "pad": 1, "diagonal": True}, pad=1),
    _k("inplace-square", "inplace", "in place: a block swaps a tile with its mirror through two padded tiles",
       "inplace:make_inplace", params={"tile": 32, "rows": 8, "pad": 1}, pad=1, in_place=True),
)

BY_NAME = {k.name: k for k in REGISTRY}


def get(name: str) -> LabKernel:
    if name not in BY_NAME:
        raise ValueError(f"unknown lab kernel {name!r}; choose one of {', '.join(BY_NAME)}")
    return BY_NAME[name]


def build(kernel: LabKernel | str, dtype: str) -> Callable:
    """The @cuda.jit kernel for one element type, made once."""
    return _build(kernel if isinstance(kernel, str) else kernel.name, np.dtype(dtype).name)


@functools.cache
def _build(name: str, dtype: str) -> Callable:
    import importlib

    kernel = get(name)
    module, function = kernel.factory.split(":")
    factory = getattr(importlib.import_module(f"cornerturn.lab.kernels.{module}"), function)
    return factory(np.dtype(dtype), **kernel.params)


def launch_shape(kernel: LabKernel, rows: int, cols: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(grid, block) for an input of rows x cols; tile rows beyond the grid's y limit are looped in-kernel."""
    if kernel.name == "naive-1d":
        return (max(1, min(math.ceil(rows * cols / kernel.block[0]), 2**31 - 1)),), (kernel.block[0],)
    tile_r, tile_c = kernel.tile
    if kernel.name == "naive-cols":  # its grid covers the output: cols x rows
        rows, cols = cols, rows
    grid = (max(1, math.ceil(cols / tile_c)), max(1, min(math.ceil(rows / tile_r), GRID_Y_MAX)))
    return grid, kernel.block
