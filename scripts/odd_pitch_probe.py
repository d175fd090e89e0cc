"""Probe: 2-byte matrices whose rows lie an odd number of 32-bit words apart (columns 2 mod 4), whose table plan is
the words kernel: that plan against element tiles and the words kernel's items mode; interleaved CUDA-event timing
against torch's copy, bit-exact first."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine.configs import TileConfig, WordsConfig
from cornerturn.engine.plan import build
from cornerturn.problem import canonical


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    out_rows = []
    drawn = 0
    while len(out_rows) < cases and drawn < 5000:
        drawn += 1
        target = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20))) / 2
        m = int(math.exp(rng.uniform(math.log(300), math.log(min(1e6, target / 300)))))
        n = int(target // m) // 4 * 4 + 2
        if n < 300:
            continue
        problem = canonical((m, n), (2 * n, 2), 2)
        table = engine.choose(problem, "cuda:0")
        if not table.name.startswith("words"):
            continue
        plans = {"table " + table.name: table}
        for cfg in (TileConfig(128, 64, 8), TileConfig(64, 128, 4), TileConfig(64, 64, 4)):
            plans[cfg.name] = build(problem, 2, cfg)
        c = table.config
        plans["items"] = build(problem, 4, WordsConfig(c.block_r, c.block_cw, c.num_warps, "items"))
        x = torch.randint(0, 256, (m, 2 * n), dtype=torch.uint8, device="cuda").view(torch.int16)
        want = x.t().contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.fill_(-23131)
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
        row = {"case": f"int16 {m}x{n}", "exact": exact,
               "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}
        print(json.dumps(row), flush=True)
        out_rows.append(row)
    with open(path, "w") as f:
        json.dump(out_rows, f, indent=1)


if __name__ == "__main__":
    main()
