"""cornerturn.transpose on host arrays: bit-exact against NumPy over shapes, dtypes, strides and batches."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, poisoned, random_bits
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cornerturn
from cornerturn.cpu.kernels import SKINNY_RUN
from cornerturn.cpu.planner import CPU_VARIANTS, SKINNY_MAX, choose_variant
from cornerturn.problem import canonical

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = [np.bool_, np.int8, np.uint8, ml_dtypes.float8_e4m3fn, np.int16, np.float16, ml_dtypes.bfloat16,
          np.int32, np.uint32, np.float32, np.int64, np.uint64, np.float64, np.complex64, np.complex128]
EXTENTS = [0, 1, 2, 3, 7, 31, 32, 33, 64, 97, 129, 257]


def reference(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.swapaxes(-1, -2))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 1), (31, 33), (33, 31), (1025, 512), (300, 1), (1, 300), (3, 129, 70)])
def test_shapes_and_dtypes(dtype, shape, rng):
    x = random_bits(shape, dtype, rng)
    got = cornerturn.transpose(x)
    assert got.flags.c_contiguous and isinstance(got, np.ndarray)
    assert_bits_equal(got, reference(x))


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_out_receives_result_and_is_returned(dtype, rng):
    x = random_bits((5, 67, 45), dtype, rng)
    out = poisoned((5, 45, 67), dtype)
    assert cornerturn.transpose(x, out=out) is out
    assert_bits_equal(out, reference(x))


@pytest.mark.parametrize("variant", CPU_VARIANTS, ids=lambda v: v.name)
def test_every_cpu_variant(variant, rng):
    """Each registered kernel, run directly on ragged shapes, on each element size it serves."""
    if variant.packed:  # bytes as 64-bit words: rows and columns multiples of 8, partial tiles on both sides
        for shape in [(1, 8, 8), (2, 8 * 17, 8 * 3), (1, 2 * variant.tile + 8, variant.tile - 8), (3, 72, 48)]:
            x = random_bits((shape[0], 2 * shape[1], shape[2]), np.uint8, rng)[:, ::2]  # every other row
            out = poisoned((shape[0], shape[2], shape[1]), np.uint8)
            variant.kernel()(x.view(np.uint64), out.view(np.uint64))
            assert_bits_equal(out, reference(x))
        return
    for itemsize in variant.itemsizes:
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}[itemsize]
        for shape in [(1, 1, 1), (2, 31, 33), (1, 2 * variant.tile + 3, variant.tile - 1), (3, 70, 45)]:
            x = random_bits(shape, dtype, rng)[:, ::-1]
            out = poisoned((shape[0], shape[2], shape[1]), dtype)
            variant.kernel()(x, out)
            assert_bits_equal(out, reference(x))


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("short", [2, 3, 5, SKINNY_MAX])
def test_skinny_vector_kernel_interleaves_and_deinterleaves(itemsize, short, rng):
    """The vector kernel itself, both orientations, serial and threaded: contiguous runs (whole vectors, a run's tail
    element by element), rows reversed, and short columns whose rows are not `short` words apart (element by
    element); a spare output row past the matrix stays untouched."""
    from cornerturn.cpu.interleave import RUN, interleave_mask, skinny_vector_kernel

    assert interleave_mask(3, 2) == [0, 2, 4, 1, 3, 5]  # three vectors of two: a0 b0 c0 a1 b1 c1
    word = np.dtype(f"u{itemsize}")
    long = RUN + 16 // itemsize * 3 + 1
    for short_rows in (True, False):
        shape = (2, short, long) if short_rows else (2, long, short)
        base = random_bits((2, shape[1], 2 * shape[2]), word, rng)
        for x in (random_bits(shape, word, rng), base[:, :, ::-2], base[:, :, 1:shape[2] + 1]):
            for parallel in (True, False):
                out = poisoned((2, shape[2] + 1, shape[1]), word)
                skinny_vector_kernel(short, short_rows, itemsize, parallel)(x, out[:, :-1])
                assert_bits_equal(out[:, :-1], reference(x))
                assert (out[:, -1].view(np.uint8) == poisoned((1,), np.uint8)[0]).all()


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("short", [2, 3, SKINNY_MAX])
def test_skinny_matrices_run_along_their_long_side(dtype, short, rng):
    """A side of a few elements (colour channels): both orientations, a batch, a long side that is not a
    whole number of runs, inputs reversed along their rows and strided along their batch."""
    long = SKINNY_RUN + 1001
    for shape in [(3, short, long), (2, long, short)]:
        x = random_bits((2 * shape[0], shape[1], shape[2]), dtype, rng)[::2, :, ::-1]
        plan = cornerturn.plan(x.shape, x.dtype, device="cpu")
        side = "rows" if shape[1] == short else "cols"
        assert plan.method.startswith(f"skinny-{short}{side}-")
        out = poisoned((shape[0], shape[2], shape[1]), dtype)
        assert cornerturn.transpose(x, out=out) is out
        assert_bits_equal(out, reference(x))
    wider = random_bits((SKINNY_MAX + 1, 20000), dtype, rng)
    assert not cornerturn.plan(wider.shape, wider.dtype, device="cpu").method.startswith("skinny")
    assert_bits_equal(cornerturn.transpose(wider), reference(wider))


def test_large_parallel_paths(rng):
    for dtype, shape in [(np.float32, (1031, 1029)), (np.int8, (2, 777, 1300)), (np.complex128, (513, 700))]:
        x = random_bits(shape, dtype, rng)
        assert cornerturn.plan(x.shape, x.dtype).method.endswith("parallel")
        assert_bits_equal(cornerturn.transpose(x), reference(x))


def run_plan_directly(plan, x, out):
    """The plan's own run over host views, without run_numpy's short path (small matrices would take NumPy's copy)."""
    from cornerturn.arrays import view_of
    from cornerturn.cpu.planner import run

    run(plan, view_of(x), view_of(out))


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, ml_dtypes.float8_e4m3fn], ids=lambda d: np.dtype(d).name)
def test_bytes_with_a_side_of_8_to_15_move_as_8x8_blocks(dtype, rng):
    """Bytes with contiguous columns and a side of 8 to 15 (too short for a 16-byte vector block) take the 8x8-block
    kernel: whole blocks through 64-bit words at any address, the rows and columns past them by the element kernel;
    strided rows, batches, and buffers that start one byte past an aligned address too."""
    for shape, step in [((9, 2048), 1), ((2048, 15), 1), ((3, 8, 5000), 1), ((600, 12), 2), ((2, 37, 14), 3),
                        ((8, 9), 1), ((300, 8), 1)]:
        base = random_bits(shape[:-2] + (shape[-2] * step, shape[-1]), dtype, rng)
        x = base[..., ::step, :]
        plan = choose_variant(canonical(x.shape, x.strides, 1))
        assert "bytes8x8" in plan.name or x.size < 100 * 100
        out = poisoned(shape[:-2] + (shape[-1], shape[-2]), dtype)
        cornerturn.transpose(x, out=out)
        assert_bits_equal(out, reference(x))
        if plan.geometry.edges:
            out = poisoned(out.shape, dtype)
            run_plan_directly(plan, x, out)
            assert_bits_equal(out, reference(x))
    x = random_bits((12 * 1024 + 1,), dtype, rng)[1:].reshape(12, 1024)  # one byte past an aligned start
    out = poisoned((1024 * 12 + 1,), dtype)[1:].reshape(1024, 12)
    cornerturn.transpose(x, out=out)
    assert_bits_equal(out, reference(x))
    for shape in [(7, 1024), (1024, 7)]:  # fewer than 8 rows or columns: the element kernel
        x = random_bits(shape, dtype, rng)
        assert "bytes8x8" not in cornerturn.plan(x.shape, x.dtype).method
        assert_bits_equal(cornerturn.transpose(x), reference(x))
    x = random_bits((64, 64), dtype, rng)[:, ::2]  # columns not contiguous
    assert "bytes8x8" not in choose_variant(canonical(x.shape, x.strides, 1)).name


