"""How fast one GPU's data reaches another's memory, each way of moving it, under torchrun on one host:
    torchrun --standalone --nproc-per-node 2 scripts/link_probe.py OUT.json
Every rank moves BYTES to the next rank at the same time (both directions busy), timed with CUDA events,
median of REPEATS, slowest rank. Ways: the NCCL all-to-all; SM stores (torch copy_ into the peer's symmetric
memory); the copy engine (cudaMemcpyAsync into it); cornerturn's transpose kernel storing into it; and the same
kernel storing locally, for scale."""

from __future__ import annotations

import json
import os
import statistics
import sys

import torch
import torch.distributed as dist

import cornerturn
import cornerturn.distributed as cd
from cornerturn.distributed import direct
from cornerturn.distributed.exchange import _metadata

BYTES = int(os.environ.get("BYTES", 1 << 30))
REPEATS = int(os.environ.get("REPEATS", 10))


def timed(fn) -> float:
    fn()
    samples = []
    for _ in range(REPEATS):
        dist.barrier()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        worst = torch.tensor([a.elapsed_time(b)], device="cuda", dtype=torch.float64)
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        samples.append(float(worst.item()))
    return statistics.median(samples)


def main() -> None:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    me, ranks = dist.get_rank(), dist.get_world_size()
    peer = (me + 1) % ranks
    ws = direct.workspace(None, BYTES, torch.device("cuda", torch.cuda.current_device()))
    there = ws.peers[peer][:BYTES]
    src = torch.randint(0, 255, (BYTES,), dtype=torch.uint8, device="cuda")
    side = int((BYTES // 4) ** 0.5)
    mat = src[:side * side * 4].view(torch.float32).view(side, side)
    here = torch.empty_like(src)
    wide = torch.empty((side, 2 * side), dtype=torch.float32, device="cuda")
    rows = torch.randn((side, side * ranks), device="cuda")  # this rank's rows of a square matrix
    send = torch.empty(BYTES * ranks, dtype=torch.uint8, device="cuda")  # BYTES to each rank
    recv = torch.empty_like(send)
    import cupy

    stream = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    ms = {
        "nccl all_to_all, BYTES to each rank": timed(
            lambda: dist.all_to_all_single(recv, send)),
        "SM copy_ into the peer": timed(lambda: there.copy_(src)),
        "copy engine into the peer": timed(lambda: cupy.cuda.runtime.memcpyAsync(
            there.data_ptr(), src.data_ptr(), BYTES, 4, stream())),
        "transpose kernel into the peer": timed(lambda: cornerturn.transpose(
            mat, out=there[:side * side * 4].view(torch.float32).view(side, side))),
        "transpose kernel locally": timed(lambda: cornerturn.transpose(
            mat, out=here[:side * side * 4].view(torch.float32).view(side, side))),
        "SM copy_ locally": timed(lambda: here.copy_(src)),
        "copy_ into half the columns": timed(lambda: wide[:, side:].copy_(mat)),
        "copy engine into half the columns": timed(lambda: cupy.cuda.runtime.memcpy2DAsync(
            wide[:, side:].data_ptr(), wide.stride(0) * 4, mat.data_ptr(), side * 4, side * 4, side, 4, stream())),
        "symmetric-memory barrier": timed(lambda: ws.handle.barrier(channel=0)),
        "two metadata all-gathers": timed(lambda: (_metadata(rows, None), _metadata(rows, None))),
        "two metadata all-gathers, no free-memory query": timed(lambda: (_metadata(rows, None, "all_to_all"),
                                                                         _metadata(rows, None, "all_to_all"))),
    }
    for chunks in (1, 8):
        ms[f"direct transpose of {side * ranks}x{side * ranks}, {chunks} pieces"] = timed(
            lambda c=chunks: cd.transpose(rows, chunks=c, method="direct"))
    direct._memcpy_2d = lambda: None  # the same through torch's copy kernel instead of the copy engine
    ms[f"direct transpose of {side * ranks}x{side * ranks}, 8 pieces, SM copies"] = timed(
        lambda: cd.transpose(rows, chunks=8, method="direct"))
    ws.handle.barrier(channel=0)
    torch.cuda.synchronize()
    if me == 0:
        import time

        t0 = time.perf_counter()
        for _ in range(100):
            torch.cuda.mem_get_info()
        host_us = {"torch.cuda.mem_get_info": (time.perf_counter() - t0) * 1e4}
        report = {"device": torch.cuda.get_device_name(), "ranks": ranks, "bytes": BYTES, "median_ms": ms,
                  "host_us_per_call": host_us,
                  "GB_per_s_one_way": {k: BYTES / v / 1e6 for k, v in ms.items()}}
        print(json.dumps(report, indent=1))
        with open(sys.argv[1], "w") as f:
            json.dump(report, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
