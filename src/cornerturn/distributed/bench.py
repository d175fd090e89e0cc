"""`cornerturn bench --distributed` under torchrun: the row-sharded transpose against the all-to-all of the same
bytes alone (the floor) and the plain torch way (local t().contiguous(), all_to_all, permute + reshape)."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

from .exchange import _bytes, _metadata, chosen_method, transpose
from .pieces import output_rows


def plain_torch_way(local, in_rows: list[int], group=None):
    """What a torch user writes: transpose locally, exchange, then interleave the received blocks."""
    import torch
    import torch.distributed as dist

    ranks, me = dist.get_world_size(group), dist.get_rank(group)
    m_me, n = local.shape
    out_rows = output_rows(n, ranks)
    send = local.t().contiguous()
    recv = local.new_empty(out_rows[me] * sum(in_rows))
    dist.all_to_all_single(recv, send.reshape(-1), output_split_sizes=[out_rows[me] * m for m in in_rows],
                           input_split_sizes=[r * m_me for r in out_rows], group=group)
    blocks = torch.split(recv, [out_rows[me] * m for m in in_rows])
    return torch.cat([b.view(out_rows[me], m) for b, m in zip(blocks, in_rows)], dim=1)


def _time(fn: Callable[[], object], repeats: int, cuda: bool) -> list[float]:
    """Seconds per call: barrier, then the call between CUDA events; the slowest rank's time per repeat."""
    import time

    import torch
    import torch.distributed as dist

    fn()
    samples = []
    for _ in range(repeats):
        dist.barrier()
        if cuda:
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            seconds = start.elapsed_time(end) / 1e3
        else:
            t0 = time.perf_counter()
            fn()
            seconds = time.perf_counter() - t0
        worst = torch.tensor([seconds], dtype=torch.float64, device="cuda" if cuda else "cpu")
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        samples.append(float(worst.item()))
    return samples


def run(rows: int, cols: int, dtype: str = "float32", repeats: int = 10, chunks: int | None = None,
        method: str = "auto", copy_streams: str | None = None) -> dict | None:
    """Benchmark on every rank; returns the report on rank 0 (None elsewhere). `copy_streams` sets the direct
    method's `direct.copy_streams` for the run (the same on every rank)."""
    import torch
    import torch.distributed as dist

    from . import direct

    if copy_streams is not None:
        direct.check_copy_streams(copy_streams)
        direct.copy_streams = copy_streams

    cuda = torch.cuda.is_available()
    owned = not dist.is_initialized()
    if owned and cuda:
        # NCCL on a high-priority stream: its blocks get SMs ahead of the local transposes that overlap it
        options = dist.ProcessGroupNCCL.Options()
        options.is_high_priority_stream = os.environ.get("CORNERTURN_NCCL_HIGH_PRIORITY", "1") == "1"
        dist.init_process_group("nccl", pg_options=options)
    elif owned:
        dist.init_process_group("gloo")
    try:
        return _run(rows, cols, dtype, repeats, chunks, method, cuda)
    finally:
        if owned:
            dist.barrier()
            dist.destroy_process_group()


def _run(rows: int, cols: int, dtype: str, repeats: int, chunks: int | None, method: str,
         cuda: bool) -> dict | None:
    import torch
    import torch.distributed as dist

    from . import direct

    if cuda:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    ranks, me = dist.get_world_size(), dist.get_rank()
    device = torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu")
    t = getattr(torch, dtype)
    m_me = output_rows(rows, ranks)[me]
    gen = torch.Generator(device=device).manual_seed(1234 + me)
    size = torch.empty((), dtype=t).element_size()
    bits = torch.randint(0, 256, (m_me, cols * size), generator=gen, device=device, dtype=torch.uint8)
    local = (bits & 1 if t == torch.bool else bits).view(t)  # random bits (NaNs too): compared as bytes
    in_rows = output_rows(rows, ranks)
    ours = transpose(local, chunks=chunks, method=method)
    method = chosen_method(_metadata(local, None, method, chunks), method)
    theirs = plain_torch_way(local, in_rows)
    exact = torch.tensor([int(torch.equal(_bytes(ours), _bytes(theirs)))], device=device)
    dist.all_reduce(exact, op=dist.ReduceOp.MIN)
    del ours, theirs
    n_me = output_rows(cols, ranks)[me]
    send = local.new_empty(m_me * cols)
    recv = local.new_empty(n_me * rows)

    def a2a_alone():
        dist.all_to_all_single(recv, send, output_split_sizes=[n_me * m for m in in_rows],
                               input_split_sizes=[r * m_me for r in output_rows(cols, ranks)])

    times = {"all_to_all alone": _time(a2a_alone, repeats, cuda),
             "plain torch way": _time(lambda: plain_torch_way(local, in_rows), repeats, cuda),
             "cornerturn": _time(lambda: transpose(local, chunks=chunks, method=method), repeats, cuda)}
    if me != 0:
        return None
    total = rows * cols * local.element_size()
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "ranks": ranks, "rows": rows, "cols": cols, "dtype": dtype, "bytes": total, "chunks": chunks, "method": method,
        "copy_streams": direct.copy_streams if method == "direct" else None,
        "device": torch.cuda.get_device_name() if cuda else "cpu", "bit_exact_vs_torch_way": bool(exact.item()),
        "median_ms": {k: v * 1e3 for k, v in med.items()},
        "samples_ms": {k: [x * 1e3 for x in v] for k, v in times.items()},
        "ours_over_all_to_all": med["cornerturn"] / med["all_to_all alone"],
        "speedup_over_torch_way": med["plain torch way"] / med["cornerturn"],
    }
