"""Timings as data (median, min, max) and host-side timing: warm-up, then repeats. GPU timing uses CUDA events
(engine.timing)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
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
    return time_host_rounds({"fn": fn}, warmup=warmup, repeats=repeats, min_seconds=min_seconds)["fn"]


def time_host_rounds(fns: Mapping[str, Callable[[], object]], *, warmup: int = 1, repeats: int = 5,
                     min_seconds: float = 2e-3) -> dict[str, Timing]:
    """Time several callables in interleaved rounds, one sample of each per round, so that a machine whose speed
    drifts (a shared host) slows them alike and their ratios hold; batched as `time_host` does."""
    batches = {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        start = time.perf_counter()
        fn()
        batches[name] = max(1, int(min_seconds / max(time.perf_counter() - start, 1e-9)))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            batch = batches[name]
            start = time.perf_counter()
            for _ in range(batch):
                fn()
            samples[name].append((time.perf_counter() - start) / batch)
    return {name: Timing(tuple(v)) for name, v in samples.items()}
