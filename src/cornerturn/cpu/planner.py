"""Choice of CPU method for a canonical problem, and its execution on host word views.

Variants are data: each names its tile, micro tile and threading, and which element sizes it suits. The
heuristic below was measured on a 2-core x86-64 machine (docs/cpu.md): with cornerturn's own call overhead
(about 10 us of validation and views) the tile kernels overtake NumPy's strided copy near 100x100 elements, and
the parallel kernel pays from about 256x256.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..arrays import ArrayView, contiguous_strides, view_of
from ..dtypes import host_word_dtype
from ..problem import Problem, canonical

PARALLEL_MIN_ELEMENTS = 256 * 256
NUMPY_MAX_ELEMENTS = 100 * 100


@dataclass(frozen=True)
class CpuVariant:
    name: str
    tile: int
    micro_rows: int
    micro_cols: int
    parallel: bool
    itemsizes: tuple[int, ...]
    packed: bool = False  # bytes as 64-bit words, 8x8 blocks (micro tile) transposed in registers

    def kernel(self):
        from .kernels import byte_block_kernel, tile_kernel

        if self.packed:
            return byte_block_kernel(self.tile // 8, self.parallel)
        return tile_kernel(self.tile, self.micro_rows, self.micro_cols, self.parallel)


CPU_VARIANTS: tuple[CpuVariant, ...] = (
    CpuVariant("tiles128-bytes8x8-parallel", 128, 8, 8, True, (1,), packed=True),
    CpuVariant("tiles128-bytes8x8-serial", 128, 8, 8, False, (1,), packed=True),
    CpuVariant("tiles128-micro8x16-parallel", 128, 8, 16, True, (1,)),
    CpuVariant("tiles128-micro8x8-parallel", 128, 8, 8, True, (2,)),
    CpuVariant("tiles256-micro4x4-parallel", 256, 4, 4, True, (4,)),
    CpuVariant("tiles128-micro4x4-parallel", 128, 4, 4, True, (8, 16)),
    CpuVariant("tiles128-micro8x16-serial", 128, 8, 16, False, (1,)),
    CpuVariant("tiles128-micro8x8-serial", 128, 8, 8, False, (2, 4)),
    CpuVariant("tiles128-micro4x4-serial", 128, 4, 4, False, (8, 16)),
)


@dataclass(frozen=True)
class Geometry:
    """Word views of one request: (input offset, output offset) per outer batch index, and the shapes and
    byte strides of the 3-D (transpose) or 2-D (copy) pieces at those offsets, in words of `word_bytes` (the
    element size, or 8 where bytes move packed: the column axes then count words of 8 bytes)."""

    offsets: tuple[tuple[int, int], ...]
    in_shape: tuple[int, ...]
    in_strides: tuple[int, ...]
    out_shape: tuple[int, ...]
    out_strides: tuple[int, ...]
    word_bytes: int

    @classmethod
    def of(cls, problem: Problem, packed: bool = False) -> Geometry:
        # batch axes beyond the innermost one are left only when they cannot fuse; they are walked in run()
        *outer, inner = problem.batch or (1,)
        *outer_strides, inner_stride = problem.batch_strides or (0,)
        if problem.kind == "copy":
            in_shape, in_strides = (inner, problem.cols), (inner_stride, problem.col_stride)
            out_shape = (inner, problem.cols)
        else:
            in_shape = (inner, problem.rows, problem.cols)
            in_strides = (inner_stride, problem.row_stride, problem.col_stride)
            out_shape = (inner, problem.cols, problem.rows)
        word_bytes = problem.itemsize
        if packed:  # 8 bytes of a row a word, on both sides
            word_bytes = 8
            in_shape, in_strides = (inner, problem.rows, problem.cols // 8), (inner_stride, problem.row_stride, 8)
            out_shape = (inner, problem.cols, problem.rows // 8)
        out_strides = contiguous_strides(out_shape, word_bytes)
        out_step = out_strides[0] * inner
        offsets = tuple((sum(i * s for i, s in zip(index, outer_strides)), n * out_step)
                        for n, index in enumerate(np.ndindex(*outer)))
        return cls(offsets, in_shape, in_strides, out_shape, out_strides, word_bytes)


@dataclass(frozen=True)
class CpuPlan:
    """What a CPU plan runs, and why."""

    name: str  # "empty", "numpy-copy", "numpy" or a variant's name
    reason: str
    geometry: Geometry | None = None
    variant: CpuVariant | None = None
    fallback: CpuPlan | None = None  # for arrays whose addresses are not 8-byte aligned (packed plans)

    def aligned(self, x_address: int, out_address: int) -> bool:
        """Whether this plan's word views fit arrays at these addresses: always, unless bytes move packed (the
        plans with a fallback), whose 64-bit words need 8-byte aligned addresses."""
        return self.fallback is None or (x_address % self.geometry.word_bytes == 0
                                         and out_address % self.geometry.word_bytes == 0)

    @functools.cached_property
    def kernel(self):
        """The compiled kernel of `variant` (compiled on first use), or None for the NumPy methods."""
        return self.variant.kernel() if self.variant is not None else None


def packable(problem: Problem) -> bool:
    """Bytes whose rows and columns are whole 64-bit words on both sides: rows and columns multiples of 8,
    columns contiguous, and row and batch strides multiples of 8 bytes."""
    return (problem.kind == "transpose" and problem.itemsize == 1 and problem.rows % 8 == 0
            and problem.cols % 8 == 0 and problem.col_stride == 1 and problem.row_stride % 8 == 0
            and all(s % 8 == 0 for s in problem.batch_strides))


def choose_variant(problem: Problem) -> CpuPlan:
    if problem.kind == "empty":
        return CpuPlan("empty", "nothing to move")
    geometry = Geometry.of(problem)
    if problem.kind == "copy":
        return CpuPlan("numpy-copy", "the request is a copy in disguise (one row or column, or columns already "
                                     "contiguous): NumPy's strided copy runs it", geometry)
    if problem.elements < NUMPY_MAX_ELEMENTS:
        return CpuPlan("numpy", f"{problem.elements} elements: below {NUMPY_MAX_ELEMENTS}, NumPy's own strided "
                                "copy beats the cost of calling a compiled kernel", geometry)
    parallel = problem.elements >= PARALLEL_MIN_ELEMENTS
    threads = "threads pay" if parallel else "too small for threads to pay"
    reason = f"{problem.elements} elements of {problem.itemsize} B: {threads}"
    variant = _variant(parallel, problem.itemsize, packed=False)
    fallback = CpuPlan(variant.name, reason, geometry, variant)
    if packable(problem):
        variant = _variant(parallel, problem.itemsize, packed=True)
        return CpuPlan(variant.name, f"{reason}; rows and columns of whole 64-bit words, moved as 8x8 byte blocks",
                       Geometry.of(problem, packed=True), variant, fallback)
    return fallback


def _variant(parallel: bool, itemsize: int, *, packed: bool) -> CpuVariant:
    for variant in CPU_VARIANTS:
        if variant.parallel == parallel and itemsize in variant.itemsizes and variant.packed == packed:
            return variant
    raise AssertionError(f"no CPU variant for element size {itemsize}")


def run_numpy(plan: CpuPlan, x: np.ndarray, out: np.ndarray) -> bool:
    """The short path for NumPy arrays whose canonical problem is one piece: views made by NumPy itself.

    Returns False (having written nothing) where the path does not apply; `run` then takes over.
    """
    g = plan.geometry
    if g is None or len(g.offsets) != 1 or g.offsets[0][0] != 0:
        return False
    if plan.name == "numpy":
        np.copyto(out, x.swapaxes(-1, -2))
        return True
    if not plan.aligned(x.ctypes.data, out.ctypes.data):
        return False
    word = host_word_dtype(g.word_bytes)
    x_words = x.view(word)
    try:
        x_words.shape = g.in_shape
    except (AttributeError, ValueError):
        return False
    if any(n > 1 and a != b for n, a, b in zip(g.in_shape, x_words.strides, g.in_strides)):
        return False
    out_words = out.view(word).reshape(g.out_shape)
    if plan.kernel is None:
        np.copyto(out_words, x_words)
    else:
        plan.kernel(x_words, out_words)
    return True


def run(plan: CpuPlan, x: ArrayView, out: ArrayView) -> None:
    """Run `plan` from the host array `x` into the C-contiguous host array `out`."""
    g = plan.geometry
    if g is None:
        return
    if not plan.aligned(x.ptr, out.ptr):  # every offset is a multiple of the word where the plan holds
        plan, g = plan.fallback, plan.fallback.geometry
    kernel = plan.kernel
    for x_offset, out_offset in g.offsets:
        x_words = x.host_words(g.in_shape, g.in_strides, x_offset, g.word_bytes)
        out_words = out.host_words(g.out_shape, g.out_strides, out_offset, g.word_bytes)
        if kernel is not None:
            kernel(x_words, out_words)
        elif plan.name == "numpy":
            np.copyto(out_words, x_words.swapaxes(-1, -2))
        else:
            np.copyto(out_words, x_words)


@functools.lru_cache(maxsize=256)
def _plan_of(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> CpuPlan:
    return choose_variant(canonical(shape, strides, itemsize))


def transpose_words(x: np.ndarray, out: np.ndarray) -> None:
    """out = x.swapaxes(-1, -2) for host word arrays (out C-contiguous, not overlapping x): the CPU engine's own
    plan, without the public API's checks (its callers have made them)."""
    run(_plan_of(x.shape, x.strides, x.itemsize), view_of(x), view_of(out))
