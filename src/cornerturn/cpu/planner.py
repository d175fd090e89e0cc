"""Choice of CPU method for a canonical problem, and its execution on host word views.

Variants are data: each names its tile, micro tile and threading, and which element sizes it suits. The
heuristic below was measured on a 2-core x86-64 machine (docs/cpu.md): with cornerturn's own call overhead
(about 10 us of validation and views) the tile kernels overtake NumPy's strided copy near 100x100 elements, and
the parallel kernel pays from about 256x256.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

import numpy as np

from ..arrays import ArrayView, contiguous_strides, view_of
from ..dtypes import host_word_dtype
from ..problem import Permutation, Problem, canonical

PARALLEL_MIN_ELEMENTS = 256 * 256
NUMPY_MAX_ELEMENTS = 100 * 100
SKINNY_MAX = 7  # a side of at most this many elements moves in runs along the other (skinny_kernel)


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
    # 4-byte elements: 8x8 micro tiles in 256-element tiles, 18.2 against 15.3 GB/s for 4x4 on float32 8192x8192 and
    # 22.8 against 20.9 on 4097x4095 (2-core machine, 2026-11-24, a sweep of tiles 32-256 by micro tiles; docs/cpu.md)
    CpuVariant("tiles256-micro8x8-parallel", 256, 8, 8, True, (4,)),
    CpuVariant("tiles128-micro4x4-parallel", 128, 4, 4, True, (8,)),
    # 16-byte elements: tiles of 64, at 0.97 of each case's best tile in geometric mean against 0.65 for 128 over 16
    # complex128 shapes (2-core machine, 2026-11-25, docs/results/cpu-vectors-probe-17.json; docs/cpu.md)
    CpuVariant("tiles64-micro4x4-parallel", 64, 4, 4, True, (16,)),
    CpuVariant("tiles128-micro8x16-serial", 128, 8, 16, False, (1,)),
    CpuVariant("tiles128-micro8x8-serial", 128, 8, 8, False, (2, 4)),
    CpuVariant("tiles128-micro4x4-serial", 128, 4, 4, False, (8, 16)),
)


@dataclass(frozen=True)
class SkinnyVariant:
    """A matrix with `short` rows (short_rows) or columns: runs along its long side. 1- to 8-byte elements move in
    16-byte vectors (cpu/interleave.py), 16-byte ones element by element with the short loop unrolled."""

    short: int
    short_rows: bool
    parallel: bool
    itemsize: int = 16

    @property
    def vectors(self) -> bool:
        from .interleave import ELEMENT_SIZES

        return self.itemsize in ELEMENT_SIZES

    @property
    def name(self) -> str:
        side = "rows" if self.short_rows else "cols"
        return f"skinny-{self.short}{side}{'-vectors16' if self.vectors else ''}-" \
               f"{'parallel' if self.parallel else 'serial'}"

    def kernel(self):
        if self.vectors:
            from .interleave import skinny_vector_kernel

            return skinny_vector_kernel(self.short, self.short_rows, self.itemsize, self.parallel)
        from .kernels import skinny_kernel

        return skinny_kernel(self.short, self.short_rows, self.parallel)


# Vector blocks (cpu/vectors.py): tiles of this many elements square, by element size (the shipped table, chosen on
# a 2-core AMD EPYC; each host measures its own at first use, cpu/host_tiles.py), then halved (down to
# VECTOR_TILE_MIN) until every thread has at least two. Where the input's row pitch is a multiple of ALIASED_PITCH
# bytes (powers of two, 3072 floats, ...) smaller tiles win (a tile's rows then likely share cache and TLB sets).
# Chosen from 119 case timings (seeds 12, 13, 15, 16: random shapes and aliased pitches, each case's tiles timed in
# one run; 2-core machine, 2026-11-25, docs/cpu.md): against each case's best of 256, 512 and 1024 these ran at
# 0.94-0.97 in geometric mean on plain pitches and 0.98-1.10 on aliased ones.
VECTOR_TILE = {1: 512, 2: 1024, 4: 1024, 8: 1024}
VECTOR_TILE_ALIASED = {1: 512, 2: 256, 4: 256, 8: 128}
ALIASED_PITCH = 512
VECTOR_TILE_MIN = 128
# 4- and 8-byte elements whose input rows lie a whole number of pages apart, two pages or more: staged tiles of 512
# (each tile copied into a scratch with a shorter pitch first), 1.14x to 1.91x the plain tiles on all 10 such shapes
# of a probe, behind them where the pitch is a multiple of 1 KiB only (seed 18, docs/results/cpu-vectors-probe-18.json)
# and, on a 16-core Xeon, at 0.35x on rows of exactly one page (docs/results/cpu-hosts-xeon16-7777.json; docs/cpu.md)
STAGED_PITCH = 4096
STAGED_MIN_PITCH = 8192
STAGED_TILE = 512
STAGED_ITEMSIZES = (4, 8)
# A host's measured staged tile for any pitch (cpu/host_tiles.py, measured on inputs of 24 MiB) serves inputs of
# STAGED_MIN_BYTES or more; smaller ones, which the caches hold, take the host's best plain tile (the aliased pitches'
# staged tiles, measured on 64-256 MiB matrices, are left as they were). On a 2-core AMD EPYC (32 MiB of L3),
# over 38 matrices of 0.25-64 MiB whose plan the staged tiles changed, staged ran at 0.48x-0.94x under 10 MiB (28 of
# 28 behind) and at 0.69x-1.39x from 10 MiB (7 of 10 ahead); docs/cpu.md, "Staged tiles at any pitch"
STAGED_MIN_BYTES = 12 << 20


# 8-byte elements whose tiles would cut the input's rows into parts although they are few (output rows of at most
# FULL_ROWS_MAX_BYTES): tiles of all the rows by FULL_ROWS_COLS columns instead, so that every output row is written
# in one run. 1.146x the tiles before on the 12 such matrices of seeds 801 and 802 (1.03x-1.38x) and 1.154x on the 8
# of the fresh seed 803 (1.05x-1.36x), none behind; from 1,371 rows up they lost (0.61x-0.84x); 2-core AMD EPYC,
# 2026-11-28 (docs/cpu.md, "Tiles of all the rows for 8-byte elements")
FULL_ROWS_ITEMSIZES = (8,)
FULL_ROWS_MAX_BYTES = 8192
FULL_ROWS_COLS = 64


# 16-byte elements in column walks (cpu/kernels.column_walk_kernel) where the input has WALK_MIN_COLS columns or more
# and its row pitch is not a multiple of WALK_ALIASED_PITCH (rows 64, 96, 128 or 192 KiB apart ran at 0.90-1.02 of
# the element tiles, rows 32 KiB apart and every other pitch tried, a page multiple or not, at 1.01-1.40). Against
# the element tiles on 2-core AMD EPYC, 2026-11-28 (docs/cpu.md, "Column walks for 16-byte elements"): 1.31x and
# 1.26x in geometric mean on the 20 and 16 complex128 matrices of two fresh seeds that the rule takes (0.97x-1.52x,
# 2 behind by 3%); under 512 columns the walks lost on 16 of 23 matrices (0.69x-1.31x).
WALK_MIN_COLS = 512
WALK_ALIASED_PITCH = 32768


@dataclass(frozen=True)
class WalkVariant:
    """16-byte elements moved in column walks (cpu/kernels.column_walk_kernel), streamed where the output allows."""

    parallel: bool
    stream: bool = False

    @property
    def name(self) -> str:
        from .kernels import WALK_ROWS

        return (f"walk16-rows{WALK_ROWS}-{'parallel' if self.parallel else 'serial'}"
                f"{'-streamed' if self.stream else ''}")

    def kernel(self):
        from .kernels import column_walk_kernel

        return column_walk_kernel(self.parallel, self.stream)


def walks(problem: Problem) -> bool:
    """Whether a transpose of 16-byte elements takes the column walks: contiguous columns, WALK_MIN_COLS columns or
    more, rows a positive pitch apart that is not a multiple of WALK_ALIASED_PITCH."""
    if problem.kind != "transpose" or problem.itemsize != 16 or problem.col_stride != 16 or problem.row_stride <= 0:
        return False
    return problem.cols >= WALK_MIN_COLS and problem.row_stride % WALK_ALIASED_PITCH != 0


# 16-byte matrices the column walks take (above) whose rows number OUTPUT_ORDER_ROWS move in the output's order
# instead (cpu/output_order.py): each output row read down an input column with one strided load, one contiguous
# part of the output a thread. Against the walks on 2-core AMD EPYC, 2026-11-28 (docs/cpu.md, "16-byte elements in
# the output's order"; random complex128 matrices of seeds 5101, 5201 and 5202): 1.14x-1.57x on 18 of the 19 of 270
# to 1,445 rows (0.67x on one of 813 x 20,227), 0.52x-0.77x on the 9 of 1,610 rows or more (more input rows, each on
# a page of its own, than the TLB holds), 0.81x-1.21x on the 9 under 256 rows
OUTPUT_ORDER_ROWS = (256, 1536)


def in_output_order(problem: Problem) -> bool:
    """Whether a transpose the column walks take moves in the output's order instead: OUTPUT_ORDER_ROWS rows, and
    strides that are non-negative multiples of the element size (the kernel reads a flat view of the input)."""
    low, high = OUTPUT_ORDER_ROWS
    return (walks(problem) and low <= problem.rows <= high and problem.row_stride % problem.itemsize == 0
            and all(s >= 0 and s % problem.itemsize == 0 for s in problem.batch_strides))


# 16-byte elements with contiguous columns, INPUT_ORDER_COLS columns, and output rows not a multiple of ALIASED_PITCH
# bytes long move in the input's order (cpu/kernels.input_order_kernel), ahead of the column walks and the element
# tiles there. On 2-core AMD EPYC, 2026-11-28 (docs/cpu.md, "16-byte elements in the input's order"): 1.30x the plan
# before in geometric mean over 42 timings of complex128 matrices of 300 to 1,100 columns (seeds 3301 and 3302, the
# latter twice; 3 behind, by up to 15%), 1.42x from 512 to 800 columns (none behind), 1.22x over 14 tall ones (5,000
# to 60,000 rows, seed 3303; 2 behind by up to 6%); under 300 columns 0.98x (10 of 19 behind), from 2,000 columns 0.78x
# (all 22 behind); output rows a multiple of 512 bytes long fill few cache sets (complex128 9600x435: 0.64x)
# (those figures are of one input row a task; streamed, sixteen rows a task, ran at 1.74x-1.78x that over 16
# matrices each of seeds 12279-12280, none behind, 2026-12-02)
INPUT_ORDER_COLS = (300, 1024)


@dataclass(frozen=True)
class OrderVariant:
    """16-byte elements moved in the input's order, four input rows a task (cpu/kernels.input_order_kernel), or in
    the output's order, one contiguous part of the output a thread (cpu/output_order.py); streamed or not."""

    order: str  # "input" or "output"
    parallel: bool
    stream: bool = False  # elements stored non-temporally where the output is aligned

    def __post_init__(self) -> None:
        if self.order not in ("input", "output"):
            raise ValueError(f"OrderVariant.order: 'input' or 'output', got {self.order!r}")

    @property
    def name(self) -> str:
        return f"{self.order}-order16-{'parallel' if self.parallel else 'serial'}{'-streamed' if self.stream else ''}"

    def kernel(self):
        if self.order == "input":
            from .kernels import input_order_kernel

            return input_order_kernel(self.parallel, self.stream)
        from .output_order import output_order_kernel

        return output_order_kernel(self.parallel, self.stream)


