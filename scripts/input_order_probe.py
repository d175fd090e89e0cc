"""Probe (CPU): a loop in the input's order (each thread takes input rows in turn and writes them down the output's
columns) against the plan and torch, on batches of 8- and 16-byte matrices of a few hundred rows and columns drawn
from a seed; every method checked bit-exact, all timed in interleaved rounds with np.copyto of the same bytes.

    python3 scripts/input_order_probe.py SEED CASES OUT.json [DTYPES ROWS COLS SINGLE]

CASES < 0 adds six batches torch led before; DTYPES a comma list (int64,float64,complex128), ROWS and COLS ranges
LO:HI (150:2000, 150:1000), SINGLE the share of single matrices (0).
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numba
import numpy as np

import cornerturn
from cornerturn.arrays import view_of
from cornerturn.bench.peers import _torch_cpu_transpose
from cornerturn.cpu import planner
from cornerturn.problem import canonical
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


@numba.njit(parallel=True, cache=False)
def input_order_lines(x, out):
    """The same, each task a group of input rows as many as a 64-byte line holds elements: each output line written
    whole."""
    batch, rows, cols = x.shape
    group = max(1, 64 // x.itemsize)
    groups = (rows + group - 1) // group
    for t in numba.prange(batch * groups):
        b = t // groups
        i0 = (t - b * groups) * group
        i1 = min(i0 + group, rows)
        for j in range(cols):
            for i in range(i0, i1):
                out[b, j, i] = x[b, i, j]


def draw(seed: int, count: int, dtypes: list[str], rows_range: tuple[int, int], cols_range: tuple[int, int],
         single: float) -> list[tuple[int, int, int, str]]:
    """(batch, rows, cols, dtype): rows and columns log-uniform over their ranges, batches of 16-128 MiB (a single
    matrix with probability `single`, redrawn where it would pass 256 MiB)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        dtype = str(rng.choice(dtypes))
        rows, cols = (int(np.exp(rng.uniform(np.log(lo), np.log(hi)))) for lo, hi in (rows_range, cols_range))
        size = rows * cols * np.dtype(dtype).itemsize
        batch = max(2, int(np.exp(rng.uniform(np.log(16 << 20), np.log(128 << 20)))) // size)
        if rng.uniform() < single:
            batch = 1
        if batch * size <= 256 << 20:
            cases.append((batch, rows, cols, dtype))
    return cases


def measure(batch: int, rows: int, cols: int, dtype: str, repeats: int) -> dict:
    rng = np.random.default_rng(rows * cols + batch)
    item = np.dtype(dtype).itemsize
    x = rng.integers(0, 256, (batch, rows, cols * item), dtype=np.uint8).view(dtype)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    outs = {name: np.empty_like(want) for name in ("plan", "before", "loop", "lines", "torch", "copy")}
    rule, planner.INPUT_ORDER_COLS = planner.INPUT_ORDER_COLS, (1, 0)  # the plan without the input-order rule
    before = planner.choose_variant(canonical(x.shape, x.strides, item))
    planner.INPUT_ORDER_COLS = rule
    fns = {"plan": lambda: cornerturn.transpose(x, out=outs["plan"]),
           "before": lambda: planner.run(before, view_of(x), view_of(outs["before"])),
           "loop": lambda: input_order(x, outs["loop"]),
           "lines": lambda: input_order_lines(x, outs["lines"]),
           "torch": _torch_cpu_transpose(x, outs["torch"]),
           "copy": lambda: np.copyto(outs["copy"].reshape(-1), x.reshape(-1))}
    exact = {}
    for name in ("plan", "before", "loop", "lines", "torch"):
        outs[name].fill(0)
        fns[name]()
        exact[name] = bool((outs[name].view(np.uint8) == want.view(np.uint8)).all())
    timings = time_host_rounds(fns, repeats=repeats)
    copy_s = timings["copy"].median
    return {"case": f"{dtype} {batch} x ({rows}x{cols})", "batch": batch, "rows": rows, "cols": cols, "dtype": dtype,
            "bytes": x.nbytes, "pct": {k: 100 * copy_s / t.median for k, t in timings.items() if k != "copy"},
            "exact": exact, "plan": cornerturn.plan(x.shape, x.dtype, device="cpu").method, "before": before.name}


def main() -> None:
    seed, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    dtypes = (sys.argv[4] if len(sys.argv) > 4 else "int64,float64,complex128").split(",")
    rows_range, cols_range = (tuple(map(int, (sys.argv[k] if len(sys.argv) > k else default).split(":")))
                              for k, default in ((5, "150:2000"), (6, "150:1000")))
    single = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
    extra = [(8, 716, 318, "complex128"), (5, 1525, 400, "complex128"), (20, 300, 400, "complex128"),
             (6, 900, 450, "complex128"), (38, 168, 1633, "int64"), (50, 316, 285, "int64")] if count < 0 else []
    rows = []
    for case in extra + draw(seed, abs(count), dtypes, rows_range, cols_range, single):
        row = measure(*case, repeats=7)
        rows.append(row)
        print(row["case"], row["plan"], {k: round(v) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    with open(path, "w") as f:
        json.dump({"host": platform.processor() or platform.machine(), "threads": numba.get_num_threads(),
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/input_order_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
