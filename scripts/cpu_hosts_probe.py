"""Probe: does the CPU planner's vector-tile rule hold on another host? Per case, interleaved rounds of np.copyto,
torch, the engine's plan, the vector kernel in tiles of 256/512/1024 and staged 512 (4- and 8-byte), and the
element kernel the engine used before (1df8977's parent: tiles of 256 8x8 for 4-byte, 128 8x8 for 2-byte, 128 4x4
for 8-byte); every output bit-exact.

    python3 scripts/cpu_hosts_probe.py --seed S --cases N [--shapes dtype:MxN,...] --out FILE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numba
import numpy as np

import cornerturn
from cornerturn.bench.suites import Case, random_cases
from cornerturn.cpu.kernels import tile_kernel
from cornerturn.cpu.vectors import vector_kernel

OLD = {2: (128, 8, 8), 4: (256, 8, 8), 8: (128, 4, 4)}


def methods_for(it, x, out, copy):
    m = {"copy": lambda: np.copyto(copy, x), "engine": lambda: cornerturn.transpose(x, out=out)}
    try:
        import torch

        tx = torch.from_numpy(x)
        m["torch"] = lambda: tx.transpose(1, 2).contiguous()
    except ImportError:
        pass
    kernels = {f"t{t}": vector_kernel(it, t, True) for t in (256, 512, 1024)}
    if it in (4, 8):
        kernels["s512"] = vector_kernel(it, 512, True, True)
    if it in OLD:
        kernels["old"] = tile_kernel(*OLD[it], True)
    for name, k in kernels.items():
        m[name] = (lambda k=k: k(x, out))
    return m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--shapes", default="")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed + 1)
    named = [Case(tuple(map(int, shape.split("x"))), dtype)
             for dtype, shape in (spec.split(":") for spec in args.shapes.split(",") if spec)]
    cases = named + [c for c in random_cases(args.seed, args.cases, "cpu") if c.itemsize <= 8]
    rows = []
    for n, case in enumerate(cases):
        it = case.itemsize
        shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
        x = rng.integers(0, 2**63, size=shape, dtype=np.uint64).astype(np.dtype(f"u{it}"))
        out = np.empty((shape[0], shape[2], shape[1]), x.dtype)
        copy = np.empty_like(x)
        m = methods_for(it, x, out, copy)
        want = x.transpose(0, 2, 1)
        for name, f in m.items():
            out.fill(0xA5)
            f()
            if name not in ("copy", "torch") and not np.array_equal(out, want):
                raise SystemExit(f"{case.name}: {name} wrong")
        times = {k: [] for k in m}
        for _ in range(args.repeats):
            for k, f in m.items():
                t0 = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t0)
        gbs = {k: 2 * x.nbytes / float(np.median(v)) / 1e9 for k, v in times.items()}
        plan = cornerturn.plan(case.shape, case.dtype, device="cpu").method
        rows.append({"case": case.name, "itemsize": it, "shape": list(shape), "plan": plan, "gbs": gbs})
        print(f"{n:2d} {case.name:30s} {plan:34s} " + " ".join(f"{k} {v:5.1f}" for k, v in gbs.items()), flush=True)
    with open(args.out, "w") as f:
        json.dump({"machine": platform.processor() or platform.machine(), "threads": numba.get_num_threads(),
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": args.seed,
                   "repeats": args.repeats, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
