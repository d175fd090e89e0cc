"""Probe: 16-byte matrices that move in the output's order (cpu.planner.in_output_order: 256 to 1,536 rows, 512
columns or more), the plan (streamed, non-temporal element stores) against the same kernel with plain stores, torch's
copy of the transposed view and np.copyto of the same bytes, in interleaved rounds (median of --repeats), every
result bit-exact into a poisoned output. Matrices drawn from SEED: complex128, 16-256 MiB log-uniform, rows
log-uniform in the rule's range, a quarter batched (2 to 8).

    python3 scripts/output_order_stream_probe.py OUT.json SEED CASES [--repeats=7]
"""

import json
import math
import sys
import time

import numpy as np

import cornerturn
from cornerturn.cpu import planner
from cornerturn.cpu.output_order import output_order_kernel
from cornerturn.problem import canonical

REPEATS = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--repeats=")), "7"))


def draw(rng):
    low, high = planner.OUTPUT_ORDER_ROWS
    while True:
        nbytes = math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20)))
        batch = int(rng.integers(2, 9)) if rng.random() < 0.25 else 1
        rows = int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))
        cols = int(nbytes // (16 * rows * batch))
        shape = (batch, rows, cols) if batch > 1 else (rows, cols)
        problem = canonical(shape, tuple(int(np.prod(shape[i + 1:])) * 16 for i in range(len(shape))), 16)
        if planner.in_output_order(problem) and not planner.in_input_order(problem):  # the input's order comes first
            return shape


def run_case(shape, rng, plain_kernel) -> dict:
    import torch

    plan = cornerturn.plan(shape, np.complex128, device="cpu")
    x = rng.integers(0, 2**63, size=(*shape, 2), dtype=np.uint64).view(np.complex128).reshape(shape)
    want = np.ascontiguousarray(np.swapaxes(x, -1, -2))
    out = np.empty_like(want)
    x3, out3 = x.reshape(-1, *shape[-2:]), out.reshape(-1, shape[-1], shape[-2])
    fns = {"plan": lambda: plan.execute(x, out), "plain": lambda: plain_kernel(x3, out3)}
    for label, fn in fns.items():
        out.view(np.uint8).fill(0xA5)
        fn()
        if not np.array_equal(out.view(np.uint64), want.view(np.uint64)):
            raise AssertionError(f"{shape} {label}: wrong result")
    tx, tout = torch.from_numpy(x), torch.from_numpy(out)
    copy_to = np.empty_like(x)
    fns["torch"] = lambda: tout.copy_(tx.transpose(-1, -2))
    fns["copy"] = lambda: np.copyto(copy_to, x)
    times = {k: [] for k in fns}
    for _ in range(REPEATS):
        for k, f in fns.items():
            f()  # each sample after an untimed call of the same method
            t = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t)
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {"case": f"complex128 {'x'.join(map(str, shape))}", "shape": list(shape), "plan": plan.method,
            "gbps": {k: round(2 * x.nbytes / v / 1e9, 2) for k, v in med.items()},
            "speedup": med["plain"] / med["plan"], "pct_of_copy": 100 * med["copy"] / med["plan"],
            "vs_torch": med["torch"] / med["plan"]}


def main() -> None:
    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    plain_kernel = output_order_kernel(True, False)
    rows_out = []
    for _ in range(count):
        row = run_case(draw(rng), rng, plain_kernel)
        rows_out.append(row)
        print(f"{row['case']:30s} {row['plan']:34s} " + " ".join(f"{k} {v:5.1f}" for k, v in row["gbps"].items()) +
              f" GB/s  x{row['speedup']:.2f}", flush=True)
        with open(path, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/output_order_stream_probe.py " + " ".join(sys.argv[1:]),
                       "rows": rows_out}, f, indent=1)
    s = [r["speedup"] for r in rows_out]
    pct = np.median([r["pct_of_copy"] for r in rows_out])
    print(f"{len(s)} cases: geometric mean x{np.exp(np.mean(np.log(s))):.3f}, {min(s):.2f}-{max(s):.2f}, "
          f"{sum(v < 0.98 for v in s)} behind by more than 2%; median {pct:.0f}% of the copy; torch ahead on "
          f"{sum(r['vs_torch'] < 1 for r in rows_out)}")


if __name__ == "__main__":
    main()
