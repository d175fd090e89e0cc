"""Running engine plans on real GPU arrays: the caller's stream, the right device, word alignment."""

from __future__ import annotations

import contextlib

from ..arrays import ArrayView

# Arrays of bytes that start past a whole word (slices) keep the words kernel, told the offsets: against the tiles of
# single bytes they used to get it ran ahead or level (within 2%) on all 105 cases of two random seeds and a named
# list, 1.17x to 1.28x in median, up to 1.69x. 2-byte elements keep tiles of 2-byte words: there the words kernel
# was ahead on half the cases and behind on most whose output started inside a word (H100, 2026-11-24,
# docs/engine.md, "Arrays that start past a whole word").


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
    if x.library == "jax":
        x.obj.block_until_ready()  # JAX does not expose its stream: wait for the producer
    device = int(x.device.split(":")[1])
    stream = None if x.library == "torch" else current_stream(x, device)
    run_pointers(plan, x.ptr, out.ptr, device, stream)
    if x.library == "jax":
        import torch

        torch.cuda.synchronize(device)  # JAX will read `out` on a stream we cannot order against


@contextlib.contextmanager
def on_device(device: int):
    """Make `device` torch's current CUDA device for the block, and restore the previous one after."""
    import torch

    previous = torch._C._cuda_getDevice()
    if previous != device:
        torch.cuda.set_device(device)
    try:
        yield
    finally:
        if previous != device:
            torch.cuda.set_device(previous)


def narrowed_for(plan, x_ptr: int, out_ptr: int, device: int):
    """`plan`, or where an address is not aligned to its word: for the words kernel moving bytes (C-contiguous
    output) the same kernel told how far past a whole word x and out start (the note above); otherwise the same
    problem in narrower words (which also divide a strided output's row stride, a multiple of the plan's word, so
    that stride is kept)."""
    if (x_ptr | out_ptr) % plan.word == 0:
        return plan
    from . import choose, choose_offsets, choose_strided_out
    from .configs import words_ok

    if plan.word == 4 and plan.problem.itemsize == 1 and plan.out_row_stride is None and words_ok(plan.problem):
        return choose_offsets(plan.problem, f"cuda:{device}", (x_ptr % 4, out_ptr % 4))

    size = plan.problem.itemsize  # a word that divides the element (a plan of 4-byte words may move bytes)
    narrow = next(w for w in (4, 2, 1) if w < plan.word and size % w == 0 and (x_ptr | out_ptr) % w == 0)
    if plan.out_row_stride is None:
        return choose(plan.problem, f"cuda:{device}", narrow)
    return choose_strided_out(plan.problem, f"cuda:{device}", narrow, plan.out_row_stride)


def run_pointers(plan, x_ptr: int, out_ptr: int, device: int, stream: int | None = None) -> None:
    """Launch `plan` on `device` with raw addresses, on `stream` (torch's current stream if None)."""
    import torch

    plan = narrowed_for(plan, x_ptr, out_ptr, device)
    if torch._C._cuda_getDevice() == device:  # the usual case, without a context manager's cost per call
        _launch_pieces(plan, x_ptr, out_ptr, device, stream)
        return
    with on_device(device):
        _launch_pieces(plan, x_ptr, out_ptr, device, stream)


def _launch_pieces(plan, x_ptr: int, out_ptr: int, device: int, stream: int | None) -> None:
    import torch

    if stream is None:
        stream = torch._C._cuda_getCurrentRawStream(device)
    for x_offset, out_offset, launch in plan.pieces:
        launch.run_pointers(x_ptr + x_offset, out_ptr + out_offset, stream, device)
