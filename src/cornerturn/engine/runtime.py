"""Running engine plans on real GPU arrays: the caller's stream, the right device, word alignment."""

from __future__ import annotations

from ..arrays import ArrayView


def current_stream(view: ArrayView, device: int) -> int:
    """The stream the caller's library is using now, as a raw handle."""
    if view.library == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    if view.library == "numba":
        stream = getattr(view.obj, "stream", 0)
        return int(stream.handle.value) if hasattr(stream, "handle") and stream.handle else 0
    import torch

    return torch._C._cuda_getCurrentRawStream(device)


def run_views(plan, x: ArrayView, out: ArrayView) -> None:
    import torch

    from . import choose

    device = int(x.device.split(":")[1])
    if (x.ptr | out.ptr) % plan.word:
        # an address not aligned to the plan's word: the same problem in narrower words
        narrow = next(w for w in (4, 2, 1) if w < plan.word and (x.ptr | out.ptr) % w == 0)
        plan = choose(plan.problem, x.device, narrow)
    if x.library == "jax":
        x.obj.block_until_ready()  # JAX does not expose its stream: wait for the producer
    switch = torch.cuda.current_device() != device
    if switch:
        previous = torch.cuda.current_device()
        torch.cuda.set_device(device)
    try:
        stream = current_stream(x, device)
        for x_offset, out_offset, launch in plan.pieces:
            launch.run_pointers(x.ptr + x_offset, out.ptr + out_offset, stream, device)
        if x.library == "jax":
            torch.cuda.synchronize(device)  # JAX will read `out` on a stream we cannot order against
    finally:
        if switch:
            torch.cuda.set_device(previous)