VECTOR_DTYPES = [np.uint8, np.bool_, ml_dtypes.float8_e4m3fn, np.float16, ml_dtypes.bfloat16, np.int32, np.float32,
                 np.float64, np.complex64]


@pytest.mark.parametrize("dtype", VECTOR_DTYPES, ids=lambda d: np.dtype(d).name)
def test_vector_blocks_on_any_pitch_and_offset(dtype, rng):
    """1- to 8-byte elements with contiguous columns and both sides at least one 16-byte block take the vector
    kernel, whatever the sides, the row pitch (every residue modulo 16 bytes), the matrix stride, the sign of the
    row stride, and the buffer's address (one byte past an aligned start)."""
    itemsize = np.dtype(dtype).itemsize
    side = 16 // itemsize
    short = max(side, SKINNY_MAX + 1)  # shorter sides take the skinny kernel
    for shape, pitch in [((short, short), short), ((1000, 1003), 1003), ((3, 129, 70), 70 + 1), ((2, 37, 300), 305),
                         ((333, short + 1), short + 3), ((short + 2, 2000), 2001)]:
        base = random_bits(shape[:-1] + (pitch,), dtype, rng)
        x = base[..., : shape[-1]]
        plan = choose_variant(canonical(x.shape, x.strides, itemsize))
        assert plan.name.startswith("vectors16-") or x.size < 100 * 100, plan.name
        out = poisoned(shape[:-2] + (shape[-1], shape[-2]), dtype)
        assert cornerturn.transpose(x, out=out) is out
        assert_bits_equal(out, reference(x))
        for view in (x, x[..., ::-1, :]):  # and with the rows reversed (a negative row stride)
            plan = choose_variant(canonical(view.shape, view.strides, itemsize))
            out = poisoned(out.shape, dtype)
            run_plan_directly(plan, view, out)
            assert_bits_equal(out, reference(view))
    m, n = 40, 300
    raw = random_bits((m * n * itemsize + 1,), np.uint8, rng)[1:]  # one byte past an aligned start
    x = raw.view(dtype).reshape(m, n) if itemsize == 1 else np.frombuffer(raw.tobytes(), dtype, m * n).reshape(m, n)
    out_raw = poisoned((m * n * itemsize + 1,), np.uint8)[1:]
    out = out_raw.view(dtype).reshape(n, m) if itemsize == 1 else None
    got = cornerturn.transpose(x, out=out)
    assert_bits_equal(got, reference(x))
    for shape in [(side - 1, 500), (500, side - 1)]:  # a side shorter than a block: another kernel
        if side > SKINNY_MAX + 1:
            x = random_bits(shape, dtype, rng)
            assert not choose_variant(canonical(x.shape, x.strides, itemsize)).name.startswith("vectors16-")
            assert_bits_equal(cornerturn.transpose(x), reference(x))
    x = random_bits((300, 600), dtype, rng)[:, ::2]  # columns not contiguous: the element kernel
    assert not choose_variant(canonical(x.shape, x.strides, itemsize)).name.startswith("vectors16-")
    assert_bits_equal(cornerturn.transpose(x), reference(x))


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
def test_vector_kernel_tiles(itemsize, rng):
    """The vector kernel called directly with the planner's tiles (plain, aliased, staged, the smallest), threaded
    and not, on matrices whose sides end inside a block and inside a tile, and on a batch of matrices smaller than
    one tile; nothing written past the output."""
    from cornerturn.cpu.planner import (
        STAGED_ITEMSIZES,
        STAGED_TILE,
        VECTOR_TILE,
        VECTOR_TILE_ALIASED,
        VECTOR_TILE_MIN,
    )
    from cornerturn.cpu.vectors import vector_kernel

    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[itemsize]
    kernels = [(VECTOR_TILE[itemsize], True, False), (VECTOR_TILE_ALIASED[itemsize], True, False),
               (VECTOR_TILE_MIN, False, False)]
    if itemsize in STAGED_ITEMSIZES:
        kernels += [(STAGED_TILE, True, True), (VECTOR_TILE_MIN, False, True)]
    for tile, parallel, staged in kernels:
        for shape in [(1, tile + 17, 2 * tile + 3), (5, 41, 23)]:
            x = random_bits(shape, dtype, rng)
            out = poisoned((shape[0], shape[2] + 1, shape[1]), dtype)  # a spare row after each matrix
            vector_kernel(itemsize, tile, parallel, staged)(x, out[:, : shape[2]])
            assert_bits_equal(out[:, : shape[2]], reference(x))
            assert_bits_equal(out[:, shape[2]], poisoned((shape[0], shape[1]), dtype))
    n = 16 // itemsize
    for tile in [(3 * n, 8 * n), (8 * n, 3 * n)]:  # rectangular tiles (rows, columns), sides ending inside each
        for parallel in (True, False):
            shape = (2, 2 * tile[0] + 5, 3 * tile[1] + n + 1)
            x = random_bits(shape, dtype, rng)
            out = poisoned((shape[0], shape[2], shape[1]), dtype)
            vector_kernel(itemsize, tile, parallel)(x, out)
            assert_bits_equal(out, reference(x))
    with pytest.raises(ValueError, match="element size 16"):
        vector_kernel(16, 128, True)
    with pytest.raises(ValueError, match="not a multiple of the block side"):
        vector_kernel(itemsize, (n, n + 1), True)


