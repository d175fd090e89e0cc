"""GPU peers for `cornerturn bench --device cuda`: the device copy (ceiling), torch, CuPy, cuBLAS geam, a plain
Triton tile kernel, ours.

Inputs and outputs are torch CUDA tensors; CuPy and cuBLAS see the same memory through DLPack and pointers.
"""

from __future__ import annotations

import math

import numpy as np

from .peers import Peer
from .suites import Case


def _copy(x, out):
    src, dst = x.reshape(-1), out.view(-1)
    return lambda: dst.copy_(src)


def _torch(x, out):
    src = x.transpose(-1, -2)
    return lambda: out.copy_(src)


def _cupy(x, out):
    import cupy

    xc, oc = cupy.from_dlpack(x), cupy.from_dlpack(out)
    src = xc.swapaxes(-1, -2)
    return lambda: cupy.copyto(oc, src)


_GEAM = {"float32": "sgeam", "float64": "dgeam", "complex64": "cgeam", "complex128": "zgeam"}


def _geam(x, out):
    """cuBLAS geam as a transpose: C (M x N, column-major) = 1 * A^T + 0 * C, A the row-major input."""
    from cupy.cuda import cublas, device

    name = str(x.dtype).removeprefix("torch.")
    fn = getattr(cublas, _GEAM[name])
    handle = device.get_cublas_handle()
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    one, zero = np.ones(1, dtype=name), np.zeros(1, dtype=name)
    rows, cols = x.shape
    a, c = x.data_ptr(), out.data_ptr()
    return lambda: fn(handle, cublas.CUBLAS_OP_T, cublas.CUBLAS_OP_N, rows, cols, one.ctypes.data, a, cols,
                      zero.ctypes.data, c, rows, c, rows)


def _ours(x, out, axes=None):
    """A plan of the transpose, or with `axes` of that permutation, executed."""
    import cornerturn

    plan = cornerturn.plan(tuple(x.shape), x.dtype, device=f"cuda:{x.device.index or 0}", axes=axes)
    return lambda: plan.execute(x, out)


def _torch_permute(x, out, axes):
    src = x.permute(axes)
    return lambda: out.copy_(src)


def _cupy_permute(x, out, axes):
    import cupy

    xc, oc = cupy.from_dlpack(x), cupy.from_dlpack(out)
    src = xc.transpose(axes)
    return lambda: cupy.copyto(oc, src)


def cutensor_missing() -> str | None:
    """Why cuTENSOR's permutation cannot run through CuPy here, or None."""
    try:
        from cupy_backends.cuda.libs import cutensor as lib
        from cupyx import cutensor  # noqa: F401

        lib.get_version()
    except Exception as exc:  # ImportError, or the library's own error where libcutensor is absent
        return f"not available: cuTENSOR cannot be loaded through CuPy ({type(exc).__name__}: {exc})"[:200]
    return None


def _cutensor_permute(x, out, axes):
    """cuTENSOR's permutation as an elementwise C = 1 * permute(A) + 0 * C, through CuPy."""
    import cupy
    from cupyx import cutensor

    xc, oc = cupy.from_dlpack(x), cupy.from_dlpack(out)
    modes_x = "".join(chr(ord("a") + k) for k in range(x.dim()))
    modes_out = "".join(modes_x[a] for a in axes)
    return lambda: cutensor.elementwise_binary(1, xc, modes_x, 0, oc, modes_out, out=oc)


def _cupy_supports(case: Case) -> bool:
    return case.dtype not in ("bfloat16",) and not case.dtype.startswith("float8")


def _geam_supports(case: Case) -> bool:
    return case.dtype in _GEAM and len(case.shape) == 2


def _plain_tile(x, out):
    from . import plain_tile

    return plain_tile.make(x, out)


def _plain_tile_supports(case: Case) -> bool:
    from . import plain_tile

    return plain_tile.supports(case.itemsize) and math.prod(case.shape[:-2]) < 65536  # the grid's y extent


class _CutensorPeer(Peer):
    def missing(self) -> str | None:
        return super().missing() or cutensor_missing()


CUDA_PEERS: tuple[Peer, ...] = (
    Peer("copy", "cuda", "ceiling", _copy, requires=("torch",)),
    Peer("torch", "cuda", "peer", _torch, requires=("torch",), permute=_torch_permute),
    Peer("cupy", "cuda", "peer", _cupy, requires=("cupy",), supports=_cupy_supports, permute=_cupy_permute),
    _CutensorPeer("cutensor", "cuda", "peer", _cupy, requires=("cupy",),
                  supports=lambda case: case.axes is not None and _cupy_supports(case), permute=_cutensor_permute),
    Peer("geam", "cuda", "peer", _geam, requires=("cupy",), supports=_geam_supports),
    Peer("triton-tile", "cuda", "peer", _plain_tile, requires=("triton", "torch"), supports=_plain_tile_supports),
    Peer("cornerturn", "cuda", "ours", _ours, requires=("triton", "torch"), permute=_ours),
)
