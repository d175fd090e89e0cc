"""Probe: units contiguous on both sides of more than 4 KiB moved in pieces (permute_runs) against the tile kernel,
on random permutations that keep the last axis last (and the permute suite's cases that have such a unit).

Every plan's output is checked bit for bit against torch, then the tile plan, the runs plans, torch's permute and a
torch copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_runs_probe.py --seed S --cases N [--suite-seeds 23,97] --out $OUT/runs.json
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import torch

from cornerturn import problem
from cornerturn.arrays import view_of
from cornerturn.bench.suites import _log_uniform, random_permutations
from cornerturn.engine import permute as ep
from cornerturn.engine.runtime import run_views
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.tiling import split

ITEMSIZE = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float16": 2, "bfloat16": 2, "int16": 2, "float32": 4,
            "int32": 4, "float64": 8, "int64": 8, "complex64": 8, "complex128": 16}
INT = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}
RUNS = [ep.RunsConfig(1024, 4), ep.RunsConfig(2048, 8), ep.RunsConfig(4096, 8), ep.RunsConfig(4096, 16)]
PLAN_ONLY = False  # --plan: the tiles against the planner's own choice only


def canonical(shape, itemsize, axes):
    strides = [itemsize]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), itemsize, tuple(axes))


LO, HI = 4097, 1 << 20  # unit bytes drawn; --plan draws from RUN_MIN


def drawn(seed: int, count: int):
    """Random permutations keeping the last axis last: rank 3 to 5, the unit LO to HI bytes log-uniform."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        itemsize = int(rng.choice([1, 2, 4, 8, 16]))
        dtype = {1: "uint8", 2: "float16", 4: "float32", 8: "float64", 16: "complex128"}[itemsize]
        unit = max(2, round(_log_uniform(rng, max(2 * itemsize, LO), HI) / itemsize))
        elements = int(_log_uniform(rng, 32 << 20, 512 << 20)) // itemsize // unit
        rank = int(rng.integers(2, 5))
        weights = rng.random(rank) + 0.1
        logs = math.log(elements / 2**rank) * weights / weights.sum()
        shape = tuple(max(2, round(2 * math.exp(v))) for v in logs) + (unit,)
        axes = tuple(int(a) for a in rng.permutation(rank))
        while axes == tuple(range(rank)):
            axes = tuple(int(a) for a in rng.permutation(rank))
        yield shape, dtype, (*axes, rank)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--suite-seeds", default="")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    global PLAN_ONLY, LO
    PLAN_ONLY = args.plan
    LO = ep.RUN_MIN if args.plan else LO
    cases = list(drawn(args.seed, args.cases))
    for s in filter(None, args.suite_seeds.split(",")):
        cases += [(c.shape, c.dtype, c.axes) for c in random_permutations(int(s), 32, "cuda")]
    rows = []
    for shape, dtype, axes in cases:
        itemsize = ITEMSIZE[dtype]
        perm = canonical(shape, itemsize, axes)
        if not isinstance(perm, problem.Permutation):
            continue
        word = ep.natural_word(perm)
        if not (ep.runs_ok(perm, word) and (PLAN_ONLY or ep.element_bytes(perm) > 4096)):
            continue
        t0 = time.time()
        n = math.prod(shape)
        x = torch.randint(-128, 127, (n * itemsize,), dtype=torch.int8, device="cuda").view(INT[itemsize])
        x = x.view(*shape, 2) if itemsize == 16 else x.view(shape)
        ref = x.permute(*axes, *(range(len(shape), x.dim()))).contiguous()
        out = torch.empty_like(ref)
        copy = torch.empty_like(x)
        xv, ov = view_of(x.view(torch.int8)), view_of(out.view(torch.int8))
        fns, names, ok = {}, {}, {}
        tile = ep.heuristic(split(perm, word, max(16, ep.SIDE_BYTES // word)))
        for key, config in [("tile", tile)] + ([("plan", None)] if PLAN_ONLY else [(c.name, c) for c in RUNS]):
            try:
                plan = ep.build(perm, word, config)
            except ValueError:
                continue
            names[key] = plan.config.name
            out.view(torch.int8).fill_(0x5A)
            run_views(plan, xv, ov)
            torch.cuda.synchronize()
            ok[key] = bool(torch.equal(out, ref))
            fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
        fns["torch"] = lambda o=out, s=x, a=axes: o.copy_(s.permute(*a, *range(len(a), s.dim())))
        fns["copy"] = lambda c=copy, s=x: c.copy_(s)
        timed = time_cuda_rounds(fns, repeats=args.repeats)
        med = {k: t.median for k, t in timed.items()}
        pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
        rows.append({"shape": list(shape), "dtype": dtype, "axes": list(axes), "word": word,
                     "unit_words": ep.element_bytes(perm) // word, "plans": names, "ok": ok, "median_s": med,
                     "pct_of_copy": pct, "copy_gbps": 2 * n * itemsize / med["copy"] / 1e9})
        print(f"{dtype} {shape} {axes} unit {ep.element_bytes(perm)} B w{word} ok={all(ok.values())} "
              + " ".join(f"{k}:{v:.0f}" for k, v in pct.items()) + f" ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": f"python3 scripts/permute_runs_probe.py --seed {args.seed} --cases {args.cases} "
                       f"--suite-seeds {args.suite_seeds}" + (" --plan" if args.plan else ""), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