@pytest.mark.parametrize("itemsize", [4, 8])
def test_streamed_vector_kernel(itemsize, rng):
    """The streamed vector kernel (aligned non-temporal stores; x86-64): plain and staged tiles, threaded and not, on
    outputs whose rows lie whole vectors apart (streamed) and on outputs it cannot stream (rows not whole vectors
    apart, a start one element past a vector: plain stores); sides ending inside a block and a tile, batches, nothing
    written past the output; the compiled kernel stores non-temporally and fences."""
    import re

    from cornerturn.cpu import vectors

    if not vectors.STREAM_HOST:
        with pytest.raises(ValueError, match="x86-64"):
            vectors.vector_kernel(itemsize, 64, True, stream=True)
        return
    dtype = {4: np.uint32, 8: np.uint64}[itemsize]
    n = 16 // itemsize
    tiles = [(64, True, False), (64, True, True), (32, False, False), ((3 * n, 8 * n), True, True)]
    for tile, parallel, staged in tiles:
        kernel = vectors.vector_kernel(itemsize, tile, parallel, staged, stream=True)
        for shape, lead in [((1, 16 * n, 70 + 3), 0), ((3, 9 * n, 41), 0), ((2, 37, 50), 0), ((1, 8 * n, 45), 1)]:
            x = random_bits(shape, dtype, rng)
            spare = poisoned((shape[0] * (shape[2] + 1) * shape[1] + lead,), dtype)  # a spare row after each matrix
            out = spare[lead:].reshape(shape[0], shape[2] + 1, shape[1])
            streamed = vectors.streamable(out[:, : shape[2]])
            assert streamed == (shape[1] % n == 0 and lead == 0), (shape, lead)
            kernel(x, out[:, : shape[2]])
            assert_bits_equal(out[:, : shape[2]], reference(x))
            assert_bits_equal(out[:, shape[2]], poisoned((shape[0], shape[1]), dtype))
    compiled = vectors._compiled_vector_kernel(itemsize, True, False, True)
    asm = "\n".join(compiled.inspect_asm().values())
    assert re.search(r"\bv?movnt", asm) and "sfence" in asm
    assert not re.search(r"\bv?movnt", "\n".join(vectors._compiled_vector_kernel(itemsize, True, False).inspect_asm()
                                                   .values()))


