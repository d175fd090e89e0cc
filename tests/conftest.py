"""Shared helpers: random bit patterns (never zeros), poisoned outputs, bit-exact comparison."""

from __future__ import annotations

import os

# Without a GPU, Triton kernels run in Triton's interpreter and the lab's numba-cuda kernels in numba-cuda's
# simulator (both read at import). The GPU script sets CORNERTURN_GPU_TESTS=1 to run them for real.
if os.environ.get("CORNERTURN_GPU_TESTS") != "1":
    os.environ.setdefault("TRITON_INTERPRET", "1")
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np
import pytest

POISON = 0xA5


def random_bits(shape, dtype, rng: np.random.Generator) -> np.ndarray:
    """An array of `dtype` filled with random bytes: every bit pattern, NaN payloads included."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = rng.integers(1, 256, size=count, dtype=np.uint8)
    if dtype == np.bool_:
        raw &= 1
    return raw.view(dtype).reshape(shape)


def poisoned(shape, dtype) -> np.ndarray:
    out = np.empty(shape, dtype)
    out.view(np.uint8)[...] = POISON
    return out


def bits(a: np.ndarray) -> np.ndarray:
    """The array's bytes, per element, for exact comparison (NaN == NaN when the bits agree)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))


def assert_bits_equal(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)
