"""Probe: 16-byte matrices that take the column walks (cpu.planner.walks, neither order), drawn from SEED (complex128,
16-256 MiB, a quarter batched, 300 rows or more): the plan (streamed) against the plain column walks, torch's copy
and np.copyto in interleaved rounds of 7 (each sample after an untimed call of the same method), every result
bit-exact into a poisoned output.

    python3 scripts/walks_stream_probe.py SEED CASES OUT.json
"""

import json
import math
import sys
import time

import numpy as np

import cornerturn
from cornerturn.cpu import planner
from cornerturn.cpu.kernels import column_walk_kernel
from cornerturn.problem import canonical


def draw(rng):
    while True:
        nbytes = math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20)))
        batch = int(rng.integers(2, 9)) if rng.random() < 0.25 else 1
        per = nbytes / 16 / batch
        if per / 512 <= 600:
            continue
        rows = int(round(math.exp(rng.uniform(math.log(300), math.log(per / 512)))))
        cols = int(per // rows)
        shape = (batch, rows, cols)
        p = canonical(shape, (rows * cols * 16, cols * 16, 16), 16)
        if planner.walks(p) and not planner.in_output_order(p) and not planner.in_input_order(p):
            return shape


def run_case(shape, rng, plain) -> dict:
    import torch

    x = rng.integers(0, 2**63, size=(*shape, 2), dtype=np.uint64).view(np.complex128).reshape(shape)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    out = np.empty_like(want)
    plan = cornerturn.plan(shape, np.complex128, device="cpu")
    tx, to = torch.from_numpy(x), torch.from_numpy(out)
    copy_to = np.empty_like(x)
    fns = {"torch": lambda: to.copy_(tx.transpose(-1, -2)), "copy": lambda: np.copyto(copy_to, x),
           "walk": lambda: plain(x, out), "plan": lambda: plan.execute(x, out)}
    for label in ("walk", "plan"):
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
    plain = column_walk_kernel(True)
    rows = []
    for _ in range(count):
        row = run_case(draw(rng), rng, plain)
        rows.append(row)
        print(row["shape"], row["plan"], row["gbps"], flush=True)
    for a, b in (("plan", "walk"), ("plan", "torch"), ("walk", "torch")):
        v = [r["gbps"][a] / r["gbps"][b] for r in rows]
        print(a, "/", b, round(math.exp(sum(map(math.log, v)) / len(v)), 3), round(min(v), 2), round(max(v), 2),
              "behind by more than 2%:", sum(x < 0.98 for x in v))
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/walks_stream_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
