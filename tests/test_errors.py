"""Bad input: a clear error naming the argument, raised before anything is written."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import POISON, poisoned, random_bits

import cornerturn
from cornerturn.errors import BackendUnavailableError


def untouched(out: np.ndarray) -> bool:
    return bool((out[..., None].view(np.uint8) == POISON).all())


def test_ndim_below_two_names_the_shape():
    for x in (np.float32(1.0), np.ones(5, np.float32)):
        with pytest.raises((ValueError, TypeError), match=r"x: |ndim"):
            cornerturn.transpose(x)
    with pytest.raises(ValueError, match=r"x: need an array of ndim >= 2.*\(5,\)"):
        cornerturn.transpose(np.ones(5, np.float32))


def test_unsupported_dtype_named_as_numpy_spells_it():
    with pytest.raises(TypeError, match=r"x: unsupported dtype '\|S5' of 5-byte elements; .*bfloat16.*complex128"):
        cornerturn.transpose(np.zeros((2, 2), "S5"))
    with pytest.raises(TypeError, match=r"x: unsupported dtype 'object': it holds Python objects"):
        cornerturn.transpose(np.ones((2, 2), object))
    with pytest.raises(TypeError, match=r"dtype: unsupported dtype 'object'"):
        cornerturn.plan((2, 2), object)


@pytest.mark.parametrize("dtype", ["datetime64[s]", "timedelta64[ns]", "U1", "S4", ">f4", ">c16",
                                   [("a", "u1"), ("b", "<i2"), ("c", "u1")]], ids=str)
def test_any_numpy_dtype_of_a_moved_size_moves_as_its_bits(dtype, rng):
    x = random_bits((3, 5, 7 * np.dtype(dtype).itemsize), np.uint8, rng).view(dtype)
    got = cornerturn.transpose(x)
    assert got.dtype == x.dtype and got.tobytes() == np.ascontiguousarray(x.swapaxes(-1, -2)).tobytes()


def test_out_of_another_byte_order_is_refused():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros((4, 3), ">f4")
    with pytest.raises(TypeError, match=r"out: dtype >f4, expected float32"):
        cornerturn.transpose(x, out=out)
    assert not out.any()
    y = x.astype(">f4")
    assert cornerturn.transpose(y, out=out) is out and np.array_equal(out, x.T)


def test_not_an_array():
    with pytest.raises(TypeError, match=r"x: expected an array of NumPy, PyTorch"):
        cornerturn.transpose([[1, 2], [3, 4]])


@pytest.mark.parametrize("bad, match", [
    (lambda: poisoned((4, 3), np.float32), r"out: shape \(4, 3\), expected \(5, 3\)"),
    (lambda: poisoned((5, 3), np.float64), r"out: dtype float64, expected float32"),
    (lambda: poisoned((5, 3), np.int32), r"out: dtype int32, expected float32"),
    (lambda: poisoned((3, 5), np.float32).T, r"out: must be C-contiguous"),
    (lambda: poisoned((5, 6), np.float32)[:, ::2], r"out: must be C-contiguous"),
    (lambda: _read_only(poisoned((5, 3), np.float32)), r"out: cannot be written: it is read-only"),
])
def test_bad_out_raises_and_writes_nothing(bad, match, rng):
    x = random_bits((3, 5), np.float32, rng)
    out = bad()
    with pytest.raises((ValueError, TypeError), match=match):
        cornerturn.transpose(x, out=out)
    assert untouched(out)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def test_out_overlapping_x(rng):
    buf = random_bits((2, 8, 8), np.float32, rng)
    before = buf.copy()
    with pytest.raises(ValueError, match="out: overlaps x"):
        cornerturn.transpose(buf[0], out=buf[0])
    with pytest.raises(ValueError, match="out: overlaps x"):
        cornerturn.transpose(buf.reshape(16, 8)[2:10], out=buf.reshape(16, 8)[8:16])
    np.testing.assert_array_equal(buf, before)


def test_disjoint_halves_of_one_buffer_are_fine(rng):
    buf = random_bits((2, 8, 8), np.float32, rng)
    cornerturn.transpose(buf[0], out=buf[1])
    np.testing.assert_array_equal(buf[1], buf[0].T)


def test_out_of_another_library():
    torch = pytest.importorskip("torch")
    x = np.ones((3, 5), np.float32)
    out = torch.empty((5, 3), dtype=torch.float32)
    out.fill_(7.0)
    with pytest.raises(TypeError, match="out: expected a numpy array like x, got a torch array"):
        cornerturn.transpose(x, out=out)
    assert bool((out == 7.0).all())


class FakeCupyArray:
    """Stands for a CuPy array on a GPU (no GPU here): the interface CuPy exposes, no memory behind it."""

    __module__ = "cupy._core.core"

    def __init__(self, shape, dtype=np.float32):
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.device = type("Device", (), {"id": 0})()
        strides = (shape[1] * self.dtype.itemsize, self.dtype.itemsize)
        self.__cuda_array_interface__ = {"shape": shape, "typestr": self.dtype.str, "data": (1 << 40, False),
                                         "strides": strides, "version": 3}


def test_gpu_array_without_gpu_engine_names_the_backend():
    with pytest.raises(BackendUnavailableError, match="GPU engine") as info:
        cornerturn.transpose(FakeCupyArray((4, 6)))
    assert isinstance(info.value, NotImplementedError)


def test_host_x_with_device_out_is_an_error():
    out = poisoned((6, 4), np.float32)
    with pytest.raises((TypeError, ValueError), match="out: "):
        cornerturn.transpose(np.ones((4, 6), np.float32), out=FakeCupyArray((6, 4)))
    assert untouched(out)


def test_plan_validates_its_arguments():
    with pytest.raises(ValueError, match="shape: need ndim >= 2"):
        cornerturn.plan((5,), np.float32)
    with pytest.raises(TypeError, match="dtype: unsupported dtype"):
        cornerturn.plan((5, 5), object)
    with pytest.raises(ValueError, match="device: expected 'cpu', 'cuda' or 'cuda:N'"):
        cornerturn.plan((5, 5), np.float32, device="tpu")
    with pytest.raises(ValueError, match="strides: need one per axis"):
        cornerturn.plan((5, 5), np.float32, strides=(1,))


def test_plan_execute_checks_x_and_out(rng):
    p = cornerturn.plan((6, 4), np.float32)
    out = poisoned((4, 6), np.float32)
    with pytest.raises(ValueError, match=r"x: shape \(4, 6\).*this plan is for shape \(6, 4\)"):
        p.execute(random_bits((4, 6), np.float32, rng), out)
    with pytest.raises(ValueError, match="x: shape"):
        p.execute(random_bits((6, 8), np.float32, rng)[:, ::2], out)
    with pytest.raises(ValueError, match="out: shape"):
        p.execute(random_bits((6, 4), np.float32, rng), poisoned((6, 4), np.float32))
    assert untouched(out)
