"""Probe: transpose_words moving several tiles along the input's rows per program (WordsConfig.loop), so that the
sector two neighbouring tiles of a row share is read from the L1 the second time, against the planner's plan, on
the 1- and 2-byte matrices of the random suite that the planner gives the words kernel; the copy in the same
interleaved CUDA-event rounds, every plan bit-exact against torch first (output poisoned). Loop variants with the
base plan's registers as their limit (maxnreg), else the loop holds many more.

    python scripts/loop_probe.py FIRST_SEED LAST_SEED MAX_CASES OUT.json [LOOPS]
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import suite
from cornerturn.engine.configs import WordsConfig
from cornerturn.engine.plan import build
from cornerturn.problem import canonical

TORCH = {1: torch.uint8, 2: torch.int16}


def cases(first, last, most):
    found = []
    for seed in range(first, last + 1):
        for c in suite("random", seed=seed, count=64, device="cuda"):
            size = torch.empty(0, dtype=getattr(torch, c.dtype)).element_size()
            if size > 2:
                continue
            strides, step = [], size
            for e in reversed(c.shape):
                strides.append(step)
                step *= e
            p = canonical(tuple(c.shape), tuple(reversed(strides)), size)
            plan = engine.choose(p, "cuda:0")
            if isinstance(plan.config, WordsConfig):
                found.append((seed, c, p, size, plan))
                if len(found) == most:
                    return found
    return found


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


def regs(plan):
    launch = plan.pieces[0][2]
    return max(e[1].n_regs for e in launch._compiled.values())


def measure(seed, c, p, size, base, loops):
    dtype = TORCH[size]
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, tuple(c.shape), dtype=dtype, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    engine.run(base, xv, ov)
    limit = regs(base)
    plans = {"plan": base}
    for loop in loops:
        cfg = dataclasses.replace(base.config, loop=loop)
        plans[f"l{loop}"] = build(p, 4, cfg, "probe")
        plans[f"l{loop}"].pieces[0][2].options = {"maxnreg": limit}
        if loop == 4:
            plans["l4-free"] = build(p, 4, cfg, "probe")
    exact = {}
    for name, plan in plans.items():
        o.fill_(-93 if size == 1 else -23131)
        engine.run(plan, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x)}
    fns.update({name: (lambda plan=plan: engine.run(plan, xv, ov)) for name, plan in plans.items()})
    med = timed(fns)
    return {"case": c.name, "seed": seed, "problem": repr(p), "size": size, "config": base.config.name,
            "regs": {k: regs(v) for k, v in plans.items()}, "exact": exact,
            "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}


def main() -> None:
    first, last, most, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    loops = [int(v) for v in sys.argv[5].split(",")] if len(sys.argv) > 5 else [2, 4, 8]
    rows_out = []
    t0 = time.time()
    for seed, c, p, size, base in cases(first, last, most):
        row = measure(seed, c, p, size, base, loops)
        pct = row["pct"]
        print(f"{time.time() - t0:5.0f}s {row['case']:32s} {row['config']:22s} " +
              " ".join(f"{k} {v:5.1f}" for k, v in pct.items()) + " regs " +
              ",".join(str(v) for v in row["regs"].values()) +
              "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e), flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