@pytest.mark.parametrize("shape, dtype, streamed", [
    ((1000, 5000), np.float32, True),  # output rows 4,000 B apart, 20 MB
    ((1000, 5000), np.complex64, True),  # 8-byte elements, 40 MB
    ((3, 602, 3000), np.float64, True),  # a batch
    ((1001, 5000), np.float32, False),  # output rows 4,004 B apart: not whole vectors
    ((1001, 5000), np.float64, False),  # 8,008 B
    ((1024, 5000), np.float32, False),  # 4,096 B: a multiple of 512 B (aliased)
    ((1000, 4096), np.float32, False),  # input rows 16 KiB apart (aliased)
    ((1000, 1000), np.float32, False),  # 4 MB: under STREAM_MIN_BYTES
    ((2000, 5000), np.uint16, False),  # 2-byte elements
    ((1600, 5000), np.uint8, False),  # bytes
])
def test_stream_rule(shape, dtype, streamed):
    """cpu.planner.streams: 4- and 8-byte elements whose output rows lie whole 16-byte vectors apart, neither side's
    rows a multiple of ALIASED_PITCH apart, outputs of STREAM_MIN_BYTES or more (on x86-64 hosts)."""
    from cornerturn.cpu import vectors

    itemsize = np.dtype(dtype).itemsize
    strides = tuple(int(np.prod(shape[i + 1:])) * itemsize for i in range(len(shape)))
    plan = choose_variant(canonical(shape, strides, itemsize))
    assert ("-streamed" in plan.name) == (streamed and vectors.STREAM_HOST), plan.name


