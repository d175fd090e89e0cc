"""Public functions: transpose, transpose_, permute_dims and plan. Validation happens here, before anything is
written."""

from __future__ import annotations

import functools
import math
import sys
from typing import Any

import numpy as np

from .arrays import ArrayView, byte_range, contiguous_strides, empty_like_library, finish, view_of
from .dtypes import canonical_name, itemsize_of, numpy_name
from .problem import Permutation, Problem, canonical_permutation, check_axes


def _swapped(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (*shape[:-2], shape[-1], shape[-2])


def _swap_axes(ndim: int) -> tuple[int, ...]:
    """The permutation that transpose() makes: the last two axes swapped."""
    return (*range(ndim - 2), ndim - 1, ndim - 2)


def _check_ndim(view: ArrayView, argument: str) -> None:
    if view.ndim < 2:
        raise ValueError(f"{argument}: need an array of ndim >= 2, shaped (..., M, N); got shape {view.shape}")


def _check_out(x: ArrayView, out: ArrayView, axes: tuple[int, ...] | None = None) -> None:
    """Every check of `out` against `x` (permuted by `axes`, or its last two axes swapped); raises before anything is
    written."""
    expected = _swapped(x.shape) if axes is None else tuple(x.shape[a] for a in axes)
    if out.library != x.library:
        raise TypeError(f"out: expected a {x.library} array like x, got a {out.library} array")
    if out.device != x.device:
        raise ValueError(f"out: is on {out.device} but x is on {x.device}; out must be on x's device")
    if out.dtype != x.dtype:
        raise TypeError(f"out: dtype {out.dtype}, expected {x.dtype} (x's dtype)")
    if out.shape != expected:
        how = "with the last two axes swapped" if axes is None else f"permuted by axes {axes}"
        raise ValueError(f"out: shape {out.shape}, expected {expected} (x's shape {x.shape} {how})")
    if not out.writeable:
        why = "JAX arrays are immutable" if out.library == "jax" else "it is read-only"
        raise ValueError(f"out: cannot be written: {why}")
    if not out.is_c_contiguous():
        raise ValueError(f"out: must be C-contiguous, got strides {out.strides} (bytes) for shape {out.shape}")
    if out.overlaps(x):
        raise ValueError("out: overlaps x in memory; pass a separate buffer")


@functools.lru_cache(maxsize=4096)
def _backend_plan(problem: Problem | Permutation, device: str):
    """The backend's choice for a canonical problem on a device: one per problem, shared by all its plans."""
    if device == "cpu":
        from . import cpu

        return cpu.choose_variant(problem)
    from . import engine

    return engine.choose(problem, device)


def _run(backend_plan: Any, device: str, x: ArrayView, out: ArrayView) -> None:
    if device == "cpu":
        from . import cpu

        cpu.run(backend_plan, x, out)
    else:
        from . import engine

        engine.run(backend_plan, x, out)


class Plan:
    """A transpose, or a permutation of axes, planned for one shape, dtype, stride pattern and device; `execute`
    runs it.

    Plans with the same canonical problem share the backend's choice (`method`).
    """

    def __init__(self, shape: tuple[int, ...], dtype: str, strides: tuple[int, ...], device: str,
                 autotune: bool = False, axes: tuple[int, ...] | None = None) -> None:
        self.shape = shape
        self.dtype = dtype
        self.itemsize = itemsize_of(dtype, argument="dtype")
        self.strides = strides
        self.device = device
        self.axes = axes  # None: the last two axes swapped (transpose)
        self.out_shape = _swapped(shape) if axes is None else tuple(shape[a] for a in axes)
        self.problem = canonical_permutation(shape, strides, self.itemsize,
                                             _swap_axes(len(shape)) if axes is None else axes)
        tuned = None
        if autotune and device != "cpu" and isinstance(self.problem, (Problem, Permutation)):
            from . import engine

            tuned = engine.choose(self.problem, device, None, True)  # measured now, kept in the tuning cache if on
            engine.choose.cache_clear()
            _backend_plan.cache_clear()
        self._backend = tuned or _backend_plan(self.problem, device)  # the measured plan even with the cache off
        self._index = int(device.split(":")[1]) if device != "cpu" else -1
        self._elem_strides = tuple(s // self.itemsize for s in strides)
        self._x_extent = byte_range(shape, strides, self.itemsize)
        self._out_nbytes = math.prod(shape) * self.itemsize

    def _torch_cuda(self, x: Any, out: Any) -> Any:
        """The short path for a CUDA torch tensor `x` that matches the plan: checks on torch's own attributes,
        launch by pointer. Returns None, having written nothing, where anything is unusual (the general path
        then runs and raises the proper error)."""
        if x.is_conj() or x.is_neg():
            return None
        if out is None:
            out = x.new_empty(self.out_shape)  # x's dtype and device; faster than torch.empty with both named
        elif (type(out) is not type(x) or out.dtype != x.dtype or out.device != x.device
              or out.shape != self.out_shape or not out.is_contiguous()):
            return None
        x_ptr, out_ptr = x.data_ptr(), out.data_ptr()
        lo, hi = self._x_extent
        if self._out_nbytes and x_ptr + lo < out_ptr + self._out_nbytes and out_ptr < x_ptr + hi:
            return None
        _engine_run_pointers()(self._backend, x_ptr, out_ptr, self._index)
        return out

    @property
    def method(self) -> str:
        """The kernel or fallback the plan runs."""
        return self._backend.name

    @property
    def reason(self) -> str:
        """Why the plan chose `method`."""
        return self._backend.reason

    def __repr__(self) -> str:
        axes = "" if self.axes is None else f", axes={self.axes}"
        return (f"Plan(shape={self.shape}, dtype={self.dtype!r}{axes}, device={self.device!r}, "
                f"method={self.method!r}: {self.reason}; {self.problem.describe()})")

    def execute(self, x: Any, out: Any) -> Any:
        """Transpose (or permute) `x`, of the planned shape, dtype and strides, into `out`; returns `out`."""
        if (type(x) is _torch_tensor() and out is not None and self._index >= 0 and x.is_cuda
                and x.shape == self.shape and x.stride() == self._elem_strides
                and x.device.index == self._index and x.element_size() == self.itemsize):
            done = self._torch_cuda(x, out)
            if done is not None:
                return done
        xv = view_of(x, "x")
        if xv.shape != self.shape or xv.strides != self.strides or xv.itemsize != self.itemsize:
            raise ValueError(
                f"x: shape {xv.shape}, strides {xv.strides}, {xv.itemsize}-byte elements; this plan is for "
                f"shape {self.shape}, strides {self.strides}, {self.itemsize}-byte elements")
        if xv.device != self.device:
            raise ValueError(f"x: is on {xv.device}; this plan is for {self.device}")
        outv = view_of(out, "out")
        _check_out(xv, outv, self.axes)
        _run(self._backend, xv.device, xv, outv)
        return out


def _dtype_name(dtype: Any) -> str:
    try:
        as_numpy = np.dtype(dtype)
    except TypeError:
        return canonical_name(str(dtype))  # a torch dtype, or a name NumPy does not know
    try:
        return numpy_name(as_numpy)
    except TypeError as exc:
        raise TypeError(f"dtype: {exc}") from None


def _device_name(device: str) -> str:
    if device == "cpu" or device == "cuda":
        return "cpu" if device == "cpu" else "cuda:0"
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return device
    raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N', got {device!r}")


@functools.lru_cache(maxsize=1024)
def _cached_plan(shape: tuple[int, ...], dtype: str, strides: tuple[int, ...], device: str,
                 axes: tuple[int, ...] | None = None) -> Plan:
    return Plan(shape, dtype, strides, device, axes=axes)


def plan(shape: tuple[int, ...], dtype: Any, *, device: str = "cpu", strides: tuple[int, ...] | None = None,
         autotune: bool = False, axes: Any = None) -> Plan:
    """Plan the transpose of the last two axes of arrays of `shape` and `dtype`, or with `axes` the permutation
    of their axes that `permute_dims(x, axes)` makes.

    `strides` (in elements) describe a strided input; the default is C-contiguous. `device` is "cpu", "cuda"
    or "cuda:N". With `autotune` (GPU only) every candidate kernel configuration is measured now and the timings
    kept in the tuning cache, so later plans of the same problem use the fastest (for a permutation: the
    planner's plan and the general tiles, plain and packed, on 4 and 8 warps, and where they fit a few more:
    engine.permute.candidates). The plan's
    `execute(x, out)` then runs with no planning, no allocation and no host synchronisation.
    """
    shape = tuple(int(s) for s in shape)
    if axes is not None:
        axes = check_axes(axes, len(shape))
    elif len(shape) < 2:
        raise ValueError(f"shape: need ndim >= 2, shaped (..., M, N); got {shape}")
    if any(s < 0 for s in shape):
        raise ValueError(f"shape: extents must be >= 0, got {shape}")
    name = _dtype_name(dtype)
    itemsize = itemsize_of(name, argument="dtype")
    if strides is None:
        byte_strides = contiguous_strides(shape, itemsize)
    else:
        if len(strides) != len(shape):
            raise ValueError(f"strides: need one per axis of shape {shape}, got {strides}")
        byte_strides = tuple(int(s) * itemsize for s in strides)
    device = _device_name(device)
    if autotune:
        _cached_plan.cache_clear()
        return Plan(shape, name, byte_strides, device, autotune=True, axes=axes)
    return _cached_plan(shape, name, byte_strides, device, axes)


_NUMPY_PLANS: dict[tuple, Plan] = {}
_TORCH_PLANS: dict[tuple, Plan] = {}
_torch: Any = None


def _never() -> bool:
    return False


# Set by cornerturn.torch_ops when it registers cornerturn's torch operators: torch.compiler.is_compiling, so that
# under torch.compile the public functions hand torch an operator (one node, no graph break) instead of their body.
_compiling = _never
_torch_ops: Any = None


def _torch_tensor() -> type | None:
    """torch.Tensor once torch has been imported by anyone (never imported here); cornerturn's torch operators are
    registered then."""
    global _torch
    if _torch is None:
        _torch = sys.modules.get("torch")
        if _torch is None:
            return None
        from . import torch_ops

        torch_ops.register()
    return _torch.Tensor


@functools.cache
def _engine_run_pointers():
    from .engine.runtime import run_pointers

    return run_pointers


def _numpy_short_path(x: np.ndarray, out: np.ndarray | None) -> np.ndarray | None:
    """transpose() for plain NumPy arrays already planned, with the checks done on NumPy's own attributes.

    Returns None where anything is unusual (first call, odd `out`): the general path then runs, and raises
    the proper error where there is one.
    """
    planned = _NUMPY_PLANS.get((x.shape, x.strides, x.dtype))
    if planned is None:
        return None
    if out is None:
        out = np.empty(planned.out_shape, x.dtype)
    elif (out.shape != planned.out_shape or out.dtype != x.dtype or not out.flags.c_contiguous
          or not out.flags.writeable or np.may_share_memory(x, out)):
        return None
    from .cpu.planner import run_numpy

    return out if run_numpy(planned._backend, x, out) else None


def transpose(x: Any, *, out: Any = None) -> Any:
    """Swap the last two axes of `x`: (..., M, N) -> (..., N, M), C-contiguous and bit-exact.

    The result is of `x`'s library and device. With `out` (same library, device and dtype, shape (..., N, M),
    C-contiguous, writeable, not overlapping `x`) the result is written there and `out` is returned.

    torch tensors that require grad go through the operator torch.ops.cornerturn.transpose, whose gradient is the
    transpose of the gradient; under torch.compile every call does (one node in the graph). A NumPy masked array
    comes back masked, its mask transposed alongside. A JAX array being traced (jax.jit, jax.grad) is transposed by
    jnp.swapaxes, which XLA compiles and differentiates.
    """
    if _compiling():
        return _torch_ops.traced_transpose(x, out)
    if type(x) is _torch_tensor() and x.requires_grad and _torch.is_grad_enabled():
        return _torch_ops.autograd_transpose(x, out)
    return _eager(x, out)


def _eager(x: Any, out: Any) -> Any:
    """transpose() without the torch routing: the short paths for arrays already planned, else the general path
    (what cornerturn's torch operators run)."""
    if type(x) is np.ndarray and (out is None or type(out) is np.ndarray):
        done = _numpy_short_path(x, out)
        if done is not None:
            return done
    elif type(x) is _torch_tensor() and x.is_cuda:
        planned = _TORCH_PLANS.get((x.shape, x.stride(), x.dtype, x.device))
        done = planned._torch_cuda(x, out) if planned is not None else None
        if done is not None:
            return done
    return _transpose(x, out)


def _transpose(x: Any, out: Any) -> Any:
    """transpose() past its short paths: every check, then the backend (what cornerturn's torch operators run)."""
    return _move(x, out, None)


def _move(x: Any, out: Any, axes: Any) -> Any:
    """transpose() (`axes` None) or permute_dims() past their routing: every check, then the backend."""
    call = "cornerturn.transpose(x)" if axes is None else "cornerturn.permute_dims(x, axes)"
    if isinstance(x, np.ma.MaskedArray):
        if out is not None:
            also = ", or pass x.data and transpose the mask yourself" if axes is None else ""
            raise TypeError(f"out: x is a NumPy masked array, whose mask out= would drop; call {call} without "
                            f"out{also}")
        return _masked(x, lambda a: _move(a, None, axes))
    if type(x).__module__.startswith("jax") and _is_jax_tracer(x):
        import jax.numpy as jnp

        if out is not None:
            raise TypeError(f"out: JAX arrays are immutable; call {call} without out")
        if axes is not None:
            return jnp.transpose(x, check_axes(axes, x.ndim))
        if x.ndim < 2:
            raise ValueError(f"x: need an array of ndim >= 2, shaped (..., M, N); got shape {tuple(x.shape)}")
        return jnp.swapaxes(x, -1, -2)
    xv = view_of(x, "x")
    if axes is None:
        _check_ndim(xv, "x")
    else:
        axes = check_axes(axes, xv.ndim)
    if out is not None:
        outv = view_of(out, "out")
        _check_out(xv, outv, axes)
    planned = _cached_plan(xv.shape, xv.dtype, xv.strides, xv.device, axes)
    if axes is None and xv.library == "numpy" and type(x) is np.ndarray:  # the short paths serve transpose()
        _NUMPY_PLANS.setdefault((x.shape, x.strides, x.dtype), planned)
    elif axes is None and xv.library == "torch" and xv.is_cuda and type(x) is _torch_tensor():
        _TORCH_PLANS.setdefault((x.shape, x.stride(), x.dtype, x.device), planned)
    if out is None:
        out = empty_like_library(xv, planned.out_shape)
        outv = view_of(out, "out")
    _run(planned._backend, xv.device, xv, outv)
    return finish(xv, out)


def permute_dims(x: Any, axes: Any, *, out: Any = None) -> Any:
    """Permute the axes of `x`: result axis k is x's axis axes[k], C-contiguous and bit-exact (the array API's
    permute_dims; torch's x.permute(axes).contiguous()).

    `axes` is a permutation of range(x.ndim) (negative entries count from the end). The result is of `x`'s
    library and device; with `out` (same library, device and dtype, the permuted shape, C-contiguous, writeable,
    not overlapping `x`) it is written there and `out` is returned. Axes of extent 1 vanish and axes that stay
    neighbours fuse before planning, so many permutations run as the engine's batched transpose; the rest take a
    general tile kernel. torch tensors that require grad, and every call under torch.compile, go through the
    operator torch.ops.cornerturn.permute_dims (its gradient is the inverse permutation of the gradient); a JAX
    array being traced is permuted by jnp.transpose.
    """
    if _compiling():
        return _torch_ops.traced_permute_dims(x, axes, out)
    if type(x) is _torch_tensor() and x.requires_grad and _torch.is_grad_enabled():
        return _torch_ops.autograd_permute_dims(x, axes, out)
    return _permute(x, axes, out)


def _permute(x: Any, axes: Any, out: Any) -> Any:
    """permute_dims() past its torch routing: every check, then the backend."""
    return _move(x, out, axes)


def _masked(x: np.ma.MaskedArray, move) -> np.ma.MaskedArray:
    """A masked array moved by `move` (a transpose or a permutation): its data and its mask (where it has one), its
    fill value kept."""
    data = move(np.asarray(x.data))
    mask = np.ma.nomask if x.mask is np.ma.nomask else move(np.asarray(x.mask))
    return np.ma.MaskedArray(data, mask=mask, fill_value=x.fill_value)


def _is_jax_tracer(x: Any) -> bool:
    import jax

    return isinstance(x, jax.core.Tracer)


def _reshaped(x: Any, library: str, shape: tuple[int, ...]) -> Any:
    """A view of `x` (C-contiguous) with `shape`, in x's library."""
    if library == "torch":
        return x.view(shape)
    return x.reshape(shape)


def transpose_(x: Any) -> Any:
    """Transpose the last two axes of `x` inside its own memory: (..., M, N) -> (..., N, M).

    `x` must be one C-contiguous, writeable buffer. A square matrix is returned as `x` itself, its memory now
    holding the transpose. Otherwise the result is a view of the same memory with shape (..., N, M): NumPy,
    torch, CuPy and Numba cannot change an array's shape in place, so `x` itself keeps its old shape and now
    reads as the transpose's memory in the wrong shape; use the returned array. Non-square matrices take the
    decomposition of Catanzaro, Keller and Garland (cornerturn.ckg) with scratch memory of O(max(M, N))
    elements, or out of place through a scratch buffer of at most 16 MiB (GPU) / 1 MiB (CPU) for small ones.
    JAX arrays are immutable: use `cornerturn.transpose`. A torch tensor that requires grad is refused (the in-place
    transpose keeps no gradient); under torch.compile the call is the operator torch.ops.cornerturn.transpose_.
    """
    if _compiling():
        return _torch_ops.traced_transpose_(x)
    if type(x) is _torch_tensor() and x.requires_grad and _torch.is_grad_enabled():
        leaf = "a leaf tensor that requires grad" if x.is_leaf else "a tensor that requires grad"
        raise RuntimeError(f"x: {leaf} cannot be transposed in place: the in-place transpose keeps no gradient (as "
                           "torch refuses in-place ops on leaves that require grad); use cornerturn.transpose(x)")
    return _transpose_inplace(x)


def _transpose_inplace(x: Any) -> Any:
    """transpose_() past its torch routing: every check, then the backend."""
    xv = view_of(x, "x")
    _check_ndim(xv, "x")
    if xv.library == "jax":
        raise TypeError("x: JAX arrays are immutable and cannot be transposed in place; use cornerturn.transpose, "
                        "which returns a new array")
    if not xv.writeable:
        raise ValueError("x: cannot be written: it is read-only")
    if not xv.is_c_contiguous():
        raise ValueError(f"x: in-place transposition needs one C-contiguous buffer; got strides {xv.strides} "
                         f"(bytes) for shape {xv.shape}")
    *batch, rows, cols = xv.shape
    swapped = _swapped(xv.shape)
    if xv.size == 0 or rows == 1 or cols == 1:
        return _reshaped(x, xv.library, swapped)
    count = math.prod(batch)
    if xv.is_cuda:
        from . import engine

        engine._require()
        from .engine.inplace import run_square
        from .engine.rectangular import run as run_rectangular

        if rows == cols:
            run_square(xv, count, rows)
        else:
            run_rectangular(xv, count, rows, cols)
    else:
        from .cpu.inplace import transpose_squares
        from .cpu.rectangular import transpose_batch

        words = xv.host_words((count, rows, cols), contiguous_strides((count, rows, cols), xv.itemsize))
        if rows == cols:
            transpose_squares(words)
        else:
            transpose_batch(words)
    return x if rows == cols else _reshaped(x, xv.library, swapped)
