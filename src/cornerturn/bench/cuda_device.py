"""The GPU side of a benchmark: torch CUDA tensors, exact comparison on the device, CUDA-event timing."""

from __future__ import annotations

from ..engine.timing import time_cuda_rounds, time_wall
from ..timing import Timing
from .suites import Case

POISON = -91  # 0xA5 as int8
WALL_MAX_BYTES = 64 << 20  # per-call wall time is measured for cases up to this size


class CudaDevice:
    name = "cuda"

    def __init__(self, index: int = 0, seed: int = 20261122) -> None:
        import torch

        self.torch = torch
        self.index = index
        self.device = f"cuda:{index}"
        self.gen = torch.Generator(device=self.device).manual_seed(seed)
        self._case: Case | None = None

    def describe(self) -> str:
        return self.torch.cuda.get_device_name(self.index)

    def _dtype(self, name: str):
        return getattr(self.torch, name)

    def input(self, case: Case):
        """Random values, never zeros: normal floats (finite, so that arithmetic peers are comparable),
        random integers over the whole range, random booleans."""
        torch = self.torch
        self._case = case
        dtype = self._dtype(case.dtype)
        if dtype.is_floating_point or dtype.is_complex:
            if dtype.itemsize == 1:  # fp8: random bytes as values
                return torch.randint(0, 120, case.shape, dtype=torch.uint8, device=self.device,
                                     generator=self.gen).view(dtype)
            return torch.randn(case.shape, dtype=dtype, device=self.device, generator=self.gen)
        if dtype == torch.bool:
            return torch.randint(0, 2, case.shape, device=self.device, generator=self.gen).bool()
        info = torch.iinfo(dtype)
        return torch.randint(info.min, info.max, case.shape, dtype=dtype, device=self.device, generator=self.gen)

    def output(self, case: Case):
        out = self.torch.empty(case.out_shape, dtype=self._dtype(case.dtype), device=self.device)
        self._bytes(out).fill_(POISON)
        return out

    def _bytes(self, t):
        torch = self.torch
        if t.is_complex():
            t = torch.view_as_real(t)
        return t.reshape(-1).view(torch.int8)

    def same_bits(self, a, b) -> bool:
        return a.shape == b.shape and bool(self.torch.equal(self._bytes(a), self._bytes(b)))

    def as_copy_of(self, x, out) -> bool:
        return bool(self.torch.equal(self._bytes(x), self._bytes(out)))

    def time_rounds(self, fns: dict, repeats: int) -> dict[str, Timing]:
        return time_cuda_rounds(fns, device=self.index, warmup=2, repeats=repeats)

    def wall(self, fn) -> float | None:
        if self._case is None or self._case.nbytes > WALL_MAX_BYTES:
            return None
        return time_wall(fn, calls=200)

    def release(self) -> None:
        self.torch.cuda.empty_cache()
