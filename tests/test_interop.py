"""Interop: CPU torch tensors and JAX-free paths; results keep the caller's library, dtype and device."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, random_bits

import cornerturn
from cornerturn.arrays import view_of

torch = pytest.importorskip("torch")

TORCH_DTYPES = [torch.bool, torch.int8, torch.uint8, torch.float8_e4m3fn, torch.int16, torch.float16,
                torch.bfloat16, torch.int32, torch.float32, torch.int64, torch.float64, torch.complex64,
                torch.complex128]


def random_tensor(shape, dtype, rng) -> torch.Tensor:
    itemsize = torch.empty((), dtype=dtype).element_size()
    words = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.int64}[itemsize]
    raw = random_bits(tuple(shape[:-1]) + (shape[-1] * (2 if itemsize == 16 else 1),), words, rng)
    if dtype == torch.bool:
        raw = raw & 1
    return torch.from_numpy(np.ascontiguousarray(raw)).view(dtype)


def tensor_bits(t: torch.Tensor) -> np.ndarray:
    t = t.contiguous()
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.view(torch.uint8).numpy()


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_torch_cpu_tensors(dtype, rng):
    x = random_tensor((3, 33, 31), dtype, rng)
    got = cornerturn.transpose(x)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype and got.device.type == "cpu"
    assert got.is_contiguous()
    np.testing.assert_array_equal(tensor_bits(got), tensor_bits(x.transpose(-1, -2)))


def test_torch_strided_views_and_out(rng):
    x = random_tensor((70, 90), torch.float32, rng)[5:60:2, ::3]
    out = torch.full((30, 28), 7.0)
    assert cornerturn.transpose(x, out=out) is out
    np.testing.assert_array_equal(tensor_bits(out), tensor_bits(x.t()))


def test_torch_lazy_conjugate_is_resolved(rng):
    z = torch.complex(torch.randn(4, 6), torch.randn(4, 6))
    x = z.conj()
    assert x.is_conj()
    got = cornerturn.transpose(x)
    assert torch.equal(got, x.resolve_conj().t())


def test_fp16_and_int16_share_a_plan():
    a = cornerturn.plan((64, 32), np.float16)
    b = cornerturn.plan((64, 32), torch.int16)
    c = cornerturn.plan((64, 32), "bfloat16")
    assert a.problem.key == b.problem.key == c.problem.key
    assert a._backend is b._backend is c._backend


def test_plans_are_cached_and_execute_without_replanning(rng):
    p = cornerturn.plan((2, 300, 200), np.float32)
    assert cornerturn.plan((2, 300, 200), "float32") is p
    x = random_bits((2, 300, 200), np.float32, rng)
    out = np.empty((2, 200, 300), np.float32)
    assert p.execute(x, out) is out
    assert_bits_equal(out, np.ascontiguousarray(x.swapaxes(-1, -2)))
    assert "parallel" in p.method and p.reason


def test_plan_for_strided_inputs(rng):
    base = random_bits((40, 60), np.float64, rng)
    x = base[::2, ::-3]
    p = cornerturn.plan(x.shape, x.dtype, strides=tuple(s // 8 for s in x.strides))
    out = np.empty((20, 20), np.float64)
    p.execute(x, out)
    assert_bits_equal(out, np.ascontiguousarray(x.T))


def test_small_plans_say_they_fall_back_to_numpy():
    p = cornerturn.plan((8, 8), np.float32)
    assert p.method == "numpy" and "NumPy" in p.reason
    assert cornerturn.plan((8, 1), np.float32).method == "numpy-copy"


def test_views_of_numpy_and_torch_agree(rng):
    x = random_bits((6, 10), np.float32, rng)[:, ::2]
    a, b = view_of(x), view_of(torch.from_numpy(x))
    assert (a.shape, a.strides, a.itemsize, a.dtype, a.ptr) == (b.shape, b.strides, b.itemsize, b.dtype, b.ptr)


def test_import_and_cpu_path_without_gpu_libraries():
    """`import cornerturn` and the CPU engine need none of torch, triton, cupy, jax or numba.cuda."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for m in ('torch', 'triton', 'cupy', 'jax', 'numba.cuda', 'ml_dtypes'):\n"
        "    sys.modules[m] = None\n"
        "import numpy as np, cornerturn\n"
        "x = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
        "assert np.array_equal(cornerturn.transpose(x), x.T)\n"
        "assert cornerturn.transpose_(np.eye(3)).shape == (3, 3)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