@pytest.mark.parametrize("shape, dtype, tile, staged", [
    ((4000, 4001), np.float32, 1024, False),  # 16 tiles of 1024
    ((4000, 4000), np.uint8, 512, False),  # 64 tiles of 512
    ((700, 701), np.float32, 512, False),  # 1 tile of 1024, 4 of 512
    ((400, 401), np.float32, 256, False),  # 1 tile of 1024 or 512, 4 of 256
    ((3000, 401), np.float64, 512, False),  # 2 tiles of 1024, 6 of 512 (8-byte rows of 3000: too many for all)
    ((3000, 301), np.float64, 512, False),  # 3 tiles of 1024, 6 of 512
    ((2, 300, 301), np.uint16, 256, False),  # 2 tiles of 1024 or 512, 8 of 256
    ((130, 601), np.float32, 128, False),  # 1 tile of 1024, 2 of 512, 3 of 256, 10 of 128
    ((200, 201), np.uint8, 512, False),  # 40,200 elements: serial, one tile is enough
    ((8192, 8192), np.float32, 512, True),  # rows 32 KiB apart, a whole number of pages: staged, 256 tiles
    ((3000, 3072), np.float64, 512, True),  # rows 24 KiB apart: staged, 36 tiles
    ((700, 2048), np.float32, 512, True),  # rows 8 KiB apart: staged, 2 x 4 tiles
    ((700, 1024), np.float32, 256, False),  # rows exactly one page apart: aliased, not staged, 3 x 4 tiles
    ((18890, 512), np.int64, 128, False),  # the same, 8-byte: 148 x 4 tiles of 128
    ((6000, 2304), np.float32, 256, False),  # rows 9 KiB apart: aliased, not a whole number of pages
    ((3000, 2688), np.float64, 128, False),  # rows 21 KiB apart: aliased
    ((5000, 6144), np.uint16, 256, False),  # rows 12 KiB apart: aliased
    ((5000, 6144), np.uint8, 512, False),  # bytes: 512 either way
])
def test_vector_tiles_halve_until_each_thread_has_two(shape, dtype, tile, staged, monkeypatch):
    """Worked by hand for two threads: the tile for the element size and pitch, halved while there are fewer than
    four tiles."""
    import numba

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    itemsize = np.dtype(dtype).itemsize
    plan = choose_variant(canonical(shape, np.empty(shape, dtype).strides, itemsize))
    assert (plan.variant.tile, plan.variant.staged) == (tile, staged)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_elements_at_unaligned_addresses(dtype, rng):
    """Arrays whose addresses are aligned to no element (a buffer read from an odd offset) move element by element."""
    itemsize = np.dtype(dtype).itemsize
    raw = random_bits((300 * 200 * itemsize + 1,), np.uint8, rng)
    x = np.frombuffer(raw.tobytes(), dtype=dtype, offset=1, count=300 * 200).reshape(300, 200)
    assert not x.flags.aligned
    assert_bits_equal(cornerturn.transpose(x), reference(x))


def test_sixteen_byte_elements_keep_every_bit(rng):
    # signalling-NaN halves and odd payloads: moved, never touched by arithmetic
    x = random_bits((257, 129), np.complex128, rng)
    x.view(np.uint64)[:, ::2] = 0x7FF0000000000001  # signalling NaN bit pattern
    assert_bits_equal(cornerturn.transpose(x), reference(x))


@pytest.mark.parametrize("shape, tile", [
    ((400, 401), (400, 64)),  # tiles of 256 rows would cut 400: all of them, by 64 columns
    ((3, 1021, 300), (1022, 64)),  # a batch; rows to whole blocks of 2
    ((1025, 300), (256, 256)),  # rows of more than 8 KiB: the tiles as they were (1024 halved to 256)
    ((200, 201), (1024, 1024)),  # serial: one tile of 1024 already holds every row
    ((700, 512), (128, 128))])  # rows 4 KiB apart (aliased): the aliased table's tiles
