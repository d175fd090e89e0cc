"""Probe: 8-byte matrices (16-128 MiB, 100-1,500 rows, 100-30,000 columns, half of them batches of 2-64) moved by a
plain column walk (a task walks 16 columns one at a time down up to 1,024 rows, as torch's copy walks them) against
the planner's plan and torch, interleaved rounds, median of 5, each bit-exact.

    python3 scripts/walk8_probe.py SEED CASES OUT.json
"""

import json
import math
import sys
import time

import numpy as np
import torch
from numba import njit, prange

import cornerturn


@njit(parallel=True, boundscheck=False)
def walk1(x, out, chunk, most_rows):
    batch, rows, cols = x.shape
    col_bands = (cols + chunk - 1) // chunk
    row_bands = (rows + most_rows - 1) // most_rows
    band_rows = (rows + row_bands - 1) // row_bands
    for t in prange(batch * col_bands * row_bands):
        b = t // (col_bands * row_bands)
        rest = t % (col_bands * row_bands)
        i0 = (rest // col_bands) * band_rows
        j0 = (rest % col_bands) * chunk
        for j in range(j0, min(j0 + chunk, cols)):
            for i in range(i0, min(i0 + band_rows, rows)):
                out[b, j, i] = x[b, i, j]


def main() -> None:
    torch.set_num_threads(2)
    rng = np.random.default_rng(int(sys.argv[1]))
    found = []
    while len(found) < int(sys.argv[2]):
        batch = round(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.5 else 1
        rows = int(math.exp(rng.uniform(math.log(100), math.log(1500))))
        cols = int(math.exp(rng.uniform(math.log(100), math.log(30000))))
        if not (16 << 20) <= batch * rows * cols * 8 <= (128 << 20):
            continue
        shape = (batch, rows, cols) if batch > 1 else (rows, cols)
        x = rng.integers(0, 2**62, size=batch * rows * cols, dtype=np.int64).reshape(shape)
        x3 = x if x.ndim == 3 else x[None]
        want = np.ascontiguousarray(np.swapaxes(x3, -1, -2))
        out = np.empty_like(want)
        shaped = out.reshape((*shape[:-2], cols, rows))
        tx, to = torch.from_numpy(x), torch.from_numpy(shaped)
        calls = {"plan": lambda x=x, shaped=shaped: cornerturn.transpose(x, out=shaped),
                 "torch": lambda to=to, tx=tx: to.copy_(tx.transpose(-1, -2)),
                 "walk1": lambda x3=x3, out=out: walk1(x3, out, 16, 1024)}
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
        found.append({"shape": shape, "plan_name": cornerturn.plan(shape, np.int64).method,
                      **{name: 2 * x.nbytes / sorted(s)[2] / 1e9 for name, s in seconds.items()}})
        print(found[-1], flush=True)
    q = [r["walk1"] / r["plan"] for r in found]
    print(f"walk1 over the plan: geometric mean {math.exp(sum(map(math.log, q)) / len(q)):.3f}, "
          f"{min(q):.2f}-{max(q):.2f}, behind by 2% or more on {sum(v < 0.98 for v in q)} of {len(q)}")
    with open(sys.argv[3], "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": found}, f, indent=1)


if __name__ == "__main__":
    main()
