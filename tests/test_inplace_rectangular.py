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


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 6), (7, 5), (12, 18), (2, 30, 100), (64, 8), (200, 3), (256, 6)], ids=str)
@pytest.mark.parametrize("route", ["passes", "banded rows", "through scratch"])
def test_gpu_passes_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    options = {"passes": {"small_bytes": 0}, "banded rows": {"small_bytes": 0, "row_words": 2, "band_bytes": 64},
               "through scratch": {}}[route]
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, **options)
    names = {step.launch.kernel.fn.__name__ for step in p.steps}
    expected = {"passes": {"inplace_rows", "inplace_columns"},
                "banded rows": {"inplace_rows_banded", "inplace_columns"}}.get(route)
    assert expected is None or names == expected
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("rows, cols, itemsize", [(32768, 8192, 4), (32768, 8191, 4), (8192, 32768, 2),
                                                  (1 << 24, 3, 4), (3, 1 << 24, 4), (65536, 65535, 16)])
def test_gpu_scratch_is_order_max_rows_cols(rows, cols, itemsize):
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BAND_BYTES, plan

    p = plan(1, rows, cols, itemsize, 16)
    # two bands, or two 128-byte column bands of a tall matrix, or two rows of a wide one
    assert p.scratch_bytes <= 2 * max(BAND_BYTES, rows * min(cols * itemsize, 128), cols * itemsize)
    assert "inplace_columns" in {step.launch.kernel.fn.__name__ for step in p.steps}  # the passes, not a copy
