"""Probe (CPU): a loop in the input's order (each thread takes input rows in turn and writes them down the output's
columns) against the plan and torch, on batches of 8- and 16-byte matrices of a few hundred rows and columns drawn
from a seed; every method checked bit-exact, all timed in interleaved rounds with np.copyto of the same bytes.

    python3 scripts/input_order_probe.py SEED CASES OUT.json
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numba
import numpy as np

import cornerturn
from cornerturn.bench.peers import _torch_cpu_transpose
from cornerturn.timing import time_host_rounds


@numba.njit(parallel=True, cache=False)
def input_order(x, out):
    """out[b, j, i] = x[b, i, j], input rows in order, prange over matrices x rows."""
    batch, rows, cols = x.shape
    for t in numba.prange(batch * rows):
        b = t // rows
        i = t - b * rows
        for j in range(cols):
            out[b, j, i] = x[b, i, j]


def draw(seed: int, count: int) -> list[tuple[int, int, int, str]]:
    """(batch, rows, cols, dtype): rows 150-2,000 and columns 150-1,000 log-uniform, 8- or 16-byte elements, batches
    of 16-128 MiB."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        dtype = str(rng.choice(["int64", "float64", "complex128"]))
        rows, cols = (int(np.exp(rng.uniform(np.log(150), np.log(lim)))) for lim in (2000, 1000))
        size = rows * cols * np.dtype(dtype).itemsize
        batch = max(2, int(np.exp(rng.uniform(np.log(16 << 20), np.log(128 << 20)))) // size)
        cases.append((batch, rows, cols, dtype))
    return cases


def measure(batch: int, rows: int, cols: int, dtype: str, repeats: int) -> dict:
    rng = np.random.default_rng(rows * cols + batch)
    item = np.dtype(dtype).itemsize
    x = rng.integers(0, 256, (batch, rows, cols * item), dtype=np.uint8).view(dtype)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    outs = {name: np.empty_like(want) for name in ("plan", "loop", "torch", "copy")}
    fns = {"plan": lambda: cornerturn.transpose(x, out=outs["plan"]),
           "loop": lambda: input_order(x, outs["loop"]),
           "torch": _torch_cpu_transpose(x, outs["torch"]),
           "copy": lambda: np.copyto(outs["copy"].reshape(-1), x.reshape(-1))}
    exact = {}
    for name in ("plan", "loop", "torch"):
        outs[name].fill(0)
        fns[name]()
        exact[name] = bool((outs[name].view(np.uint8) == want.view(np.uint8)).all())
    timings = time_host_rounds(fns, repeats=repeats)
    copy_s = timings["copy"].median
    return {"case": f"{dtype} {batch} x ({rows}x{cols})", "batch": batch, "rows": rows, "cols": cols, "dtype": dtype,
            "bytes": x.nbytes, "pct": {k: 100 * copy_s / t.median for k, t in timings.items() if k != "copy"},
            "exact": exact, "plan": cornerturn.plan(x.shape, x.dtype, device="cpu").method}


def main() -> None:
    seed, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    extra = [(8, 716, 318, "complex128"), (5, 1525, 400, "complex128"), (20, 300, 400, "complex128"),
             (6, 900, 450, "complex128"), (38, 168, 1633, "int64"), (50, 316, 285, "int64")] if count < 0 else []
    rows = []
    for case in extra + draw(seed, abs(count)):
        row = measure(*case, repeats=7)
        rows.append(row)
        print(row["case"], row["plan"], {k: round(v) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    with open(path, "w") as f:
        json.dump({"host": platform.processor() or platform.machine(), "threads": numba.get_num_threads(),
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": f"python3 scripts/input_order_probe.py {seed} {count} OUT.json", "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