def in_input_order(problem: Problem) -> bool:
    """Whether a transpose of 16-byte elements moves in the input's order: contiguous columns, INPUT_ORDER_COLS
    columns, output rows (rows x 16 bytes) not a multiple of ALIASED_PITCH long."""
    if problem.kind != "transpose" or problem.itemsize != 16 or problem.col_stride != 16:
        return False
    low, high = INPUT_ORDER_COLS
    return low <= problem.cols <= high and (problem.rows * problem.itemsize) % ALIASED_PITCH != 0


@dataclass(frozen=True)
class VectorVariant:
    """Blocks of 16-byte rows transposed in vector registers (cpu/vectors.py), in tiles of `tile` elements."""

    itemsize: int
    tile: int  # input rows a tile covers
    parallel: bool
    staged: bool = False  # each tile copied into a scratch of the worker's own first
    tile_from: str = field(default="the table", compare=False)  # where the tile came from, for the plan's reason
    tile_cols: int = 0  # input columns a tile covers, where not `tile`
    stream: bool = False  # blocks stored as aligned non-temporal vectors where the output allows (STREAM_ITEMSIZES)

    @property
    def name(self) -> str:
        staged = ("-staged" if self.staged else "") + ("-streamed" if self.stream else "")
        cols = f"x{self.tile_cols}" if self.tile_cols and self.tile_cols != self.tile else ""
        return f"vectors16{staged}-tiles{self.tile}{cols}-{'parallel' if self.parallel else 'serial'}"

    def kernel(self):
        from .vectors import vector_kernel

        return vector_kernel(self.itemsize, (self.tile, self.tile_cols or self.tile), self.parallel, self.staged,
                             self.stream)


