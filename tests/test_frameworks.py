"""cornerturn inside other frameworks' machinery: torch autograd, fake tensors and torch.compile through the
operators of cornerturn.torch_ops; NumPy masked arrays; JAX under jax.jit and jax.grad; layouts with no dense
storage refused by name."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import random_bits

import cornerturn

torch = pytest.importorskip("torch")


def test_autograd_flows_through_transpose(rng):
    x = torch.randn(3, 5, 7, dtype=torch.float64, requires_grad=True)
    y = cornerturn.transpose(x)
    assert y.requires_grad and y.shape == (3, 7, 5) and torch.equal(y, x.transpose(-1, -2))
    (y * torch.arange(35.0, dtype=torch.float64).reshape(7, 5)).sum().backward()
    assert torch.equal(x.grad, torch.arange(35.0, dtype=torch.float64).reshape(7, 5).t().expand(3, 5, 7))
    assert torch.autograd.gradcheck(cornerturn.transpose, (torch.randn(4, 6, dtype=torch.float64,
                                                                      requires_grad=True),))
    assert torch.autograd.gradgradcheck(cornerturn.transpose, (torch.randn(2, 3, dtype=torch.float64,
                                                                          requires_grad=True),))
    with torch.no_grad():
        assert not cornerturn.transpose(x).requires_grad


def test_what_autograd_cannot_follow_is_refused_before_anything_is_written():
    x = torch.randn(4, 6, requires_grad=True)
    out = torch.full((6, 4), 7.0)
    with pytest.raises(ValueError, match="out: x requires grad"):
        cornerturn.transpose(x, out=out)
    assert bool((out == 7.0).all())
    before = x.detach().clone()
    with pytest.raises(RuntimeError, match="x: a leaf tensor that requires grad cannot be transposed in place"):
        cornerturn.transpose_(x)
    with pytest.raises(RuntimeError, match="x: a tensor that requires grad"):
        cornerturn.transpose_(x * 1)
    assert torch.equal(x.detach(), before)


def test_operators_propagate_fake_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(2, 3, 5)
        assert torch.ops.cornerturn.transpose(x).shape == (2, 5, 3)
        with pytest.raises(ValueError, match="ndim >= 2"):
            torch.ops.cornerturn.transpose(torch.empty(5))


def test_compiled_without_graph_breaks(rng):
    a = torch.from_numpy(random_bits((2, 6, 9), np.int32, rng))

    def allocating(t):
        return cornerturn.transpose(t + 1) * 2

    def into_out(t):
        out = torch.empty(t.shape[0], t.shape[2], t.shape[1], dtype=t.dtype)
        cornerturn.transpose(t, out=out)
        return out

    def in_place(t):
        return cornerturn.transpose_(t.clone())

    for fn in (allocating, into_out, in_place):
        compiled = torch.compile(fn, fullgraph=True, backend="aot_eager")
        assert torch.equal(compiled(a), fn(a)), fn.__name__
    x = torch.randn(5, 4, requires_grad=True)
    step = torch.compile(lambda t: cornerturn.transpose(t).square().sum(), fullgraph=True, backend="aot_eager")
    step(x).backward()
    assert torch.allclose(x.grad, 2 * x.detach())


def test_first_call_compiled_when_cornerturn_was_imported_before_torch():
    # A fresh interpreter: in this one torch is imported already. The first call to cornerturn is traced.
    program = """
import cornerturn, sys
assert "torch" not in sys.modules
import torch
compiled = torch.compile(lambda t: cornerturn.permute_dims(t, (1, 2, 0)) * 2, fullgraph=True, backend="eager")
z = torch.randn(4, 5, 6)
assert torch.equal(compiled(z), z.permute(1, 2, 0) * 2)
assert torch.equal(torch.compile(cornerturn.transpose, fullgraph=True, backend="eager")(z), z.transpose(1, 2))
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


@pytest.mark.parametrize("make, name", [(lambda: torch.eye(4).to_sparse(), "layout torch.sparse_coo"),
                                        (lambda: torch.eye(4).to_sparse_csr(), "layout torch.sparse_csr"),
                                        (lambda: torch.quantize_per_tensor(torch.eye(4), 0.1, 0, torch.qint8),
                                         "quantized"),
                                        (lambda: torch.empty(3, 4, device="meta"), "on 'meta'")])
def test_tensors_without_dense_storage_are_refused_by_name(make, name):
    with pytest.raises(TypeError, match=f"x: .*{name}"):
        cornerturn.transpose(make())


def test_masked_arrays_keep_their_mask(rng):
    data = random_bits((2, 3, 4), np.float32, rng)
    mask = rng.random((2, 3, 4)) < 0.3
    x = np.ma.MaskedArray(data, mask=mask, fill_value=-5.0)
    got = cornerturn.transpose(x)
    assert isinstance(got, np.ma.MaskedArray) and got.fill_value == -5.0
    assert np.array_equal(got.mask, mask.swapaxes(-1, -2))
    assert got.data.tobytes() == np.ascontiguousarray(data.swapaxes(-1, -2)).tobytes()
    assert cornerturn.transpose(np.ma.MaskedArray(data)).mask is np.ma.nomask
    out = np.zeros((2, 4, 3), np.float32)
    with pytest.raises(TypeError, match="out: x is a NumPy masked array"):
        cornerturn.transpose(x, out=out)
    with pytest.raises(TypeError, match="x: a NumPy masked array"):
        cornerturn.transpose_(x)
    with pytest.raises(TypeError, match="x: a NumPy masked array"):
        cornerturn.plan((2, 3, 4), np.float32).execute(x, out)
    assert not out.any()


def test_jax_under_jit_and_grad():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = jnp.arange(24.0).reshape(2, 3, 4)
    want = np.swapaxes(np.asarray(x), -1, -2)
    assert np.array_equal(cornerturn.transpose(x), want)
    assert np.array_equal(jax.jit(lambda a: cornerturn.transpose(a) * 2)(x), 2 * want)
    weights = jnp.arange(12.0).reshape(4, 3)
    grad = jax.grad(lambda a: (cornerturn.transpose(a) * weights).sum())(jnp.ones((3, 4)))
    assert np.array_equal(grad, np.asarray(weights).T)
    with pytest.raises(TypeError, match="out: JAX arrays are immutable"):
        jax.jit(lambda a: cornerturn.transpose(a, out=a))(x)
