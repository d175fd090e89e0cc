"""Benchmark suites: named lists of cases (shape and dtype of the input to transpose)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..dtypes import itemsize_of


@dataclass(frozen=True)
class Case:
    shape: tuple[int, ...]
    dtype: str

    @property
    def name(self) -> str:
        *batch, rows, cols = self.shape
        matrix = f"{rows}x{cols}"
        return f"{self.dtype} {batch[0]} x ({matrix})" if batch else f"{self.dtype} {matrix}"

    @property
    def itemsize(self) -> int:
        return itemsize_of(self.dtype)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.itemsize

    @property
    def bytes_moved(self) -> int:
        """Bytes read plus bytes written."""
        return 2 * self.nbytes


def _cases(*specs: tuple[str, tuple[int, ...]]) -> tuple[Case, ...]:
    return tuple(Case(shape, dtype) for dtype, shape in specs)


SUITES: dict[str, tuple[Case, ...]] = {
    # a few seconds anywhere: the CLI tests and smoke runs
    "tiny": _cases(("float32", (64, 64)), ("int8", (300, 200)), ("float64", (3, 40, 50))),
    # the CPU engine's targets: 10x NumPy on fp32 8192^2 and int8 16384^2, half the copy for 4- and 8-byte elements
    "cpu": _cases(
        ("float32", (8192, 8192)), ("int8", (16384, 16384)), ("float64", (8192, 8192)),
        ("float16", (8192, 8192)), ("complex128", (4096, 4096)), ("float32", (4097, 4095)),
        ("float32", (4096, 64, 128)), ("float32", (512, 512, 64)),
    ),
    # small matrices: per-call time matters more than bandwidth
    "small": _cases(*[("float32", (n, n)) for n in (8, 16, 32, 64, 128, 256, 512, 1024)]),
    # the GPU engine's targets: >= 256 MiB for every element size, and awkward shapes; then large odd sides,
    # where rows are not whole 16-byte runs
    "cuda": _cases(
        ("float32", (16384, 16384)), ("float64", (8192, 8192)), ("float16", (16384, 16384)),
        ("bfloat16", (16384, 16384)), ("int8", (32768, 32768)), ("complex64", (8192, 8192)),
        ("complex128", (8192, 8192)), ("float32", (4097, 4095)), ("float32", (16777216, 8)),
        ("float32", (8, 16777216)), ("float32", (2097152, 96)), ("float16", (512, 512, 512)),
        ("float32", (4096, 64, 128)), ("float32", (16383, 16385)), ("float16", (16383, 16385)),
        ("int8", (16383, 16385)),
    ),
    "cuda-small": _cases(*[("float32", (n, n)) for n in (64, 256, 1024, 4096)]),
}


def suite(name: str) -> tuple[Case, ...]:
    if name not in SUITES:
        raise ValueError(f"suite: unknown {name!r}; choose one of {', '.join(SUITES)}")
    return SUITES[name]
