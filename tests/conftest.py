"""Shared helpers: random bit patterns (never zeros), poisoned outputs, bit-exact comparison."""

from __future__ import annotations

import os

# Without a GPU, Triton kernels run in Triton's interpreter and the lab's numba-cuda kernels in numba-cuda's
# simulator (both read at import). The GPU script sets CORNERTURN_GPU_TESTS=1 to run them for real.
if os.environ.get("CORNERTURN_GPU_TESTS") != "1":
    os.environ.setdefault("TRITON_INTERPRET", "1")
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
# The CPU plans' tiles from the shipped table, not measured on the host running the tests (test_host_tiles measures).
os.environ.setdefault("CORNERTURN_CPU_TILES", "shipped")

import itertools

import numpy as np
import pytest

POISON = 0xA5


def _param_id(value) -> str:
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, np.dtype):
        return value.name
    return str(value)


class together(list):
    """An axis of `grid` whose values each hold several parameters, e.g. (shape, block) pairs."""


def grid(*axes, fast=None, full=None) -> list:
    """Parameters for pytest.mark.parametrize over every combination of `axes` (lists of values; the values of a
    `together` axis are tuples of several parameters). The fast tier (the README's test command) runs a cover of
    them: combination k takes the k-th value of every axis (cycling the shorter axes), so each value of each axis
    runs at least once, or exactly the combinations listed in `fast` where given; the rest carry the `full` mark
    and run in the full tier only (`scripts/test.sh --full`, and CI). `full`, where given, is a predicate over a
    combination's axis values: the full tier leaves out the combinations outside the cover that it refuses (those
    the interpreter takes minutes over and whose paths smaller ones reach)."""
    axes = [a if isinstance(a, together) else list(a) for a in axes]
    longest = max(len(a) for a in axes)
    diagonal = {tuple(a[k % len(a)] for a in axes) for k in range(longest)}
    cover = diagonal if fast is None else {tuple(c) for c in fast}
    params = []
    for combo in itertools.product(*axes):
        if full is not None and combo not in cover and not full(*combo):
            continue
        values = [v for value, axis in zip(combo, axes)
                  for v in (value if isinstance(axis, together) else (value,))]
        marks = () if combo in cover else (pytest.mark.full,)
        params.append(pytest.param(*values, marks=marks, id="-".join(_param_id(v) for v in combo)))
    return params


def interpreted_bytes_under(limit: int):
    """A `full` predicate for grid over (dtype, shape, ...): matrices of at most `limit` bytes."""
    return lambda dtype, shape, *rest: int(np.prod(shape)) * np.dtype(dtype).itemsize <= limit


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


@pytest.fixture(scope="session", autouse=True)
def _record_paths():
    """With CORNERTURN_RECORD_PATHS=FILE, the code paths the run reaches go to FILE (tests/paths.py says why)."""
    target = os.environ.get("CORNERTURN_RECORD_PATHS")
    if not target:
        yield
        return
    import paths

    seen: set = set()
    patch = pytest.MonkeyPatch()
    paths.install(patch.setattr, seen)
    yield
    patch.undo()
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # under pytest-xdist each worker writes FILE.gwN
    paths.write(f"{target}.{worker}" if worker else target, seen)
