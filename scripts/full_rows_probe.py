"""Probe: 8-byte matrices of 100-1,500 rows (16-128 MiB, 100-30,000 columns, half of them batches of 2-64) whose plan
is the vector blocks, moved in tiles of all their rows by 16 or 64 columns, against the planner's plan and torch,
interleaved rounds, median of 5, each bit-exact into a cleared output.

    python3 scripts/full_rows_probe.py SEED CASES OUT.json
"""

import json
import math
import sys
import time

import numpy as np
import torch

import cornerturn
from cornerturn.cpu.vectors import block_side, vector_kernel


def draw(rng: np.random.Generator) -> tuple[int, ...] | None:
    batch = round(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.5 else 1
    rows = int(math.exp(rng.uniform(math.log(100), math.log(1500))))
    cols = int(math.exp(rng.uniform(math.log(100), math.log(30000))))
    if not (16 << 20) <= batch * rows * cols * 8 <= (128 << 20):
        return None
    return (batch, rows, cols) if batch > 1 else (rows, cols)


def measure(shape: tuple[int, ...], rng: np.random.Generator) -> dict:
    *_, rows, cols = shape
    x = rng.integers(0, 2**63, size=math.prod(shape), dtype=np.int64).view(np.uint64).reshape(shape)
    x3 = x if x.ndim == 3 else x[None]
    want = np.ascontiguousarray(np.swapaxes(x3, -1, -2))
    out = np.empty_like(want)
    shaped = out.reshape((*shape[:-2], cols, rows))
    tx, to = torch.from_numpy(x.view(np.int64)), torch.from_numpy(shaped.view(np.int64))
    side = block_side(8)
    all_rows = -(-rows // side) * side
    calls = {"plan": lambda: cornerturn.transpose(x, out=shaped), "torch": lambda: to.copy_(tx.transpose(-1, -2))}
    for band in (16, 64):
        kernel = vector_kernel(8, (all_rows, band), True)
        calls[f"rows x{band}"] = lambda kernel=kernel: kernel(x3, out)
    for name, call in calls.items():
        out.fill(0)
        call()
        assert np.array_equal(out, want), name
    seconds = {name: [] for name in calls}
    for _ in range(5):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - start)
    return {"shape": shape, "plan_name": cornerturn.plan(shape, np.uint64).method,
            **{name: 2 * x.nbytes / sorted(s)[2] / 1e9 for name, s in seconds.items()}}


def main() -> None:
    torch.set_num_threads(2)
    rng = np.random.default_rng(int(sys.argv[1]))
    found = []
    while len(found) < int(sys.argv[2]):
        shape = draw(rng)
        if shape is None or not cornerturn.plan(shape, np.uint64).method.startswith("vectors16-tiles"):
            continue
        found.append(measure(shape, rng))
        print({k: round(v, 1) if isinstance(v, float) else v for k, v in found[-1].items()}, flush=True)
    for name in ("rows x16", "rows x64", "torch"):
        q = [r[name] / r["plan"] for r in found]
        print(f"{name} over the plan: geometric mean {math.exp(sum(map(math.log, q)) / len(q)):.3f}, "
              f"{min(q):.2f}-{max(q):.2f}, behind by 2% or more on {sum(v < 0.98 for v in q)} of {len(q)}")
    with open(sys.argv[3], "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": found}, f, indent=1)


if __name__ == "__main__":
    main()