def vectorizable(problem: Problem) -> bool:
    """1- to 8-byte elements with contiguous columns and both sides at least one block (16 bytes of rows)."""
    from .vectors import ELEMENT_SIZES, VECTOR_BYTES

    if problem.kind != "transpose" or problem.itemsize not in ELEMENT_SIZES or problem.col_stride != problem.itemsize:
        return False
    side = VECTOR_BYTES // problem.itemsize
    return problem.rows >= side and problem.cols >= side


# 4- and 8-byte elements stream their output (vectors.block_stream: aligned non-temporal stores, which write lines
# without reading them first) where output rows lie a whole number of 16-byte vectors apart, but neither they nor the
# input's rows a multiple of ALIASED_PITCH, and the output holds STREAM_MIN_BYTES or more (half the L3 of the host
# where this was measured: smaller outputs, which a caller may read back from the caches, keep plain stores). On a
# 2-core AMD EPYC (2026-12-02, docs/cpu.md, "Streamed output"): 1.4x-1.6x in tiles of 128-1024 on float32 6000x5000,
# 3000x20000 and float64 5000x7000, 2000x11000, 6000x4100; level or behind on 8192 x 8192 (aliased rows, plain and
# staged tiles); 0.5x-0.6x for 1- and 2-byte elements, whose blocks fill 16 and 8 output rows at once; unaligned
# non-temporal stores (split into 8-byte ones) 0.7x-1.0x.
STREAM_ITEMSIZES = (4, 8)
STREAM_MIN_BYTES = 16 << 20


