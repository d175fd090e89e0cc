"""Probe: larger element tiles against the planner's plan. (1) int8 256x256x64x64 by (3,2,1,0), every permute tile
up to 64 KiB on 4 and 8 warps; (2) the random suite's 4-byte transposes in element tiles (seeds given), tiles of
128 x 128 and more against the plan. Every plan bit-exact into a poisoned output, then timed with torch and the
copy in interleaved CUDA-event rounds (shuffled, L2 flushed before each sample).

    python scripts/tile_sweep_probe.py OUT.json SEED [SEED ...]
"""

from __future__ import annotations

import json
import random
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import suite
from cornerturn.engine import permute
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import TileConfig
from cornerturn.problem import Permutation, canonical_permutation


def timed(fns, repeats=15):
    flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    times = {k: [] for k in fns}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    order = list(fns)
    for r in range(repeats):
        random.Random(r).shuffle(order)
        for k in order:
            fns[k]()
            flush.zero_()
            ev[0].record()
            fns[k]()
            ev[1].record()
            ev[1].synchronize()
            times[k].append(ev[0].elapsed_time(ev[1]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def canon(shape, dtype, axes):
    size = torch.empty(0, dtype=dtype).element_size()
    strides, step = [], size
    for e in reversed(shape):
        strides.append(step)
        step *= e
    return canonical_permutation(tuple(shape), tuple(reversed(strides)), size, tuple(axes))


def data(shape, dtype):
    size = torch.empty(0, dtype=dtype).element_size()
    raw = torch.randint(0, 256, (*shape[:-1], shape[-1] * size), dtype=torch.uint8, device="cuda")
    return raw.view(dtype)


def measure(name, shape, dtype, axes, plans):
    x = data(tuple(shape), dtype)
    want = x.permute(*axes).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    exact = {}
    for k, plan in plans.items():
        o.view(torch.uint8).fill_(0xA5)
        engine.run(plan, xv, ov)
        exact[k] = bool(torch.equal(o.view(torch.uint8), want.view(torch.uint8)))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.permute(*axes))}
    fns.update({k: (lambda plan=plan: engine.run(plan, xv, ov)) for k, plan in plans.items()})
    med = timed(fns)
    pct = {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}
    best = max((k for k in plans), key=lambda k: pct[k])
    print(f"{name:44s} plan {pct['plan']:5.1f}  best {best} {pct[best]:5.1f}  torch {pct['torch']:5.1f}"
          + "".join(f" NOT EXACT {k}" for k, e in exact.items() if not e), flush=True)
    return {"case": name, "pct": pct, "exact": exact, "plans": {k: p.config.name for k, p in plans.items()}}


def main() -> None:
    path, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]]
    rows = []

    def save():
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)

    shape, axes = (256, 256, 64, 64), (3, 2, 1, 0)
    p = canon(shape, torch.int8, axes)
    plans = {"plan": permute.build(p, 1)}
    for a in (32, 64, 128, 256):
        for b in (32, 64, 128, 256):
            if a * b <= 65536:
                for w in (4, 8):
                    c = permute.PermuteConfig(a, b, w)
                    plans[c.name] = permute.build(p, 1, c)
    rows.append(measure("int8 256x256x64x64 (3,2,1,0)", shape, torch.int8, axes, plans))
    save()
    for seed in seeds:
        for c in suite("random", seed=seed, count=64, device="cuda"):
            dtype = getattr(torch, c.dtype)
            if dtype.itemsize != 4:
                continue
            axes = tuple(range(len(c.shape) - 2)) + (len(c.shape) - 1, len(c.shape) - 2)
            p = canon(c.shape, dtype, axes)
            if isinstance(p, Permutation):
                continue
            base = engine.choose(p, "cuda:0")
            if not isinstance(base.config, TileConfig):
                continue
            plans = {"plan": base}
            for t in ((128, 128, 8), (128, 128, 16), (64, 128, 8), (128, 64, 8), (64, 256, 8), (256, 64, 8)):
                cfg = TileConfig(*t)
                if cfg != base.config:
                    plans[cfg.name] = engine_plan.build(p, 4, cfg)
            rows.append(measure(f"{c.name} [{base.config.name}]", c.shape, dtype, axes, plans))
            save()


if __name__ == "__main__":
    main()
