"""Timings as data (median, min, max) and host-side timing: warm-up, then repeats. GPU timing uses CUDA events
(engine.timing)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)

    def as_dict(self) -> dict:
        return {"median_s": self.median, "min_s": self.min, "max_s": self.max, "repeats": len(self.seconds)}


def time_host(fn: Callable[[], object], *, warmup: int = 1, repeats: int = 5,
              min_seconds: float = 2e-3) -> Timing:
    """Time `fn` with the host clock. Calls shorter than `min_seconds` are batched and averaged per sample,
    so that small matrices are timed over many calls rather than at the clock's resolution."""
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    batch = max(1, int(min_seconds / max(once, 1e-9)))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - start) / batch)
    return Timing(tuple(samples))
