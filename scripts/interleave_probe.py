"""Probe: transposes of 5 to 31 rows of bytes (random matrices, 64-512 MiB, a quarter batched): the planner's plan,
transpose_interleave in programs of 64 to 256 words a row, transpose_narrow, and the same shape with the rows rounded
up to whole words (its own copy) as a reference; with --rule, the planner's plan against the plan before the
interleave rule (transpose_narrow for 5-8 rows, element tiles for other matrices of up to 8 rows, else the
heuristic's words tile). Interleaved CUDA-event rounds with torch and the copy, every plan bit-exact first.

    python scripts/interleave_probe.py SEED CASES OUT.json --sizes=1 --rows=5,32 [--rule]
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
from cornerturn.engine.configs import _pow2_at_least, heuristic
from cornerturn.engine.plan import build
from cornerturn.problem import canonical

NAMED = [(1, 1, 35, 7287077), (1, 1, 130, 313950), (1, 3834, 147, 161), (1, 1, 171, 1213632), (2, 1, 35, 3000000),
         (1, 1, 9, 20000000), (1, 1, 17, 10000000), (1, 1, 255, 1000000), (1, 1, 110991, 2236)]
SIZES = [int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--sizes=")), "1,2").split(",")]
RULE = "--rule" in sys.argv
LO, HI = (int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--rows=")), "5,256").split(","))


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1).view(torch.uint8)


def draw(rng):
    size = int(rng.choice(SIZES))
    pack = 4 // size
    rows = int(math.exp(rng.uniform(math.log(LO), math.log(HI))))
    if rows % pack == 0 and "--odd" in sys.argv:
        rows += 1
    total = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20))) / size
    batch = int(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.25 else 1
    return size, batch, rows, int(total / batch / rows)


def with_join(plan, on: bool, gather: bool = True):
    for piece in plan.pieces:
        launch = piece[2]
        if "JOIN" in launch.constexprs:
            launch.constexprs = {**launch.constexprs, "JOIN": on,
                                 "NEXT_BY_GATHER": gather and launch.constexprs["NEXT_BY_GATHER"]}
            launch._compiled.clear()
    return plan


def plans_for(problem, rows):
    from cornerturn.engine.configs import InterleaveConfig, NarrowConfig, narrow_ok
    out = {}
    current = engine.choose(problem, "cuda:0")
    out["current " + current.name] = current
    from cornerturn.engine.configs import interleave_ok
    if not interleave_ok(problem):
        return out
    if "--rule" in sys.argv:  # the plan before the rule: narrow (2-8 byte rows), element tiles (bytes, <= 8 rows)
        from cornerturn.engine.configs import MAX_BLOCK, TileConfig
        if rows <= 8 and narrow_ok(problem):
            old = build(problem, 4, NarrowConfig())
        elif rows <= 8:
            old = build(problem, 1, TileConfig(_pow2_at_least(rows), MAX_BLOCK, 8))
        else:
            old = build(problem, 4, heuristic(problem, 4))
        out["old " + old.name] = old
        return out
    for cw, w in ((64, 2), (128, 4), (256, 4), (256, 8)):
        out[f"staged {cw}-{w}"] = build(problem, 4, InterleaveConfig(cw, w))
    if narrow_ok(problem):
        out["narrow 1024-4"] = build(problem, 4, NarrowConfig(1024, 4))
    return out


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


def case(size, batch, m, n, rounded=False):
    shape = (batch, m, n) if batch > 1 else (m, n)
    strides = tuple(size * s for s in ((m * n, n, 1) if batch > 1 else (n, 1)))
    problem = canonical(shape, strides, size)
    dtype = {1: torch.uint8, 2: torch.int16}[size]
    x = torch.randint(0, 256, (*shape[:-1], size * n), dtype=torch.uint8, device="cuda").view(dtype)
    want = x.transpose(-1, -2).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    plans = {"current " + engine.choose(problem, "cuda:0").name: engine.choose(problem, "cuda:0")} if rounded \
        else plans_for(problem, m)
    exact = {}
    for name, p in plans.items():
        o.view(torch.uint8).fill_(0xA5)
        engine.run(p, xv, ov)
        exact[name] = torch.equal(bits(o), bits(want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.transpose(-1, -2))}
    fns.update({name: (lambda p=p: engine.run(p, xv, ov)) for name, p in plans.items()})
    med = timed(fns)
    return {"case": f"{str(dtype)[6:]} " + "x".join(map(str, shape)), "size": size, "batch": batch, "rows": m,
            "cols": n, "exact": exact,
            "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    shapes = list(NAMED) if "--named" in sys.argv else []
    shapes += [draw(rng) for _ in range(cases)]
    rows_out = []
    t0 = time.time()
    for size, batch, m, n in shapes:
        row = case(size, batch, m, n)
        pack = 4 // size
        rounded = case(size, batch, -(-m // pack) * pack, n, rounded=True)["pct"]
        row["rounded"] = next(v for k, v in rounded.items() if k.startswith("current"))
        pct = row["pct"]
        cur = next(k for k in pct if k.startswith("current"))
        kinds = ("old",) if "--rule" in sys.argv else ("staged", "narrow")
        best = {kind: max((v, k) for k, v in pct.items() if k.startswith(kind)) for kind in kinds
                if any(k.startswith(kind) for k in pct)}
        if not best:
            best = {"current": (pct[cur], cur)}
        print(f"{time.time() - t0:5.0f}s {row['case']:26s} cur {pct[cur]:5.1f} ({cur[8:]}) "
              + " ".join(f"{kind} {v:5.1f} ({k.split(' ')[1]})" for kind, (v, k) in best.items())
              + f" rounded {row['rounded']:5.1f} torch {pct['torch']:5.1f}"
              + "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e),
              flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
