"""Probe: the rule that moves 16-byte matrices of OUTPUT_ORDER_ROWS rows in the output's order instead of the column
walks, checked on random complex128 matrices the rule takes (drawn until it takes them): the plan against the walks
(the plan before), both bit-exact into a poisoned output, timed in interleaved rounds with the copy and torch.

    python3 scripts/output_order_rule_probe.py SEED CASES OUT.json [--rows=200:1700] [--rounds=9]
"""

import json
import math
import sys
import time

import numba
import numpy as np

import cornerturn
from cornerturn.cpu.kernels import column_walk_kernel


def draw(rng, rows_range):
    rows = int(math.exp(rng.uniform(*map(math.log, rows_range))))
    nbytes = math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20)))
    batch = int(math.exp(rng.uniform(0, math.log(16)))) if rng.random() < 0.3 else 1
    cols = max(16, int(nbytes / (rows * 16 * batch)))
    return (batch, rows, cols)


def timed(fs: dict, rounds: int) -> dict:
    samples = {n: [] for n in fs}
    for f in fs.values():
        f()
    for _ in range(rounds):
        for n, f in fs.items():
            f()  # each sample after an untimed call of the same method
            t = time.perf_counter()
            f()
            samples[n].append(time.perf_counter() - t)
    return {n: float(np.median(v)) for n, v in samples.items()}


def one_case(rng, shape, plan, walk, rounds: int) -> dict:
    import torch

    raw = rng.integers(0, 2**63, size=math.prod(shape) * 2, dtype=np.uint64)
    x = raw.view(np.complex128).reshape(shape)
    out = np.empty((shape[0], shape[2], shape[1]), np.complex128)
    want = np.ascontiguousarray(x.swapaxes(1, 2))
    tx, to = torch.from_numpy(raw.view(np.int64).reshape(*shape, 2)), torch.from_numpy(out.view(np.int64)).view(
        shape[0], shape[2], shape[1], 2)
    copy_to = np.empty_like(x)
    fs = {"plan": lambda: plan.execute(x, out), "walks": lambda: walk(x, out),
          "torch": lambda: to.copy_(tx.transpose(1, 2))}
    for name, f in fs.items():
        out.view(np.uint8)[...] = 0xA5
        f()
        if not np.array_equal(out.view(np.uint64), want.view(np.uint64)):
            raise AssertionError(f"{shape} {name}: wrong result")
    fs["copy"] = lambda: np.copyto(copy_to, x)
    t = timed(fs, rounds)
    row = {"shape": shape, **{k: round(v * 1e3, 3) for k, v in t.items()},
           "plan_pct": round(100 * t["copy"] / t["plan"], 1), "walks_pct": round(100 * t["copy"] / t["walks"], 1),
           "gain": round(t["walks"] / t["plan"], 3)}
    return row


def main() -> None:
    import torch

    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    opts = dict(a.lstrip("-").split("=") for a in sys.argv[4:])
    rows_range = tuple(int(v) for v in opts.get("rows", "200:1700").split(":"))
    rounds = int(opts.get("rounds", "9"))
    torch.set_num_threads(numba.get_num_threads())
    rng = np.random.default_rng(seed)
    walk = column_walk_kernel(True)
    found = []
    while len(found) < cases:
        shape = draw(rng, rows_range)
        plan = cornerturn.plan(shape, np.complex128)
        if not plan.method.startswith("output-order16"):
            continue
        row = one_case(rng, shape, plan, walk, rounds)
        found.append(row)
        print(f"{str(shape):22s} plan {row['plan_pct']:6.1f}% walks {row['walks_pct']:6.1f}% of the copy, "
              f"torch {row['torch']:8.2f} ms; plan / walks {row['gain']:.2f}", flush=True)
    gains = [r["gain"] for r in found]
    print(f"geomean {math.exp(np.mean(np.log(gains))):.3f} over {len(gains)}; ahead by > 5%: "
          f"{sum(g > 1.05 for g in gains)}, behind by > 5%: {sum(g < 0.95 for g in gains)}")
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": " ".join(sys.argv),
                   "threads": numba.get_num_threads(), "rows": found}, f, indent=1)


if __name__ == "__main__":
    main()
