"""Probe: batches of byte matrices of 2 to 31 rows whose outputs start inside words (pixel channels to planes'
inverse: NCHW -> NHWC of uint8 images whose H W C is not a whole number of words). The plan before (the skinny
rule's element tiles up to 8 rows, else the heuristic's words tile) against transpose_interleave with its words
shifted into place, in programs of 64 to 512 words a row; torch and the copy in the same interleaved CUDA-event
rounds, every plan bit-exact against torch first (output poisoned).

    python scripts/shifted_probe.py SEED CASES OUT.json [--named]
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
from cornerturn.engine.configs import MAX_BLOCK, InterleaveConfig, TileConfig, _pow2_at_least, heuristic
from cornerturn.engine.plan import build
from cornerturn.problem import canonical

NAMED = [(256, 3, 227 * 227), (64, 3, 299 * 299), (32, 3, 1001 * 999), (128, 2, 300001), (16, 5, 1000001),
         (40, 9, 333333), (8, 31, 400001), (100, 7, 100003), (3, 13, 3000001)]
CONFIGS = [(64, 2), (128, 4), (256, 4), (512, 4)]


def draw(rng):
    while True:
        rows = int(math.exp(rng.uniform(math.log(2), math.log(32))))
        total = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20)))
        batch = int(math.exp(rng.uniform(math.log(2), math.log(512))))
        cols = int(total / batch / rows)
        if rows * cols % 4 and cols >= 2:
            return batch, rows, cols


def plan_before(problem):
    """The skinny rule as it stood before shifted outputs: element tiles for up to 8 rows, else the heuristic."""
    if problem.rows <= 8:
        return build(problem, 1, TileConfig(_pow2_at_least(problem.rows), MAX_BLOCK, 8))
    return build(problem, 4, heuristic(problem, 4))


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
    shape, strides = (batch, m, n), (m * n, n, 1)
    problem = canonical(shape, strides, 1)
    assert configs.interleave_ok(problem) and configs.outputs_shifted(problem), shape
    x = torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    plans = {"before " + plan_before(problem).name: plan_before(problem)}
    chosen = engine.choose(problem, "cuda:0")
    plans["rule " + chosen.name] = chosen
    for cw, w in CONFIGS:
        plans[f"shifted {cw}-{w}"] = build(problem, 4, InterleaveConfig(cw, w))
    exact = {}
    for name, p in plans.items():
        o.fill_(0xA5)
        engine.run(p, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.transpose(-1, -2))}
    fns.update({name: (lambda p=p: engine.run(p, xv, ov)) for name, p in plans.items()})
    med = timed(fns)
    return {"case": f"uint8 {batch} x ({m}x{n})", "batch": batch, "rows": m, "cols": n, "exact": exact,
            "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    shapes = list(NAMED) if "--named" in sys.argv else []
    shapes += [draw(rng) for _ in range(cases)]
    rows_out = []
    t0 = time.time()
    for batch, m, n in shapes:
        row = case(batch, m, n)
        pct = row["pct"]
        before = next(k for k in pct if k.startswith("before"))
        rule = next(k for k in pct if k.startswith("rule"))
        print(f"{time.time() - t0:5.0f}s {row['case']:28s} before {pct[before]:5.1f} rule {pct[rule]:5.1f} "
              + " ".join(f"{k[8:]} {v:5.1f}" for k, v in pct.items() if k.startswith("shifted"))
              + f" torch {pct['torch']:5.1f}" + "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e),
              flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