def test_eight_byte_tiles_take_every_row_where_the_rows_are_few(shape, tile, monkeypatch, rng):
    import numba

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    x = random_bits(shape, np.float64, rng)
    plan = choose_variant(canonical(shape, x.strides, 8))
    assert (plan.variant.tile, plan.variant.tile_cols or plan.variant.tile) == tile, plan.name
    out = poisoned((*shape[:-2], shape[-1], shape[-2]), np.float64)
    cornerturn.transpose(x, out=out)
    assert_bits_equal(out, reference(x))


@pytest.mark.parametrize("shape, cols", [((3, 128, 1030), 1030), ((1700, 1027), 1027), ((2, 200, 1029), 1042),
                                         ((2049, 1031), 1031), ((1600, 600), 600)])
def test_sixteen_byte_column_walks(shape, cols, rng):
    """16-byte matrices of 512 columns or more that move neither in the input's order nor in the output's take the
    column walks: batches, rows in two and three bands of up to WALK_ROWS, columns past whole bands of 16 and of 4,
    rows further apart than the columns (a slice), and 600 columns (streamed from STREAM_MIN_BYTES on x86-64: 1700 x
    1027 and 2049 x 1031); into a poisoned output."""
    from cornerturn.cpu.kernels import WALK_ROWS
    from cornerturn.cpu.planner import streams_sixteen

    base = random_bits((*shape[:-1], cols), np.complex128, rng)
    x = base[..., :shape[-1]]
    problem = canonical(x.shape, x.strides, 16)
    plan = choose_variant(problem)
    streamed = "-streamed" if streams_sixteen(problem) else ""
    assert plan.name == f"walk16-rows{WALK_ROWS}-parallel{streamed}", plan.name
    out = poisoned((*shape[:-2], shape[-1], shape[-2]), np.complex128)
    cornerturn.transpose(x, out=out)
    assert_bits_equal(out, reference(x))


def check_streamed_16(kernel, cases, rng) -> None:
    """`kernel` (a kernel of 16-byte elements, streamed or not) on each (shape, cols, lead) of `cases`: x a slice of
    `cols` columns, the output `lead` bytes past a 16-byte boundary (8: not streamable, plain stores), bit-exact,
    nothing written before or past the output (an output row's bytes of spare)."""
    from cornerturn.cpu import nontemporal

    for shape, cols, lead in cases:
        x = random_bits((*shape[:-1], cols), np.complex128, rng)[..., :shape[-1]]
        size = shape[0] * shape[2] * shape[1] * 16
        spare = np.full(16 + lead + size + 16 * shape[1], 0xA5, np.uint8)
        start = -spare.ctypes.data % 16 + lead
        out = spare[start:start + size].view(np.complex128).reshape(shape[0], shape[2], shape[1])
        assert nontemporal.streamable(out) is (lead == 0)
        kernel(x, out)
        assert_bits_equal(out, reference(x))
        assert (spare[start + size:] == 0xA5).all() and (spare[:start] == 0xA5).all()


def assert_streams(py_func, *args) -> None:
    """`py_func` compiled afresh (a kernel loaded from Numba's cache has no assembly to show) and called on `args`
    stores non-temporally and fences, on x86-64."""
    import re

    import numba

    from cornerturn.cpu import nontemporal

    if nontemporal.STREAM_HOST:
        fresh = numba.njit(boundscheck=False)(py_func)
        fresh(*args)
        asm = "\n".join(fresh.inspect_asm().values())
        assert re.search(r"\bv?movnt", asm) and "sfence" in asm


def test_streamed_column_walks(rng):
    """The column walks with non-temporal element stores (x86-64): rows in two bands, columns past whole bands of 16
    and of 4, a batch, a sliced input, threaded and not; an output 8 bytes past a vector takes plain stores; nothing
    written past the output; the compiled walk stores non-temporally and fences."""
    from cornerturn.cpu import kernels

    for parallel in (True, False):
        check_streamed_16(kernels.column_walk_kernel(parallel, True),
                          (((1, 1100, 37), 37, 0), ((2, 30, 70), 75, 0), ((1, 40, 21), 21, 8)), rng)
    assert_streams(kernels.column_walk_kernel(False, True).streamed.py_func, random_bits((1, 8, 5), np.complex128, rng),
                   np.empty(40, np.complex128))


