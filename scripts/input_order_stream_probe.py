"""Probe: 16-byte matrices that move in the input's order (cpu.planner.in_input_order: 300-1,024 columns), drawn from
SEED (complex128, 16-256 MiB, 30% batched): the plan (four input rows a task, streamed from STREAM_MIN_BYTES)
against the loop before it (one input row a task, plain stores), torch's copy and np.copyto, in interleaved rounds
of 7 (each sample after an untimed call of the same method), every result bit-exact into a poisoned output.

    python3 scripts/input_order_stream_probe.py SEED CASES OUT.json
"""

import json
import math
import sys
import time

import numba
import numpy as np
from numba import prange

import cornerturn
from cornerturn.cpu import planner
from cornerturn.problem import canonical


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def one_row_a_task(x, out):
    """The input's order as it was: one input row a task."""
    batch, rows, cols = x.shape
    for t in prange(batch * rows):
        b = t // rows
        i = t - b * rows
        for j in range(cols):
            out[b, j, i] = x[b, i, j]


def draw(rng):
    low, high = planner.INPUT_ORDER_COLS
    while True:
        nbytes = math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20)))
        batch = int(rng.integers(2, 9)) if rng.random() < 0.3 else 1
        cols = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
        rows = int(nbytes // (16 * cols * batch))
        shape = (batch, rows, cols)
        if rows > 8 and planner.in_input_order(canonical(shape, (rows * cols * 16, cols * 16, 16), 16)):
            return shape


def run_case(shape, rng) -> dict:
    import torch

    x = rng.integers(0, 2**63, size=(*shape, 2), dtype=np.uint64).view(np.complex128).reshape(shape)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    out = np.empty_like(want)
    plan = cornerturn.plan(shape, np.complex128, device="cpu")
    tx, to = torch.from_numpy(x), torch.from_numpy(out)
    copy_to = np.empty_like(x)
    fns = {"torch": lambda: to.copy_(tx.transpose(-1, -2)), "copy": lambda: np.copyto(copy_to, x),
           "before": lambda: one_row_a_task(x, out), "plan": lambda: plan.execute(x, out)}
    for label in ("before", "plan"):
        out.view(np.uint8).fill(0xA5)
        fns[label]()
        if not np.array_equal(out.view(np.uint64), want.view(np.uint64)):
            raise AssertionError(f"{shape} {label}: wrong result")
    times = {k: [] for k in fns}
    for _ in range(7):
        for k, f in fns.items():
            f()
            start = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - start)
    nbytes = 2 * x.nbytes / 1e9
    return {"shape": list(shape), "plan": plan.method,
            "gbps": {k: round(nbytes / float(np.median(v)), 2) for k, v in times.items()}}


def main() -> None:
    seed, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        row = run_case(draw(rng), rng)
        rows.append(row)
        print(row["shape"], row["plan"], row["gbps"], flush=True)
    for a, b in (("plan", "before"), ("plan", "torch"), ("before", "torch")):
        v = [r["gbps"][a] / r["gbps"][b] for r in rows]
        print(a, "/", b, round(math.exp(sum(map(math.log, v)) / len(v)), 3), round(min(v), 2), round(max(v), 2),
              "behind by more than 2%:", sum(x < 0.98 for x in v))
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/input_order_stream_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
