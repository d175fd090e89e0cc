"""cornerturn.transpose_ on non-square matrices: the decomposition's index maps (cornerturn.ckg), the CPU passes,
and the GPU passes in Triton's interpreter, on prime, coprime (gcd = 1) and gcd > 1 shapes, bit-exact; the scratch
each plan takes stays O(max(M, N))."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, random_bits

import cornerturn
from cornerturn.ckg import Decomposition, transpose_reference

# (rows, cols): gcd > 1, coprime, primes, one divides the other, skinny both ways
SHAPES = [(4, 6), (6, 4), (7, 5), (12, 18), (97, 89), (64, 8), (8, 64), (30, 100), (200, 3), (3, 200), (33, 128)]


@pytest.mark.parametrize("rows, cols", [(m, n) for m in range(1, 26) for n in range(1, 26)][::7] + SHAPES)
def test_reference_passes_transpose(rows, cols, rng):
    x = rng.integers(0, 2**62, (rows, cols))
    np.testing.assert_array_equal(transpose_reference(x), x.T)


def test_decomposition_constants():
    d = Decomposition(32768, 8192)
    assert (d.c, d.a, d.b, d.rotates_first) == (8192, 4, 1, True)
    d = Decomposition(32768, 8191)
    assert (d.c, d.rotates_first) == (1, False) and d.a_inverse * d.a % d.b == 1
    with pytest.raises(ValueError, match="at least 1 x 1"):
        Decomposition(0, 4)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES + [(3, 10, 14), (2, 2, 5, 9)], ids=str)
def test_cpu_passes(dtype, shape, rng):
    from cornerturn.cpu.rectangular import transpose_batch

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    words = x.reshape(-1, m, n).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64,
                                      16: np.complex128}[x.itemsize])
    transpose_batch(words, small_bytes=0)  # the three passes even for small matrices
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("shape", [(5, 3), (2, 70, 45), (1000, 3), (3, 1000), (300, 500)], ids=str)
def test_transpose_in_place_returns_a_view_of_the_same_memory(shape, rng):
    x = random_bits(shape, np.float32, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    y = cornerturn.transpose_(x)
    assert y.shape == want.shape and np.shares_memory(x, y) and x.shape == shape
    assert_bits_equal(y, want)


def test_torch_cpu_tensor_rectangular(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(random_bits((2, 9, 14), np.int16, rng))
    want = x.transpose(-1, -2).contiguous()
    y = cornerturn.transpose_(x)
    assert y.data_ptr() == x.data_ptr() and torch.equal(y, want)


ROUTES = {
    "passes": {"small_bytes": 0},  # the column settings of the element size
    # many column bands: one pipelined launch through a ring of two slots, with rows in bands
    "ring of two, banded rows": {"small_bytes": 0, "row_words": 2, "row_band_bytes": 64,
                                 "columns": {"pipelined": True, "band_bytes": 64, "ring": 2, "group": 1}},
    # each band gathered back two bands later, items of three tiles
    "ring of three, lag of two": {"small_bytes": 0, "columns": {"pipelined": True, "band_bytes": 64, "ring": 3,
                                                                "lag": 2, "group": 3}},
    "a launch per band": {"small_bytes": 0, "columns": {"pipelined": False, "band_bytes": 64}},
    "through scratch": {},
}


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 6), (7, 5), (12, 18), (2, 30, 100), (64, 8), (200, 3), (256, 6)], ids=str)
@pytest.mark.parametrize("route", list(ROUTES))
def test_gpu_passes_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import ColumnOptions, column_options, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    options = dict(ROUTES[route])
    if "columns" in options:
        options["columns"] = ColumnOptions(**options["columns"])
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, **options)
    names = {step.launch.kernel.fn.__name__ for step in p.steps}
    if route != "through scratch":
        pipelined = options.get("columns", column_options(x.itemsize)).pipelined
        rows = "inplace_rows_banded" if "row_words" in options else "inplace_rows"
        assert names == ({rows, "inplace_columns", "zero_words"} if pipelined else {rows, "inplace_columns_banded"})
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


def test_column_options_are_checked():
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import ColumnOptions

    with pytest.raises(ValueError, match="lag must be in"):
        ColumnOptions(pipelined=True, band_bytes=1 << 20, ring=2, lag=2)
    with pytest.raises(ValueError, match="band_bytes must be at least 1"):
        ColumnOptions(pipelined=True, band_bytes=0)
    with pytest.raises(ValueError, match="power of two"):
        ColumnOptions(pipelined=True, band_bytes=1 << 20, tile_rows=3)


@pytest.mark.parametrize("rows, cols, itemsize", [(32768, 8192, 4), (32768, 8191, 4), (8192, 32768, 2),
                                                  (1 << 24, 3, 4), (3, 1 << 24, 4), (65536, 65535, 16),
                                                  (65536, 16384, 1)])
def test_gpu_scratch_is_order_max_rows_cols(rows, cols, itemsize):
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import ROW_BAND_BYTES, column_options, plan

    p = plan(1, rows, cols, itemsize, 16)
    o = column_options(itemsize)
    # the column slots (each at most a band, or one 128-byte column band of a tall matrix), or two row bands (one
    # row each for a wide one), plus two counters per column band
    slots = max(max(o.ring, 2) * max(o.band_bytes, rows * min(cols * itemsize, 128)),
                2 * max(ROW_BAND_BYTES, cols * itemsize))
    assert p.scratch_bytes <= slots + 8 * cols + 16
    assert {step.launch.kernel.fn.__name__ for step in p.steps} & {"inplace_columns", "inplace_columns_banded"}