@pytest.mark.parametrize("shape, dtype, walks", [
    ((160, 512), np.complex128, True), ((160, 511), np.complex128, False),  # the columns the walks need
    ((200, 2048), np.complex128, False), ((200, 2049), np.complex128, True),  # rows 32 KiB apart: set aliasing
    ((200, 4100), np.complex128, True), ((320, 700), np.float64, False),
    ((64, 1100), np.complex128, True), ((64, 1000), np.complex128, False)])  # too few elements for threads: tiles
def test_column_walks_take_sixteen_byte_rows_apart_from_aliased_pitches(shape, dtype, walks):
    plan = choose_variant(canonical(shape, np.empty(shape, dtype).strides, np.dtype(dtype).itemsize))
    assert plan.name.startswith("walk16") is walks, plan.name
    reversed_rows = np.empty(shape, dtype)[::-1]  # a negative pitch: the element tiles
    assert not choose_variant(canonical(shape, reversed_rows.strides, np.dtype(dtype).itemsize)).name.startswith("walk")


@pytest.mark.parametrize("rows, cols, takes", [
    (256, 1100, True), (255, 1100, False), (1536, 1100, True), (1537, 1100, False),  # the rows it takes
    (400, 1024, False), (400, 2048, False)])  # the input's order (1,024 columns), rows 32 KiB apart (neither)
def test_output_order_takes_sixteen_byte_matrices_of_256_to_1536_rows(rows, cols, takes):
    """The rows the output's order takes; it streams its output from STREAM_MIN_BYTES (1536 x 1100: 27 MB) on x86-64."""
    from cornerturn.cpu import vectors
    from cornerturn.cpu.planner import STREAM_MIN_BYTES

    plan = choose_variant(canonical((rows, cols), (cols * 16, 16), 16))
    assert plan.name.startswith("output-order16-parallel") is takes, plan.name
    if takes:
        streamed = vectors.STREAM_HOST and rows * cols * 16 >= STREAM_MIN_BYTES
        assert plan.name.endswith("-streamed") is streamed, plan.name


def test_input_order_kernel_rows_a_task(rng):
    """The input's order, four input rows a task (sixteen streamed, x86-64), threaded and not: rows past whole groups,
    batches, a sliced input, a misaligned output (plain stores), nothing written outside; the streamed loop compiles
    to non-temporal stores and a fence."""
    from cornerturn.cpu import kernels

    cases = (((1, 38, 301), 301, 0), ((2, 35, 40), 44, 0), ((3, 9, 20), 24, 0), ((2, 7, 33), 33, 8))
    for parallel in (True, False):
        check_streamed_16(kernels.input_order_kernel(parallel, True), cases, rng)
        check_streamed_16(kernels.input_order_kernel(parallel, False), cases, rng)
    assert_streams(kernels.input_order_kernel(False, True).streamed.py_func, random_bits((1, 6, 5), np.complex128, rng),
                   np.empty(30, np.complex128))


def test_streamed_output_order_kernel(rng):
    """The output's order with non-temporal element stores (x86-64): batches, a part of a thread ending inside an
    output row, rows further apart than the columns, threaded and not; an output 8 bytes past a vector takes plain
    stores; nothing written past the output; the compiled loop stores non-temporally and fences."""
    from cornerturn.cpu import output_order

    for parallel in (True, False):
        check_streamed_16(output_order.output_order_kernel(parallel, True),
                          (((3, 257, 41), 41, 0), ((1, 300, 77), 80, 0), ((2, 260, 33), 33, 8)), rng)
    flat = np.zeros(4, np.complex128)
    assert_streams(output_order._rows_down_columns_streamed.py_func, flat, flat.copy(), np.uint64(0), np.uint64(0),
                   np.uint64(2), 2, np.uint64(2), np.uint64(1))


def test_output_order_kernel_refuses_strides_it_cannot_read_flat():
    from cornerturn.cpu.output_order import output_order_kernel

    x = np.zeros((2, 300, 40), np.complex128)
    with pytest.raises(ValueError, match="strides"):
        output_order_kernel(False)(x[:, ::-1], np.empty((2, 40, 300), np.complex128))


