"""Probe: skinny byte matrices whose x and out start past a whole word (slices): the heuristic's words tile told the
offsets against the skinny rule's words tile told the offsets; interleaved CUDA-event timing against torch's copy,
bit-exact first.

    python scripts/offset_skinny_probe.py SEED CASES OUT.json
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import torch

from cornerturn.engine.configs import WordsConfig, heuristic, skinny
from cornerturn.engine.plan import build
from cornerturn.problem import canonical


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    rows_out = []
    while len(rows_out) < cases:
        cols = int(math.exp(rng.uniform(math.log(2), math.log(256))))
        rows = int(math.exp(rng.uniform(math.log(32 << 20), math.log(512 << 20)))) // cols
        problem = canonical((rows, cols), (cols, 1), 1)
        rule = skinny(problem)
        if rule is None or not isinstance(rule[1], WordsConfig):
            continue
        x_off, out_off = int(rng.integers(1, 4)), int(rng.integers(0, 4))
        plans = {"old": build(problem, 4, heuristic(problem, 4), offsets=(x_off, out_off)),
                 "new": build(problem, 4, rule[1], offsets=(x_off, out_off))}
        raw = torch.randint(0, 256, (rows * cols + 8,), dtype=torch.uint8, device="cuda")
        x = raw[x_off:x_off + rows * cols].view(rows, cols)
        want = x.t().contiguous().reshape(-1)
        buf = torch.empty(rows * cols + 8, dtype=torch.uint8, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream

        def run(p, x=x, buf=buf, out_off=out_off, stream=stream):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, buf.data_ptr() + out_off + oo, stream, 0)

        exact = {}
        for name, p in plans.items():
            buf.fill_(0xA5)
            run(p)
            exact[name] = torch.equal(buf[out_off:out_off + rows * cols], want)
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, x=x: d.copy_(x), **{k: (lambda p=p: run(p)) for k, p in plans.items()}}
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
        med = {k: sorted(v)[3] for k, v in times.items()}
        row = {"case": f"uint8 {rows}x{cols} +{x_off}/+{out_off}", "old": plans["old"].name, "new": plans["new"].name,
               "exact": exact, "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}
        print(json.dumps(row), flush=True)
        rows_out.append(row)
    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
