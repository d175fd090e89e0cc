"""GPU timing like nvbench: warm-up, L2 flushed before each sample, CUDA events around the work alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..timing import Timing

_FLUSH: dict[int, object] = {}


def flush_l2(device: int) -> None:
    """Overwrite a buffer larger than any L2 cache, so the next sample starts with a cold cache."""
    import torch

    buf = _FLUSH.get(device)
    if buf is None:
        props = torch.cuda.get_device_properties(device)
        size = max(4 * props.L2_cache_size, 64 << 20)
        buf = _FLUSH[device] = torch.empty(size, dtype=torch.uint8, device=f"cuda:{device}")
    buf.fill_(1)


def time_cuda(fn: Callable[[], object], *, device: int = 0, warmup: int = 2, repeats: int = 10,
              flush: bool = True) -> Timing:
    """Median-ready samples, in seconds, of `fn` on the current stream, each between two CUDA events."""
    return time_cuda_rounds({"fn": fn}, device=device, warmup=warmup, repeats=repeats, flush=flush)["fn"]


def time_cuda_rounds(fns: Mapping[str, Callable[[], object]], *, device: int = 0, warmup: int = 2,
                     repeats: int = 10, flush: bool = True) -> dict[str, Timing]:
    """`time_cuda` of several callables in interleaved rounds, one sample of each per round, so that a GPU whose
    speed drifts between moments (clocks, a neighbour's traffic) affects them alike and their ratios hold. Where
    there are several, each sample follows an untimed call of the same callable, so that no method is timed in the
    wake of another (int8 256x256x64x64 by (3,2,1,0) ran at 2,647 GB/s right after torch's permute of it and at
    3,489-3,499 after itself or the copy; H200, 2026-11-25)."""
    import torch

    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            if len(fns) > 1:
                fn()
            if flush:
                flush_l2(device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples[name].append(start.elapsed_time(end) / 1e3)
    return {name: Timing(tuple(v)) for name, v in samples.items()}


def time_wall(fn: Callable[[], object], *, calls: int = 200) -> float:
    """Host wall time per call of `fn`, launched back to back, with one synchronisation at the end."""
    import time

    import torch

    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls
