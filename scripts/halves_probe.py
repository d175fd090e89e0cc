"""Probe: 2-byte matrices of 3 to 31 rows (float16 / bfloat16 planes to pixels: AoS from SoA), random, 64-512 MiB,
a quarter in batches (some with outputs that start inside words): the planner's plan (element tiles for odd rows,
the heuristic's words tile else) against transpose_interleave building each output word from the two rows its
halves come from, in programs of 64 to 512 words a row; torch and the copy in the same interleaved CUDA-event
rounds, every plan bit-exact against torch first (output poisoned).

    python scripts/halves_probe.py SEED CASES OUT.json
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine import configs
from cornerturn.engine.configs import InterleaveConfig
from cornerturn.engine.plan import build
from cornerturn.problem import canonical

CONFIGS = [(64, 2), (128, 4), (256, 4), (512, 4)]


def draw(rng):
    while True:
        rows = int(math.exp(rng.uniform(math.log(3), math.log(32))))
        total = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20))) / 2
        batch = int(math.exp(rng.uniform(math.log(2), math.log(256)))) if rng.random() < 0.25 else 1
        cols = int(total / batch / rows)
        if rows not in (4, 8, 16) and cols >= 2:
            return batch, rows, cols


def before_halves(problem):
    """The planner's plan as before transpose_interleave took 2-byte matrices of 3 or 5 to 31 rows."""
    taken = configs.interleave_ok
    configs.interleave_ok = lambda p: taken(p) and (p.itemsize == 1 or p.rows in (2, 4))
    engine.choose.cache_clear()
    try:
        return engine.choose(problem, "cuda:0")
    finally:
        configs.interleave_ok = taken
        engine.choose.cache_clear()


def timed(fns, repeats=7):
    times = {k: [] for k in fns}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    for _ in range(repeats):
        for k, fn in fns.items():
            fn()
            ev[0].record()
            fn()
            ev[1].record()
            ev[1].synchronize()
            times[k].append(ev[0].elapsed_time(ev[1]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def case(batch, m, n):
    shape = (batch, m, n) if batch > 1 else (m, n)
    strides = (m * n * 2, n * 2, 2) if batch > 1 else (n * 2, 2)
    problem = canonical(shape, strides, 2)
    x = torch.randint(-32768, 32767, shape, dtype=torch.int16, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    chosen = before_halves(problem)
    plans = {"plan " + chosen.name: chosen}
    for cw, w in CONFIGS:
        plans[f"halves {cw}-{w}"] = build(problem, 4, InterleaveConfig(cw, w))
    exact = {}
    for name, p in plans.items():
        o.fill_(-23131)
        engine.run(p, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.transpose(-1, -2))}
    fns.update({name: (lambda p=p: engine.run(p, xv, ov)) for name, p in plans.items()})
    med = timed(fns)
    label = f"int16 {batch} x ({m}x{n})" if batch > 1 else f"int16 {m}x{n}"
    return {"case": label, "batch": batch, "rows": m, "cols": n, "shifted": batch > 1 and m * n % 2 == 1,
            "exact": exact, "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    shapes = [draw(rng) for _ in range(cases)]
    rows_out = []
    t0 = time.time()
    for batch, m, n in shapes:
        row = case(batch, m, n)
        pct = row["pct"]
        plan = next(k for k in pct if k.startswith("plan"))
        print(f"{time.time() - t0:5.0f}s {row['case']:28s} plan {pct[plan]:5.1f} ({plan[5:]}) "
              + " ".join(f"{k[7:]} {v:5.1f}" for k, v in pct.items() if k.startswith("halves"))
              + f" torch {pct['torch']:5.1f}" + "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e),
              flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
