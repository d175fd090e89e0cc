"""Who the benchmark compares: the copy of the same bytes (the ceiling), other libraries' transposes, ours.

A peer is data: its name, device, role, the modules it needs, and a factory (x, out) -> a call that writes the
transpose of x (for the ceiling: a copy of x's bytes) into out.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .suites import Case

Role = str  # "ceiling" | "peer" | "ours"


@dataclass(frozen=True)
class Peer:
    name: str
    device: str  # "cpu" or "cuda"
    role: Role
    make: Callable[[Any, Any], Callable[[], object]]
    requires: tuple[str, ...] = ()
    supports: Callable[[Case], bool] = field(default=lambda case: True)
    permute: Callable[[Any, Any, tuple[int, ...]], Callable[[], object]] | None = None  # for cases with axes

    def factory(self, case: Case, x: Any, out: Any) -> Callable[[], object]:
        """The call that runs `case` from x into out."""
        if case.axes is None or self.role == "ceiling":
            return self.make(x, out)
        assert self.permute is not None
        return self.permute(x, out, case.axes)

    def runs(self, case: Case) -> bool:
        return (case.axes is None or self.role == "ceiling" or self.permute is not None) and self.supports(case)

    def missing(self) -> str | None:
        """Why the peer cannot run here, or None."""
        for module in self.requires:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed"
        return None


def _numpy_copy(x, out):
    src, dst = x.reshape(-1), out.reshape(-1)
    return lambda: np.copyto(dst, src)


def _numpy_transpose(x, out):
    src = x.swapaxes(-1, -2)
    return lambda: np.copyto(out, src)


def _torch_cpu_transpose(x, out):
    import torch

    src, dst = torch.from_numpy(x.view(_same_size_int(x))), torch.from_numpy(out.view(_same_size_int(out)))
    src = src.transpose(-1, -2)
    return lambda: dst.copy_(src)


def _same_size_int(a: np.ndarray):
    return {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}[a.dtype.itemsize]


def _cornerturn(x, out):
    import cornerturn

    return lambda: cornerturn.transpose(x, out=out)


def _numpy_permute(x, out, axes):
    src = x.transpose(axes)
    return lambda: np.copyto(out, src)


def _torch_cpu_permute(x, out, axes):
    import torch

    src, dst = torch.from_numpy(x.view(_same_size_int(x))), torch.from_numpy(out.view(_same_size_int(out)))
    src = src.permute(axes)
    return lambda: dst.copy_(src)


def _cornerturn_permute(x, out, axes):
    import cornerturn

    return lambda: cornerturn.permute_dims(x, axes, out=out)


HOST_PEERS: tuple[Peer, ...] = (
    Peer("copy", "cpu", "ceiling", _numpy_copy),
    Peer("numpy", "cpu", "peer", _numpy_transpose, permute=_numpy_permute),
    Peer("torch", "cpu", "peer", _torch_cpu_transpose, requires=("torch",), permute=_torch_cpu_permute),
    Peer("cornerturn", "cpu", "ours", _cornerturn, permute=_cornerturn_permute),
)
