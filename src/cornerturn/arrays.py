"""Interop: any caller's array -> one internal view (pointer, shape, byte strides, dtype, device).

NumPy arrays and CPU torch tensors (and JAX CPU arrays) live on the host; CuPy arrays, CUDA torch tensors,
JAX GPU arrays and Numba device arrays live on a CUDA device. No GPU library is imported here unless the
caller's object already comes from it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .dtypes import canonical_name, host_word_dtype, itemsize_of, numpy_name

LIBRARIES = ("numpy", "torch", "cupy", "jax", "numba")


class ArrayView(NamedTuple):
    """What cornerturn needs to know of an array, whatever library made it (a tuple: cheap to make)."""

    obj: Any
    library: str
    device: str  # "cpu" or "cuda:N"
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in bytes, may be negative
    dtype: str  # canonical name, e.g. "float32"
    itemsize: int
    ptr: int
    writeable: bool

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def is_c_contiguous(self) -> bool:
        if self.size == 0:
            return True
        expected = self.itemsize
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    def byte_extent(self) -> tuple[int, int]:
        """The half-open range of addresses [lo, hi) that the array's elements occupy."""
        if self.size == 0:
            return (self.ptr, self.ptr)
        lo = hi = self.ptr
        for extent, stride in zip(self.shape, self.strides):
            if stride < 0:
                lo += stride * (extent - 1)
            else:
                hi += stride * (extent - 1)
        return (lo, hi + self.itemsize)

    def overlaps(self, other: ArrayView) -> bool:
        """Whether the two arrays' address ranges intersect on the same device (a conservative test)."""
        if self.device != other.device or self.size == 0 or other.size == 0:
            return False
        a0, a1 = self.byte_extent()
        b0, b1 = other.byte_extent()
        return a0 < b1 and b0 < a1

    def host_words(self, shape: tuple[int, ...] | None = None, strides: tuple[int, ...] | None = None,
                   offset: int = 0, word_bytes: int | None = None) -> np.ndarray:
        """A NumPy view of this host array's memory as unsigned words of the element size (or `word_bytes`).

        `shape`/`strides` (bytes) reinterpret the same memory, e.g. as the canonical problem's 3-D view.
        The view keeps the original object alive.
        """
        if self.is_cuda:
            raise ValueError("host_words() is for host arrays")
        word = host_word_dtype(word_bytes or self.itemsize)
        shape = self.shape if shape is None else shape
        strides = self.strides if strides is None else strides
        if (self.library == "numpy" and offset == 0 and word.itemsize == self.itemsize
                and math.prod(shape) == self.size):
            # fast path: a view of the same element size, reshaped in place (never a copy)
            words = self.obj.view(word)
            try:
                words.shape = shape
            except (AttributeError, ValueError):  # would need a copy, or a subclass refuses the shape
                pass
            else:
                if words.strides == tuple(strides):
                    return words
        return np.asarray(_Interface(self.obj, self.ptr + offset, shape, strides, word.str,
                                     not self.writeable))


class _Interface:
    """A minimal object with __array_interface__ that keeps its owner alive."""

    def __init__(self, owner: Any, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 typestr: str, readonly: bool) -> None:
        self._owner = owner
        self.__array_interface__ = {
            "version": 3,
            "data": (ptr, readonly),
            "shape": tuple(shape),
            "strides": tuple(strides),
            "typestr": typestr,
        }


def byte_range(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, int]:
    """Byte offsets [lo, hi) that an array of `shape` and byte `strides` covers, relative to its first element."""
    lo = hi = 0
    for extent, stride in zip(shape, strides):
        if extent == 0:
            return (0, 0)
        if stride < 0:
            lo += stride * (extent - 1)
        else:
            hi += stride * (extent - 1)
    return (lo, hi + itemsize)


def contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Byte strides of a C-contiguous array of `shape`."""
    strides, acc = [], itemsize
    for extent in reversed(shape):
        strides.append(acc)
        acc *= extent
    return tuple(reversed(strides))


def library_of(x: Any) -> str | None:
    module = type(x).__module__.split(".")[0]
    if module == "jaxlib":
        return "jax"
    if module == "numba_cuda":
        return "numba"
    if module in LIBRARIES:
        return module
    return None


def view_of(x: Any, argument: str = "x") -> ArrayView:
    """The internal view of `x`, or a TypeError naming `argument` and what was expected."""
    library = library_of(x)
    maker = _VIEW_MAKERS.get(library or "")
    if maker is None or (library == "numpy" and not isinstance(x, np.ndarray)):
        raise TypeError(
            f"{argument}: expected an array of NumPy, PyTorch, CuPy, JAX or Numba (device array), "
            f"got {type(x).__module__}.{type(x).__qualname__}"
        )
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{argument}: a NumPy masked array: only cornerturn.transpose(x) without out keeps its mask "
                        "(transposed alongside); pass x.data and the mask separately here")
    return maker(x, argument)


_NUMPY_DTYPES: dict[np.dtype, tuple[str, int]] = {}


def _numpy_dtype(dtype: np.dtype, argument: str) -> tuple[str, int]:
    known = _NUMPY_DTYPES.get(dtype)
    if known is None:
        try:
            name = numpy_name(dtype)
        except TypeError as exc:
            raise TypeError(f"{argument}: {exc}") from None
        known = _NUMPY_DTYPES[dtype] = (name, dtype.itemsize)
    return known


def _numpy_view(x: np.ndarray, argument: str) -> ArrayView:
    name, itemsize = _numpy_dtype(x.dtype, argument)
    return ArrayView(x, "numpy", "cpu", x.shape, x.strides, name, itemsize, x.__array_interface__["data"][0],
                     x.flags.writeable)


_TORCH_LAYOUTS = "dense, strided tensors on cpu or cuda"


def _torch_view(x: Any, argument: str) -> ArrayView:
    if x.layout is not _torch_strided():
        raise TypeError(f"{argument}: torch tensors of layout {x.layout} are not supported ({_TORCH_LAYOUTS})")
    if x.is_nested or x.is_quantized:
        kind = "nested" if x.is_nested else f"quantized ({x.dtype})"
        raise TypeError(f"{argument}: {kind} torch tensors are not supported ({_TORCH_LAYOUTS})")
    if x.is_conj() or x.is_neg():
        # a lazy conjugate/negative view: its memory does not hold the values it shows
        x = x.resolve_conj().resolve_neg()
    name = canonical_name(str(x.dtype))
    itemsize = itemsize_of(name, argument=argument)
    if x.device.type == "cuda":
        device = f"cuda:{x.device.index if x.device.index is not None else 0}"
    elif x.device.type == "cpu":
        device = "cpu"
    else:
        raise TypeError(f"{argument}: torch tensors on {x.device.type!r} are not supported (cpu or cuda)")
    try:
        ptr = x.data_ptr()
    except RuntimeError as exc:  # fake, functional or batched (vmap) tensors: no storage of their own
        raise TypeError(f"{argument}: a torch tensor without storage of its own ({type(x).__name__}: "
                        f"{str(exc).splitlines()[0]}); cornerturn's torch operators (torch.ops.cornerturn) take "
                        "those under torch.compile") from None
    return ArrayView(x, "torch", device, tuple(x.shape), tuple(s * itemsize for s in x.stride()), name,
                     itemsize, ptr, True)


def _torch_strided():
    import torch

    return torch.strided


def _cuda_interface_view(x: Any, argument: str, library: str, device_index: int) -> ArrayView:
    iface = x.__cuda_array_interface__
    dtype = np.dtype(iface["typestr"]) if "descr" not in iface or len(iface["descr"]) == 1 else None
    name = canonical_name(dtype.name if dtype is not None else str(getattr(x, "dtype", "?")))
    itemsize = itemsize_of(name, argument=argument)
    shape = tuple(iface["shape"])
    strides = iface.get("strides") or contiguous_strides(shape, itemsize)
    ptr, readonly = iface["data"]
    return ArrayView(x, library, f"cuda:{device_index}", shape, tuple(strides), name, itemsize,
                     ptr, not readonly)


def _cupy_view(x: Any, argument: str) -> ArrayView:
    return _cuda_interface_view(x, argument, "cupy", x.device.id)


def _numba_view(x: Any, argument: str) -> ArrayView:
    from numba import cuda

    return _cuda_interface_view(x, argument, "numba", cuda.get_current_device().id)


def _jax_view(x: Any, argument: str) -> ArrayView:
    devices = list(x.devices())
    if len(devices) != 1:
        raise TypeError(f"{argument}: a JAX array sharded over {len(devices)} devices; pass one shard")
    device = devices[0]
    if device.platform == "cpu":
        host = np.asarray(x)
        view = _numpy_view(host, argument)
        return ArrayView(x, "jax", "cpu", view.shape, view.strides, view.dtype, view.itemsize, view.ptr,
                         False)
    if device.platform != "gpu":
        raise TypeError(f"{argument}: JAX arrays on {device.platform!r} are not supported (cpu or gpu)")
    name = canonical_name(str(x.dtype))
    itemsize = itemsize_of(name, argument=argument)
    return ArrayView(x, "jax", f"cuda:{device.id}", tuple(x.shape), contiguous_strides(x.shape, itemsize), name,
                     itemsize, x.unsafe_buffer_pointer(), False)


_VIEW_MAKERS = {
    "numpy": _numpy_view,
    "torch": _torch_view,
    "cupy": _cupy_view,
    "jax": _jax_view,
    "numba": _numba_view,
}


def empty_like_library(view: ArrayView, shape: tuple[int, ...]) -> Any:
    """A new C-contiguous array of `shape`, of the same library, device and dtype as `view`'s array.

    JAX arrays are immutable: for those the new array is a NumPy buffer (host) or a torch tensor (GPU) that
    `finish` hands to JAX after the kernel has filled it.
    """
    obj = view.obj
    if view.library == "numpy" or (view.library == "jax" and view.device == "cpu"):
        return np.empty(shape, dtype=np.dtype(obj.dtype))
    if view.library == "torch":
        import torch

        return torch.empty(shape, dtype=obj.dtype, device=obj.device)
    index = int(view.device.split(":")[1])
    if view.library == "cupy":
        import cupy

        with cupy.cuda.Device(index):
            return cupy.empty(shape, dtype=obj.dtype)
    if view.library == "numba":
        from numba import cuda

        return cuda.device_array(shape, dtype=obj.dtype, stream=getattr(obj, "stream", 0))
    if view.library == "jax":
        import torch

        from .dtypes import canonical_name

        return torch.empty(shape, dtype=getattr(torch, canonical_name(str(obj.dtype))), device=f"cuda:{index}")
    raise TypeError(f"cannot allocate a {view.library} array")


def finish(view: ArrayView, result: Any) -> Any:
    """Hand a result buffer back as the caller's library's array type."""
    if view.library == "jax" and not type(result).__module__.startswith(("jax", "jaxlib")):
        import jax.dlpack
        import jax.numpy as jnp

        if isinstance(result, np.ndarray):
            return jnp.asarray(result)
        return jax.dlpack.from_dlpack(result)
    return result
