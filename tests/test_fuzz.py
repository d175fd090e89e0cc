"""Fuzzing the public calls: random dtypes (byte orders, records, strings, dates, ones cornerturn refuses), shapes,
strides, offsets (addresses aligned to no element), libraries and `out` arrays (matching, of another shape, dtype,
byte order or library, overlapping x, read-only, strided). Every call either returns exactly what NumPy gives, or
raises cornerturn's own clear error (a TypeError, ValueError or RuntimeError raised in cornerturn's code, naming the
argument) with x and out unchanged. The fast tier draws a few hundred calls, the full tier ten thousand."""

from __future__ import annotations

import traceback

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cornerturn

DTYPES = ["uint8", "bool", "int16", ">i2", "float16", "float32", ">f4", "<u4", "float64", ">f8", "complex64",
          "complex128", ">c16", "M8[s]", "m8[ns]", "S4", "U1", "S5", "V3", "O",
          [("a", "u1"), ("b", "<i2"), ("c", "u1")]]
OUTS = ["none", "match", "shape", "dtype", "byteorder", "overlap", "readonly", "strided", "torch"]


@st.composite
def calls(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(0, 9)) for _ in range(ndim))
    steps = tuple(draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in range(ndim))
    offset = draw(st.sampled_from([0, 0, 1, 3]))  # bytes: an address aligned to no element
    library = draw(st.sampled_from(["numpy", "numpy", "torch"]))
    out = draw(st.sampled_from(OUTS))
    seed = draw(st.integers(0, 2**32 - 1))
    return dtype, shape, steps, offset, library, out, seed


def _array(dtype, shape, steps, offset, rng):
    """A view with `steps` into a buffer of random bytes that starts `offset` bytes into its allocation."""
    full = tuple(max(1, s * abs(k)) for s, k in zip(shape, steps))
    count = int(np.prod(full)) * dtype.itemsize
    raw = rng.integers(1, 256, size=count + offset + 16, dtype=np.uint8)
    if dtype.hasobject:
        base = np.empty(full, dtype)
        base[...] = 1
    else:
        base = np.frombuffer(raw.data, dtype=dtype, count=int(np.prod(full)), offset=offset).reshape(full)
        base = base.copy() if not base.flags.writeable else base
    index = tuple(slice(None, s * abs(k), k) if k > 0 else slice(s * abs(k) - 1, None, k)
                  for s, k in zip(shape, steps))
    return base, base[index]


def _bytes(a: np.ndarray) -> bytes:
    return a.tobytes() if not a.dtype.hasobject else repr(a.tolist()).encode()


def _make_out(kind, x, base, rng):
    want_shape = (*x.shape[:-2], x.shape[-1], x.shape[-2]) if x.ndim >= 2 else x.shape
    if kind == "none":
        return None
    if kind == "match":
        return np.full(want_shape, 0, x.dtype) if x.dtype.hasobject else \
            rng.integers(0, 256, max(1, int(np.prod(want_shape))) * x.dtype.itemsize, np.uint8)[
                :int(np.prod(want_shape)) * x.dtype.itemsize].view(x.dtype).reshape(want_shape)
    if kind == "shape":
        return np.zeros((*want_shape, 2), x.dtype)
    if kind == "dtype":
        return np.zeros(want_shape, np.float32 if x.dtype != np.float32 else np.int32)
    if kind == "byteorder":
        return np.zeros(want_shape, x.dtype.newbyteorder())
    if kind == "overlap":
        flat = base.reshape(-1)
        n = int(np.prod(want_shape))
        return flat[:n].reshape(want_shape) if flat.size >= n and not x.dtype.hasobject else None
    if kind == "readonly":
        o = np.zeros(want_shape, x.dtype)
        o.flags.writeable = False
        return o
    if kind == "strided":
        return np.zeros((*want_shape[:-1], 2 * want_shape[-1] if want_shape else 0), x.dtype)[..., ::2]
    return "torch"


def _torch_view(base: np.ndarray, x: np.ndarray, steps):
    """The same view as a torch tensor (torch has no negative steps: those become a contiguous copy)."""
    import torch

    if all(k > 0 for k in steps):
        return torch.from_numpy(base.copy())[tuple(slice(None, s * k, k) for s, k in zip(x.shape, steps))]
    return torch.from_numpy(x.copy())


def one_call(case) -> str:
    dtype, shape, steps, offset, library, out_kind, seed = case
    rng = np.random.default_rng(seed)
    base, x = _array(dtype, shape, steps, offset, rng)
    out = _make_out(out_kind, x, base, rng)
    arg = x
    if library == "torch" or out_kind == "torch":
        torch = pytest.importorskip("torch")
        if library == "torch" and not dtype.hasobject and dtype.isnative and dtype.kind in "biufc":
            arg = _torch_view(base, x, steps)
        if out_kind == "torch":
            out = torch.zeros(1)
    seen = (lambda: arg.numpy()) if arg is not x else (lambda: x)
    x_before = _bytes(seen())
    out_before = _bytes(out) if isinstance(out, np.ndarray) else None
    want = np.ascontiguousarray(np.swapaxes(x, -1, -2)) if x.ndim >= 2 else None
    try:
        got = cornerturn.transpose(arg, out=out)
    except (TypeError, ValueError, RuntimeError) as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        assert "cornerturn" in frames[-1].filename, f"raised outside cornerturn: {frames[-1]}: {exc!r}"
        assert str(exc).split(":")[0] in ("x", "out"), f"message names no argument: {exc}"
        assert _bytes(seen()) == x_before, "x changed by a failed call"
        if out_before is not None:
            assert _bytes(out) == out_before, "out written by a failed call"
        return "error"
    assert want is not None, "ndim < 2 accepted"
    assert _bytes(seen()) == x_before, "x changed"
    if out is not None:
        assert got is out
    got_np = got if isinstance(got, np.ndarray) else got.numpy()
    assert got_np.shape == want.shape and got_np.flags.c_contiguous
    if arg is x:
        assert got.dtype == x.dtype, (got.dtype, x.dtype)
    assert got_np.tobytes() == want.tobytes(), "wrong bits"
    return "ok"


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(calls())
def test_fuzzed_calls_are_exact_or_clear_errors(case):
    one_call(case)


@pytest.mark.full
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(calls())
def test_ten_thousand_fuzzed_calls(case):
    one_call(case)
