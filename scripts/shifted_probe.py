"""Probe: 1- and 2-byte matrices whose table plan writes output rows that start inside a word as shifted words (the
words kernel's OUT 1): that plan, the same with the next groups of rows gathered from the tile instead of loaded
again, and the same tile writing those rows element by element (items); interleaved CUDA-event timing against
torch's copy, bit-exact first."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import WordsConfig
from cornerturn.engine.plan import build
from cornerturn.problem import canonical


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    out_rows = []
    drawn = 0
    while len(out_rows) < cases and drawn < 5000:
        drawn += 1
        size = int(rng.choice([1, 2]))
        target = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20))) / size
        m = int(math.exp(rng.uniform(math.log(300), math.log(min(1e6, target / 300)))))
        n = int(target // m)
        if n < 300:
            continue
        problem = canonical((m, n), (size * n, size), size)
        engine_plan.PROBE_GATHER = False
        table = engine.choose(problem, "cuda:0")
        if not table.pieces or table.pieces[0][2].constexprs.get("OUT") != 1:
            continue
        c = table.config
        engine_plan.PROBE_GATHER = True
        plans = {"table": table, "gather": build(problem, 4, c),
                 "items": build(problem, 4, WordsConfig(c.block_r, c.block_cw, c.num_warps, "items"))}
        engine_plan.PROBE_GATHER = False
        dtype = torch.uint8 if size == 1 else torch.int16
        x = torch.randint(0, 256, (m, size * n), dtype=torch.uint8, device="cuda").view(dtype)
        want = x.t().contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.view(torch.uint8).fill_(0xA5)
            engine.run(p, xv, ov)
            exact[name] = torch.equal(o, want)
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s)}
        fns.update({name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()})
        times = {k: [] for k in fns}
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        for _ in range(7):
            for k, fn in fns.items():
                fn()
                ev[0].record()
                fn()
                ev[1].record()
                ev[1].synchronize()
                times[k].append(ev[0].elapsed_time(ev[1]))
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        k = table.pieces[0][2].constexprs
        row = {"case": f"{'uint8' if size == 1 else 'int16'} {m}x{n}", "plan": table.name, "reason": table.reason,
               "in_words": k["IN_WORDS"], "in_align": k["IN_ALIGN"], "exact": exact,
               "pct": {name: round(100 * med["copy"] / v, 1) for name, v in med.items() if name != "copy"}}
        print(json.dumps(row), flush=True)
        out_rows.append(row)
    with open(path, "w") as f:
        json.dump(out_rows, f, indent=1)


if __name__ == "__main__":
    main()
