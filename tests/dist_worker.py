"""Run under torchrun by tests/test_distributed.py: the row-sharded transpose on Gloo, checked against the
transpose of the whole matrix; each rank writes what it saw to ARGV[1].RANK.json."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist

import cornerturn.distributed as cd
from cornerturn.distributed import direct

CASES = [  # (rows, cols, dtype, how the rows are split)
    (37, 29, torch.float32, "uneven"),
    (64, 33, torch.bfloat16, "even"),
    (50, 7, torch.int8, "one-empty"),
    (13, 40, torch.complex128, "uneven"),
    (9, 5, torch.bool, "even"),
    (300, 257, torch.float64, "uneven"),
]


def splits(rows: int, ranks: int, how: str) -> list[int]:
    if how == "even":
        return cd.output_rows(rows, ranks)
    if how == "one-empty":
        return [0] + cd.output_rows(rows, ranks - 1)
    cuts = sorted(np.random.default_rng(rows).integers(0, rows + 1, size=ranks - 1).tolist())
    return [b - a for a, b in zip([0, *cuts], [*cuts, rows])]


def whole(rows: int, cols: int, dtype: torch.dtype) -> torch.Tensor:
    itemsize = torch.empty((), dtype=dtype).element_size()
    bits = np.random.default_rng(rows * cols).integers(1, 256, size=rows * cols * itemsize, dtype=np.uint8)
    if dtype == torch.bool:
        bits &= 1
    return torch.from_numpy(bits).view(dtype).reshape(rows, cols)


def as_bytes(t: torch.Tensor) -> torch.Tensor:
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.contiguous().reshape(-1).view(torch.uint8)


def main() -> None:
    on_gpus = os.environ.get("CORNERTURN_DIST_DEVICE") == "cuda"  # the GPU script runs this with NCCL
    if on_gpus:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl" if on_gpus else "gloo")
    device = torch.device("cuda", torch.cuda.current_device()) if on_gpus else torch.device("cpu")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    seen = {"ranks": ranks, "cases": []}
    methods = ["all_to_all", "direct", "direct per_peer"] if on_gpus else ["auto"]  # Gloo takes the all-to-all
    runs = [(c, m) for m in methods for c in CASES]
    if on_gpus:  # once more after the workspaces were freed: a new one is allocated
        runs.append((CASES[-1], "release, then direct"))
    for (rows, cols, dtype, how), label in runs:
        if label.startswith("release"):
            seen["freed"] = cd.release()
        method = "direct" if "direct" in label else label
        direct.copy_streams = "per_peer" if label.endswith("per_peer") else "one"  # copies one peer at a time
        g = whole(rows, cols, dtype)
        sizes = splits(rows, ranks, how)
        start = sum(sizes[:rank])
        part = cd.transpose(g[start:start + sizes[rank]].clone().to(device), chunks=1 + (rows % 3), method=method)
        parts = [None] * ranks
        dist.all_gather_object(parts, part.cpu())
        got = torch.cat(parts, dim=0)
        want = g.t().contiguous()
        seen["cases"].append({"case": f"{rows}x{cols} {dtype} {how} {sizes} {label}" + (
                                  " after release" if "freed" in seen else ""),
                              "shape_ok": tuple(got.shape) == (cols, rows),
                              "rows_ok": [p.shape[0] for p in parts] == cd.output_rows(cols, ranks),
                              "exact": got.shape == want.shape and bool(torch.equal(as_bytes(got), as_bytes(want)))})
    errors = {}
    for name, local, options in [("columns", torch.zeros(3, 5 + rank), {}),
                                 ("dtype", torch.zeros(3, 5, dtype=torch.float32 if rank else torch.float64), {}),
                                 ("ndim", torch.zeros(3, 5) if rank else torch.zeros(3, 5, 2), {}),
                                 ("chunks", torch.zeros(3, 5), {"chunks": 1 + rank}),
                                 ("method", torch.zeros(3, 5), {"method": "direct" if rank else "sideways"})
                                 ] + ([] if on_gpus else [("direct", torch.zeros(3, 5), {"method": "direct"})]):
        try:
            cd.transpose(local.to(device), **options)
            errors[name] = None
        except ValueError as exc:
            errors[name] = str(exc)
    seen["errors"] = errors
    with open(f"{sys.argv[1]}.{rank}.json", "w") as f:
        json.dump(seen, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
