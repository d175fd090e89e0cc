"""GPU timing like nvbench: warm-up, L2 flushed before each sample, CUDA events around the work alone."""

from __future__ import annotations

from collections.abc import Callable

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
    import torch

    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        if flush:
            flush_l2(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return Timing(tuple(samples))


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
