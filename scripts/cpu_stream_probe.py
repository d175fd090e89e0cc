"""Probe: the CPU vector kernel with its output streamed (cpu.planner.STREAM, aligned non-temporal stores) against
the same plan with plain stores, on the random suite's 4- and 8-byte matrices of a seed (cornerturn.bench.suites
.random_cases, 16-256 MiB), their rows rounded to a whole number of 16-byte vectors of output where --aligned (the
rule's domain); only the matrices whose plan the rule changes. Every plan bit-exact into a poisoned output, timed
with np.copyto of the same bytes in interleaved rounds (median of --repeats).

    python3 scripts/cpu_stream_probe.py OUT.json SEED CASES [--aligned] [--repeats=5]
"""

import json
import sys
import time

import numpy as np

import cornerturn
from cornerturn import api
from cornerturn.bench.suites import random_cases
from cornerturn.cpu import planner

ALIGNED = "--aligned" in sys.argv
REPEATS = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--repeats=")), "5"))


def plan_with(stream: bool, shape, dtype):
    planner.STREAM = stream
    api._cached_plan.cache_clear()
    api._backend_plan.cache_clear()
    planner._plan_of.cache_clear()
    try:
        return cornerturn.plan(shape, dtype, device="cpu")
    finally:
        planner.STREAM = True


def main() -> None:
    path, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    rows_out = []
    for case in random_cases(seed, cases, "cpu"):
        if case.dtype not in ("float32", "int32", "float64", "complex64", "int64"):  # STREAM_ITEMSIZES' dtypes
            continue
        dtype = np.dtype(case.dtype)
        *batch, rows, cols = case.shape
        if ALIGNED:
            step = 16 // dtype.itemsize
            rows = max(step, rows // step * step)
        shape = (*batch, rows, cols)
        streamed, plain = plan_with(True, shape, dtype), plan_with(False, shape, dtype)
        if streamed.method == plain.method:
            continue
        x = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8).view(dtype).reshape(shape)
        want = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        out = np.empty_like(want)
        copy_to = np.empty_like(x)
        fns = {}
        for label, p in (("plain", plain), ("streamed", streamed)):
            out.view(np.uint8).fill(0xA5)
            p.execute(x, out)
            if not np.array_equal(out.view(np.uint8), want.view(np.uint8)):
                raise AssertionError(f"{case.name} {label}: wrong result")
            fns[label] = lambda p=p, x=x, out=out: p.execute(x, out)
        fns["copy"] = lambda c=copy_to, x=x: np.copyto(c, x)
        times = {k: [] for k in fns}
        for _ in range(REPEATS):
            for k, f in fns.items():
                t = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t)
        med = {k: float(np.median(v)) for k, v in times.items()}
        name = f"{case.dtype} {'x'.join(map(str, shape))}"
        row = {"case": name, "shape": list(shape), "dtype": case.dtype, "plain": plain.method,
               "streamed": streamed.method, "gbps": {k: 2 * x.nbytes / v / 1e9 for k, v in med.items()},
               "speedup": med["plain"] / med["streamed"]}
        rows_out.append(row)
        print(f"{name:32s} {plain.method:40s} plain {row['gbps']['plain']:5.1f} streamed {row['gbps']['streamed']:5.1f}"
              f" copy {row['gbps']['copy']:5.1f} GB/s  x{row['speedup']:.2f}", flush=True)
        with open(path, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "host": planner.__name__,
                       "command": "python3 scripts/cpu_stream_probe.py " + " ".join(sys.argv[1:]), "rows": rows_out},
                      f, indent=1)
    s = [r["speedup"] for r in rows_out]
    if s:
        print(f"{len(s)} cases: geometric mean x{np.exp(np.mean(np.log(s))):.3f}, {min(s):.2f}-{max(s):.2f}, "
              f"{sum(v < 0.98 for v in s)} behind by more than 2%")


if __name__ == "__main__":
    main()