def streams(problem: Problem) -> bool:
    """Whether the vector plan of `problem` streams its output (see STREAM_ITEMSIZES); the kernel still stores plain
    vectors where the output it is given is not aligned."""
    from .nontemporal import STREAM_HOST
    from .vectors import VECTOR_BYTES

    out_pitch = problem.rows * problem.itemsize
    return (STREAM_HOST and problem.itemsize in STREAM_ITEMSIZES
            and out_pitch % VECTOR_BYTES == 0 and out_pitch % ALIASED_PITCH != 0
            and problem.row_stride % ALIASED_PITCH != 0 and problem.elements * problem.itemsize >= STREAM_MIN_BYTES)


def streams_sixteen(problem: Problem) -> bool:
    """Whether a transpose of 16-byte elements in the output's order (in_output_order), in the input's order
    (in_input_order) or in column walks (walks) streams its output: x86-64, STREAM_MIN_BYTES or more. Each thread
    writes runs of output rows (one run, four at a time, or 64 bytes of each), so neither pitch matters. On a 2-core
    AMD EPYC (2026-12-02, docs/cpu.md, "Streamed output"): the output's order 1.065x and 1.085x the plain stores over
    17 and 20 random complex128 matrices of two seeds (0.83x-1.36x, the few behind level when timed again); the
    column walks 1.33x over 16 of each of two seeds (1.17x-1.45x, none behind); the input's order, sixteen rows a
    task, 1.78x and 1.74x its plain one-row loop over 16 of each of two seeds (1.27x-2.62x, none behind)."""
    from .nontemporal import STREAM_HOST

    return STREAM_HOST and problem.elements * problem.itemsize >= STREAM_MIN_BYTES


