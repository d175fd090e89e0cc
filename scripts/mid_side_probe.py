"""Probe: transposes of 1- and 2-byte elements with a side of 29 to 255 that neither the skinny rules nor the planner's
table reach (2-byte rows or columns of 29-255, byte matrices of 32-255 rows or 65-255 columns): the current plan
against every candidate autotuning knows, in words and in elements, and the table's class choice; interleaved
CUDA-event timing with the copy of the same bytes, bit-exact first.

    python scripts/mid_side_probe.py SEED CASES OUT.json [--named] [--rows-short | --rows4 | --joined]
        [--plans=NAME,...]

--rows-short draws only matrices of few rows (the short side first); --rows4 only byte matrices of 32-191 rows, a
multiple of 4; --joined only those that are not, timing joined output rows in tiles of 32-128 rows x 16-64 words;
--plans times only the plans named (the current plan, the heuristic's words tile, the table's choice, or candidates
by name, e.g. tiles128x64-w4).
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
from cornerturn.engine import table
from cornerturn.engine.configs import WordsConfig, candidates, heuristic
from cornerturn.engine.plan import build
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical

NAMED = [(1, 1, 129, 1092432), (2, 1, 169, 361438), (2, 1, 1272403, 88)]  # folded from the permute suites
ONLY = next((a.split("=")[1].split(",") for a in sys.argv if a.startswith("--plans=")), None)
ROWS4 = "--rows4" in sys.argv  # byte matrices of 32 to 191 rows, a multiple of 4 (output rows at whole words)
JOINED = "--joined" in sys.argv  # byte matrices of 32 to 191 rows, not a multiple of 4: joined output rows' tiles
ROWS_SHORT = "--rows-short" in sys.argv or ROWS4 or JOINED
JOINED_TILES = [WordsConfig(r, cw, w, "joined") for r in (32, 64, 128) for cw in (16, 32, 64) for w in (4, 8)
                if 1024 <= r * cw <= 4096]


def draw(rng):
    size = 1 if ROWS4 or JOINED else int(rng.choice([1, 2]))
    total = math.exp(rng.uniform(math.log(32 << 20), math.log(512 << 20))) / size
    batch = int(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.25 else 1
    if size == 2 or ROWS_SHORT or rng.random() < 0.5:
        low = 29 if size == 2 else 32
        short = int(math.exp(rng.uniform(math.log(low), math.log(192 if ROWS4 or JOINED else 256))))
        short = short // 4 * 4 if ROWS4 else short + (short % 4 == 0) if JOINED else short
        long = int(total / batch / short)
        few_rows = size == 1 or ROWS_SHORT or rng.random() < 0.5
        return (size, batch, short, long) if few_rows else (size, batch, long, short)
    short = int(math.exp(rng.uniform(math.log(65), math.log(256))))
    return size, batch, int(total / batch / short), short


def plans_of(problem, size: int) -> dict:
    current = engine.choose(problem, "cuda:0")
    plans = {"current": current}
    plans["heuristic"] = build(problem, 4, heuristic(problem, 4))
    hit = table.lookup(problem, engine.device_name("cuda:0"), None)
    if hit is not None:
        plans["table"] = build(problem, *hit[:2])
    if JOINED:
        plans.update({cfg.name: build(problem, 4, cfg) for cfg in JOINED_TILES})
        return plans
    for word in (4, size):
        for cfg in candidates(problem, word):
            plans[cfg.name] = build(problem, word, cfg)
    return {k: p for k, p in plans.items() if ONLY is None or k in ONLY}


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1).view(torch.uint8)


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    shapes = list(NAMED) if "--named" in sys.argv else []
    shapes += [draw(rng) for _ in range(cases)]
    rows_out = []
    t0 = time.time()
    for size, batch, m, n in shapes:
        shape = (batch, m, n) if batch > 1 else (m, n)
        strides = tuple(size * s for s in ((m * n, n, 1) if batch > 1 else (n, 1)))
        problem = canonical(shape, strides, size)
        plans = plans_of(problem, size)
        dtype = {1: torch.uint8, 2: torch.int16}[size]
        x = torch.randint(0, 256, (*shape[:-1], size * n), dtype=torch.uint8, device="cuda").view(dtype)
        want = x.transpose(-1, -2).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in list(plans.items()):
            o.view(torch.uint8).fill_(0xA5)
            try:
                engine.run(p, xv, ov)
                torch.cuda.synchronize()
            except Exception as exc:  # a tile the compiler refuses
                print("  refused", name, str(exc)[:120], flush=True)
                del plans[name]
                continue
            exact[name] = torch.equal(bits(o), bits(want))
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s), "torch": lambda d=o, s=x: d.copy_(s.transpose(-1, -2))}
        fns.update({name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()})
        timings = time_cuda_rounds(fns, warmup=1, repeats=7)
        med = {k: t.median for k, t in timings.items()}
        row = {"case": f"{'uint8' if size == 1 else 'int16'} " + "x".join(map(str, shape)), "size": size,
               "batch": batch, "rows": m, "cols": n, "exact": exact,
               "plans": {k: p.name for k, p in plans.items()},
               "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}
        best = max((k for k in row["pct"] if k != "torch"), key=row["pct"].get)
        print(f"{time.time() - t0:6.0f}s {row['case']:28s} current {row['pct']['current']:5.1f} "
              f"({plans['current'].name}) best {row['pct'][best]:5.1f} {best} torch {row['pct']['torch']:5.1f} "
              f"{'' if all(exact.values()) else 'NOT EXACT'}", flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