@pytest.mark.parametrize("shape, cols, order", [
    ((2, 111, 301), 301, "input"), ((333, 1024), 1024, "input"), ((3, 45, 700), 710, "input"),
    ((70, 1000), 1000, "input"), ((300, 1100), 1100, "output"), ((2, 700, 1501), 1503, "output"),
    ((3, 256, 1031), 1040, "output"), ((1536, 1027), 1027, "output")])
def test_sixteen_byte_rows_in_the_input_or_the_output_order(shape, cols, order, rng):
    """16-byte matrices of 300 to 1,024 columns move one input row a task, written down the output's columns; those
    the column walks would take, of 256 to 1,536 rows, one output row at a time, read down an input column: batches,
    rows further apart than the columns (a slice), both ends of the ranges (the output's order streamed from
    STREAM_MIN_BYTES on x86-64: 2 x (700x1501) and 1536 x 1027); into a poisoned output."""
    from cornerturn.cpu.planner import streams_sixteen

    base = random_bits((*shape[:-1], cols), np.complex128, rng)
    x = base[..., :shape[-1]]
    problem = canonical(x.shape, x.strides, 16)
    plan = choose_variant(problem)
    streamed = "-streamed" if streams_sixteen(problem) else ""
    assert plan.name == f"{order}-order16-parallel{streamed}", plan.name
    out = poisoned((*shape[:-2], shape[-1], shape[-2]), np.complex128)
    cornerturn.transpose(x, out=out)
    assert_bits_equal(out, reference(x))


@pytest.mark.parametrize("shape, dtype, in_order", [
    ((300, 300), np.complex128, True), ((300, 299), np.complex128, False),  # the columns it takes
    ((300, 1024), np.complex128, True), ((300, 1025), np.complex128, False),
    ((320, 600), np.complex128, False), ((336, 600), np.complex128, True),  # output rows 5 KiB long: a 512 B multiple
    ((300, 600), np.float64, False), ((300, 600), np.complex64, False),  # 16-byte elements only
    ((100, 600), np.complex128, False)])  # too few elements for threads: the element tiles
def test_input_order_takes_sixteen_byte_matrices_of_300_to_1024_columns(shape, dtype, in_order):
    plan = choose_variant(canonical(shape, np.empty(shape, dtype).strides, np.dtype(dtype).itemsize))
    assert plan.name.startswith("input-order") is in_order, plan.name
    columns = np.empty(shape[::-1], dtype).T  # columns strided (already laid out as the transpose): not this
    assert not choose_variant(canonical(shape, columns.strides, np.dtype(dtype).itemsize)).name.startswith("input")


@st.composite
def strided_case(draw):
    dtype = draw(st.sampled_from(DTYPES))
    ndim = draw(st.integers(2, 4))
    shape = [draw(st.sampled_from(EXTENTS)) if k >= ndim - 2 else draw(st.integers(0, 3)) for k in range(ndim)]
    steps = [draw(st.sampled_from([1, 1, 2, 3, -1, -2])) for _ in range(ndim)]
    permute = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    return dtype, tuple(shape), tuple(steps), permute, seed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strided_case())
def test_strided_and_negative_strides(case):
    dtype, shape, steps, permute, seed = case
    rng = np.random.default_rng(seed)
    base = random_bits(tuple(s * abs(k) for s, k in zip(shape, steps)), dtype, rng)
    x = base[tuple(slice(None, None, k) for k in steps)]
    if permute:
        x = np.moveaxis(x, 0, -1)
    got = cornerturn.transpose(x)
    assert_bits_equal(got, reference(x))
    assert got.shape == x.shape[:-2] + (x.shape[-1], x.shape[-2])


def test_read_only_input_is_fine(rng):
    x = random_bits((40, 50), np.float32, rng)
    x.flags.writeable = False
    assert_bits_equal(cornerturn.transpose(x), reference(x))


def test_zero_size_axes_return_empty():
    for shape in [(0, 5), (5, 0), (3, 0, 4), (0, 0)]:
        got = cornerturn.transpose(np.empty(shape, np.float32))
        assert got.shape == shape[:-2] + (shape[-1], shape[-2])


def test_scalar_ndarray_subclass_is_fine(rng):
    x = np.asmatrix(random_bits((3, 4), np.float64, rng))
    assert_bits_equal(np.asarray(cornerturn.transpose(x)), reference(np.asarray(x)))
