"""The host side of a benchmark: inputs of random bits, poisoned outputs, exact comparison, host timing."""

from __future__ import annotations

import numpy as np

from ..timing import Timing, time_host_rounds
from .suites import Case

POISON = 0xA5


def numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16" or name.startswith("float8"):
        import ml_dtypes  # optional; raises ImportError if missing

        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


class HostDevice:
    """Arrays and timing for benchmarks on the CPU."""

    name = "cpu"

    def __init__(self, seed: int = 20261122) -> None:
        self.rng = np.random.default_rng(seed)

    def describe(self) -> str:
        from ..info import cpu_name

        return cpu_name()

    def input(self, case: Case) -> np.ndarray:
        raw = self.rng.integers(1, 256, size=case.nbytes, dtype=np.uint8)
        if case.dtype == "bool":
            raw &= 1
        return raw.view(numpy_dtype(case.dtype)).reshape(case.shape)

    def output(self, case: Case) -> np.ndarray:
        out = np.empty(case.out_shape, numpy_dtype(case.dtype))
        out.reshape(-1).view(np.uint8)[...] = POISON
        return out

    @staticmethod
    def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
        return a.shape == b.shape and bool(np.array_equal(a.reshape(-1).view(np.uint8),
                                                          b.reshape(-1).view(np.uint8)))

    @staticmethod
    def as_copy_of(x: np.ndarray, out: np.ndarray) -> bool:
        """Whether `out` holds x's bytes in x's order (the ceiling's check)."""
        return bool(np.array_equal(out.reshape(-1).view(np.uint8), x.reshape(-1).view(np.uint8)))

    def time_rounds(self, fns: dict, repeats: int) -> dict[str, Timing]:
        return time_host_rounds(fns, warmup=1, repeats=repeats)

    def release(self) -> None:
        pass