def vector_variant(problem: Problem, parallel: bool) -> VectorVariant:
    """The vector plan of `problem` (`_vector_variant_tiled`), streamed where `streams` says."""
    variant = _vector_variant_tiled(problem, parallel)
    return dataclasses.replace(variant, stream=True) if streams(problem) else variant


def _vector_variant_tiled(problem: Problem, parallel: bool) -> VectorVariant:
    """The vector plan of `problem` (`tiled_variant`), except where its tiles would cut the rows of an 8-byte matrix
    of output rows of at most FULL_ROWS_MAX_BYTES (and rows not a multiple of ALIASED_PITCH apart): tiles of all the
    rows by FULL_ROWS_COLS columns then."""
    from .vectors import block_side

    tiled = tiled_variant(problem, parallel)
    if (problem.itemsize not in FULL_ROWS_ITEMSIZES or problem.rows * problem.itemsize > FULL_ROWS_MAX_BYTES
            or problem.row_stride % ALIASED_PITCH == 0 or tiled.staged or tiled.tile >= problem.rows):
        return tiled
    side = block_side(problem.itemsize)
    return VectorVariant(problem.itemsize, -(-problem.rows // side) * side, parallel, False,
                         f"all {problem.rows} rows, where {tiled.tile_from} gave {tiled.tile}", FULL_ROWS_COLS)


def tiled_variant(problem: Problem, parallel: bool) -> VectorVariant:
    """The vector plan of `problem`, from the host's measured tiles (cpu/host_tiles.py) for its element size: those
    for rows a multiple of ALIASED_PITCH bytes apart and at least STAGED_MIN_PITCH (plain or staged), else those for
    any pitch; where measuring is off, the table: staged tiles of STAGED_TILE for 4- and 8-byte elements where the
    pitch is a multiple of STAGED_PITCH and at least STAGED_MIN_PITCH, VECTOR_TILE_ALIASED where it is a multiple of
    ALIASED_PITCH, else VECTOR_TILE. Halved while the tiles of its innermost batch are fewer than two per thread; a
    measured tile is also shared evenly across each side (`host_tiles.balanced`), as it was measured."""
    import numba

    pitch = abs(problem.row_stride)
    staged = problem.itemsize in STAGED_ITEMSIZES and pitch % STAGED_PITCH == 0 and pitch >= STAGED_MIN_PITCH
    aliased = problem.row_stride % ALIASED_PITCH == 0
    matrices = problem.batch[-1] if problem.batch else 1
    wanted = 2 * numba.get_num_threads() if parallel else 1
    from .host_tiles import HostTile, balanced, tiles_along, vector_tile

    def halved(tile: int) -> int:  # a table's square tile, halved while too few
        while tile > VECTOR_TILE_MIN and matrices * -(-problem.rows // tile) * -(-problem.cols // tile) < wanted:
            tile //= 2
        return tile

    host = None
    if aliased and pitch >= STAGED_MIN_PITCH:
        host = vector_tile(problem.itemsize, STAGED_TILE, aliased=True)
    if (host is None or host.source == "the table") and (staged or aliased):
        tile = STAGED_TILE if staged else VECTOR_TILE_ALIASED[problem.itemsize]
        why = "staged tiles" if staged else f"pitch a multiple of {ALIASED_PITCH} B"
        return VectorVariant(problem.itemsize, halved(tile), parallel, staged, f"{why}, the table")
    if host is None:
        host = vector_tile(problem.itemsize, VECTOR_TILE[problem.itemsize])
        if host.staged and host.plain is not None and problem.elements * problem.itemsize < STAGED_MIN_BYTES:
            host = HostTile(host.plain, f"{host.source}, plain under {STAGED_MIN_BYTES >> 20} MiB")
    rows, cols = host.tile
    if host.source == "the table":
        return VectorVariant(problem.itemsize, halved(rows), parallel, staged, host.source)
    # measured on this host: halved (the longer side first) while too few, then shared evenly, as measured
    while (max(rows, cols) > VECTOR_TILE_MIN and
           matrices * tiles_along(problem.rows, rows) * tiles_along(problem.cols, cols) < wanted):
        if cols > rows:
            cols //= 2
        elif rows > cols:
            rows //= 2
        else:
            rows, cols = rows // 2, cols // 2
    from .vectors import block_side

    side = block_side(problem.itemsize)
    where = (f"rows a multiple of {ALIASED_PITCH} B apart, " if aliased and pitch >= STAGED_MIN_PITCH else "") + (
        "staged, " if host.staged else "")
    return VectorVariant(problem.itemsize, balanced(problem.rows, rows, side), parallel, host.staged,
                         where + host.source, balanced(problem.cols, cols, side))


@dataclass(frozen=True)
class Geometry:
    """Word views of one request: (input offset, output offset) per outer batch index, and the shapes and
    byte strides of the 3-D (transpose) or 2-D (copy) pieces at those offsets, in words of `word_bytes` (the
    element size, or 8 where bytes move packed: the column axes then count words of 8 bytes, over the rows and
    columns that make whole 8x8 blocks; `edges` are the (in shape, in strides, in offset, out shape, out strides,
    out offset) in bytes of the rows and columns past those, moved by the element kernel)."""

    offsets: tuple[tuple[int, int], ...]
    in_shape: tuple[int, ...]
    in_strides: tuple[int, ...]
    out_shape: tuple[int, ...]
    out_strides: tuple[int, ...]
    word_bytes: int
    edges: tuple[tuple, ...] = ()

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
        out_strides = contiguous_strides(out_shape, word_bytes)
        out_step = out_strides[0] * inner
        edges: tuple[tuple, ...] = ()
        if packed:  # 8 bytes of a row a word, on both sides (at any address: the views are unaligned where need be)
            m, n = problem.rows, problem.cols
            m8, n8 = m - m % 8, n - n % 8
            word_bytes = 8
            in_shape, in_strides = (inner, m8, n8 // 8), (inner_stride, problem.row_stride, 8)
            out_shape, out_strides = (inner, n8, m8 // 8), (n * m, m, 8)
            rs = problem.row_stride
            edges = tuple(piece for piece in (
                ((inner, m - m8, n), (inner_stride, rs, 1), m8 * rs, (inner, n, m - m8), (n * m, m, 1), m8),
                ((inner, m8, n - n8), (inner_stride, rs, 1), n8, (inner, n - n8, m8), (n * m, m, 1), n8 * m))
                if 0 not in piece[0])
        offsets = tuple((sum(i * s for i, s in zip(index, outer_strides)), n * out_step)
                        for n, index in enumerate(np.ndindex(*outer)))
        return cls(offsets, in_shape, in_strides, out_shape, out_strides, word_bytes, edges)


@dataclass(frozen=True)
class CpuPlan:
    """What a CPU plan runs, and why."""

    name: str  # "empty", "numpy-copy", "numpy" or a variant's name
    reason: str
    geometry: Geometry | None = None
    variant: CpuVariant | SkinnyVariant | VectorVariant | WalkVariant | OrderVariant | None = None
    edge_variant: CpuVariant | None = None  # packed plans: the element kernel of the rows and columns past the blocks

    @functools.cached_property
    def kernel(self):
        """The compiled kernel of `variant` (compiled on first use), or None for the NumPy methods."""
        return self.variant.kernel() if self.variant is not None else None


def packable(problem: Problem) -> bool:
    """Bytes with contiguous columns and at least 8 rows and columns: moved as 8x8 blocks of 64-bit words (views
    of any alignment: x86-64 loads and stores words at any address), the last rows and columns past whole blocks
    by the element kernel. On a 2-core machine 4 to 5 times the element kernel's rate on odd sides (int8
    2658x37852 6.4 against 1.4 GB/s, 22381x4061 4.9 against 1.2; 2026-11-24, docs/cpu.md)."""
    return (problem.kind == "transpose" and problem.itemsize == 1 and problem.col_stride == 1
            and problem.rows >= 8 and problem.cols >= 8)


def choose_variant(problem: Problem | Permutation):
    if isinstance(problem, Permutation):
        from .permute import plan

        return plan(problem)
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
    short = min(problem.rows, problem.cols)
    if short <= SKINNY_MAX:
        skinny = SkinnyVariant(short, problem.rows == short, parallel, problem.itemsize)
        how = "interleaved in 16-byte vectors" if skinny.vectors else "element by element"
        return CpuPlan(skinny.name, f"{reason}; a side of {short} elements: runs along the other, {how}", geometry,
                       skinny)
    if vectorizable(problem):
        vector = vector_variant(problem, parallel)
        return CpuPlan(vector.name, f"{reason}; blocks of 16-byte rows transposed in vector registers (tile: "
                                    f"{vector.tile_from})", geometry,
                       vector)
    if parallel and in_input_order(problem):
        rows = OrderVariant("input", parallel, stream=streams_sixteen(problem))
        return CpuPlan(rows.name, f"{reason}; {problem.cols} columns: input rows in order, each written down the "
                                  "output's columns", geometry, rows)
    if parallel and in_output_order(problem):
        rows = OrderVariant("output", parallel, stream=streams_sixteen(problem))
        return CpuPlan(rows.name, f"{reason}; {problem.rows} rows of {problem.cols} columns: output rows in order, "
                                  "each read down an input column", geometry, rows)
    if parallel and walks(problem):
        walk = WalkVariant(parallel, stream=streams_sixteen(problem))
        return CpuPlan(walk.name, f"{reason}; {problem.cols} columns of rows {problem.row_stride} B apart: column "
                                  "walks, each output row's part written in one run", geometry, walk)
    variant = _variant(parallel, problem.itemsize, packed=False)
    if packable(problem):
        packed = _variant(parallel, problem.itemsize, packed=True)
        return CpuPlan(packed.name, f"{reason}; bytes moved as 8x8 blocks of 64-bit words",
                       Geometry.of(problem, packed=True), packed, variant)
    return CpuPlan(variant.name, reason, geometry, variant)


def _variant(parallel: bool, itemsize: int, *, packed: bool) -> CpuVariant:
    for variant in CPU_VARIANTS:
        if variant.parallel == parallel and itemsize in variant.itemsizes and variant.packed == packed:
            return variant
    raise AssertionError(f"no CPU variant for element size {itemsize}")


def run_numpy(plan: CpuPlan, x: np.ndarray, out: np.ndarray) -> bool:
    """The short path for NumPy arrays whose canonical problem is one piece: views made by NumPy itself.

    Returns False (having written nothing) where the path does not apply; `run` then takes over.
    """
    if not isinstance(plan, CpuPlan):
        return False  # a general permutation: run() takes it
    g = plan.geometry
    if g is None or len(g.offsets) != 1 or g.offsets[0][0] != 0:
        return False
    if plan.name == "numpy":
        np.copyto(out, x.swapaxes(-1, -2))
        return True
    if plan.edge_variant is not None:  # packed bytes: views of any alignment, and edges (run takes them)
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


def run(plan, x: ArrayView, out: ArrayView) -> None:
    """Run `plan` from the host array `x` into the C-contiguous host array `out`."""
    if not isinstance(plan, CpuPlan):
        from .permute import run as run_permutation

        run_permutation(plan, x, out)
        return
    g = plan.geometry
    if g is None:
        return
    kernel = plan.kernel
    edge_kernel = plan.edge_variant.kernel() if g.edges else None
    for x_offset, out_offset in g.offsets:
        x_words = x.host_words(g.in_shape, g.in_strides, x_offset, g.word_bytes)
        out_words = out.host_words(g.out_shape, g.out_strides, out_offset, g.word_bytes)
        for in_shape, in_strides, in_at, out_shape, out_strides, out_at in g.edges:
            edge_kernel(x.host_words(in_shape, in_strides, x_offset + in_at, 1),
                        out.host_words(out_shape, out_strides, out_offset + out_at, 1))
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
