"""cornerturn's transposes as torch operators (torch.library): torch.ops.cornerturn.transpose (with autograd: the
gradient of a transpose is the transpose of the gradient), .transpose_out and .transpose_ (which mutate their
argument), .permute_dims (its gradient: the inverse permutation of the gradient) and .permute_dims_out, each with a
fake implementation so that shapes propagate. Under torch.compile the public functions call these, so a compiled
graph holds one node per call and no graph break; eagerly, only tensors that require grad take them (the operators'
dispatch costs a few microseconds a call).

Registered at `import cornerturn` if torch was imported before, else when torch is imported (cornerturn.torch_watch),
so that a program whose first call is compiled finds them; if that registration failed, the first torch tensor
tries again and raises.
"""

from __future__ import annotations

import torch

from . import api

_registered = False


def _swapped(x: torch.Tensor) -> tuple[int, ...]:
    if x.dim() < 2:
        raise ValueError(f"x: need an array of ndim >= 2, shaped (..., M, N); got shape {tuple(x.shape)}")
    return (*x.shape[:-2], x.shape[-1], x.shape[-2])


@torch.library.custom_op("cornerturn::transpose", mutates_args=())
def transpose(x: torch.Tensor) -> torch.Tensor:
    """The last two axes of x swapped, C-contiguous."""
    return api._eager(x, None)


@transpose.register_fake
def _transpose_fake(x: torch.Tensor) -> torch.Tensor:
    return x.new_empty(_swapped(x))


def _transpose_backward(ctx, grad: torch.Tensor) -> torch.Tensor:
    return transpose(grad)


transpose.register_autograd(_transpose_backward)


@torch.library.custom_op("cornerturn::transpose_out", mutates_args=("out",))
def transpose_out(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = the last two axes of x swapped."""
    api._eager(x, out)


@transpose_out.register_fake
def _transpose_out_fake(x: torch.Tensor, out: torch.Tensor) -> None:
    if tuple(out.shape) != _swapped(x):
        raise ValueError(f"out: shape {tuple(out.shape)}, expected {_swapped(x)}")


@torch.library.custom_op("cornerturn::transpose_", mutates_args=("x",))
def transpose_inplace(x: torch.Tensor) -> None:
    """x's memory now holds the transpose of its last two axes (read it with x.view of the swapped shape)."""
    api._transpose_inplace(x)


@transpose_inplace.register_fake
def _transpose_inplace_fake(x: torch.Tensor) -> None:
    _swapped(x)


def traced_transpose(x: torch.Tensor, out: torch.Tensor | None) -> torch.Tensor:
    """cornerturn.transpose under torch.compile."""
    if out is None:
        return transpose(x)
    transpose_out(x, out)
    return out


def autograd_transpose(x: torch.Tensor, out: torch.Tensor | None) -> torch.Tensor:
    """cornerturn.transpose of a tensor that requires grad, eagerly."""
    if out is not None:
        raise ValueError("out: x requires grad, and out= keeps no gradient (as torch refuses for its own out= ops); "
                         "call cornerturn.transpose(x) without out")
    return transpose(x)


def _permuted(x: torch.Tensor, axes: list[int]) -> tuple[int, ...]:
    from .problem import check_axes

    return tuple(x.shape[a] for a in check_axes(axes, x.dim()))


@torch.library.custom_op("cornerturn::permute_dims", mutates_args=())
def permute_dims(x: torch.Tensor, axes: list[int]) -> torch.Tensor:
    """x's axes permuted (result axis k is x's axis axes[k]), C-contiguous."""
    return api._permute(x, axes, None)


@permute_dims.register_fake
def _permute_dims_fake(x: torch.Tensor, axes: list[int]) -> torch.Tensor:
    return x.new_empty(_permuted(x, axes))


def _permute_dims_setup(ctx, inputs, output) -> None:
    from .problem import check_axes

    x, axes = inputs
    ctx.inverse = [0] * len(axes)
    for k, a in enumerate(check_axes(axes, x.dim())):
        ctx.inverse[a] = k


def _permute_dims_backward(ctx, grad: torch.Tensor):
    return permute_dims(grad, ctx.inverse), None


permute_dims.register_autograd(_permute_dims_backward, setup_context=_permute_dims_setup)


@torch.library.custom_op("cornerturn::permute_dims_out", mutates_args=("out",))
def permute_dims_out(x: torch.Tensor, axes: list[int], out: torch.Tensor) -> None:
    """out = x's axes permuted."""
    api._permute(x, axes, out)


@permute_dims_out.register_fake
def _permute_dims_out_fake(x: torch.Tensor, axes: list[int], out: torch.Tensor) -> None:
    if tuple(out.shape) != _permuted(x, axes):
        raise ValueError(f"out: shape {tuple(out.shape)}, expected {_permuted(x, axes)}")


def traced_permute_dims(x: torch.Tensor, axes, out: torch.Tensor | None) -> torch.Tensor:
    """cornerturn.permute_dims under torch.compile."""
    axes = [int(a) for a in axes]
    if out is None:
        return permute_dims(x, axes)
    permute_dims_out(x, axes, out)
    return out


def autograd_permute_dims(x: torch.Tensor, axes, out: torch.Tensor | None) -> torch.Tensor:
    """cornerturn.permute_dims of a tensor that requires grad, eagerly."""
    if out is not None:
        raise ValueError("out: x requires grad, and out= keeps no gradient (as torch refuses for its own out= ops); "
                         "call cornerturn.permute_dims(x, axes) without out")
    return permute_dims(x, [int(a) for a in axes])


def traced_transpose_(x: torch.Tensor) -> torch.Tensor:
    """cornerturn.transpose_ under torch.compile."""
    transpose_inplace(x)
    shape = _swapped(x)
    return x if shape == tuple(x.shape) else x.view(shape)


def register() -> None:
    """Route cornerturn's public functions through these operators under torch.compile (idempotent)."""
    global _registered
    if not _registered:
        api._torch_ops = __import__(__name__, fromlist=["_"])
        api._compiling = torch.compiler.is_compiling
        _registered = True
