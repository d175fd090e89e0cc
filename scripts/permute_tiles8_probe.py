"""Probe: other base tiles for the general tiles of 8-byte words (engine.permute.TILES, narrowed to short sides by the
heuristic as the planner does), split by whether the tiles move 16-byte vectors, on random permutations of 8-byte
elements that take permute_tiles, drawn from the
permute suite's generator; every plan checked bit-exact, timed with the copy in interleaved rounds.

    python3 scripts/permute_tiles8_probe.py OUT.json SEED[,SEED...] [DRAWS] [rule]

Seed 0 stands for the named permute suite.
"""

import json
import math
import sys
import time

import torch

from cornerturn.bench.suites import PERMUTE, SUITES, random_permutations
from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import Permutation, canonical_permutation

W = 8
BASES = {"64x32": (64, 32, 0), "64x64": (64, 64, 0), "128x32": (128, 32, 0)}
RULE = len(sys.argv) > 4 and sys.argv[4] == "rule"  # the planner's plan against it without UNALIGNED_TILES[8]
if RULE:
    BASES = {"before": None}



def plans_of(perm) -> dict:
    plans = {"plan": permute.build(perm, W)}
    if RULE:
        rule = permute.UNALIGNED_TILES
        permute.UNALIGNED_TILES = {k: v for k, v in rule.items() if k != W}
        try:
            plans["before"] = permute.build(perm, W)
        finally:
            permute.UNALIGNED_TILES = rule
        return plans
    default = permute.TILES.get(W)
    try:
        for name, base in BASES.items():
            permute.TILES[W] = base
            plans[name] = permute.build(perm, W)
    finally:
        if default is None:
            permute.TILES.pop(W, None)
        else:
            permute.TILES[W] = default
    return plans


def measure(case) -> dict | None:
    dtype = getattr(torch, case.dtype)
    if dtype.itemsize != W:
        return None
    shape, axes = case.shape, case.axes
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    perm = canonical_permutation(tuple(shape), tuple(W * s for s in strides), W, tuple(axes))
    if not isinstance(perm, Permutation) or permute.natural_word(perm) != W:
        return None
    plans = plans_of(perm)
    if not isinstance(plans["plan"].config, permute.PermuteConfig):
        return None
    raw = torch.randint(-2**62, 2**62, shape, dtype=torch.int64, device="cuda")
    want = raw.permute(*axes).contiguous()
    out, copy = torch.empty_like(want), torch.empty_like(raw)
    stream = torch.cuda.current_stream().cuda_stream
    calls, exact, names = {"copy": lambda: copy.copy_(raw)}, {}, {}
    for key, plan in plans.items():
        def call(plan=plan):
            for xo, oo, launch in plan.pieces:
                launch.run_pointers(raw.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.fill_(-91)
        call()
        torch.cuda.synchronize()
        exact[key] = bool(torch.equal(out, want))
        names[key] = plan.name
        if exact[key]:
            calls[key] = call
    t = time_cuda_rounds(calls, repeats=7)
    pct = {k: round(100 * t["copy"].median / v.median, 1) for k, v in t.items() if k != "copy"}
    vectors = permute._in_vectors(plans["before" if RULE else "plan"].pieces[0][2])
    return {"vectors": vectors, "case": f"{case.dtype} {'x'.join(map(str, shape))} {tuple(axes)}", "names": names,
            "pct": pct, "exact": exact}


def main() -> None:
    out_path, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
    draws = int(sys.argv[3]) if len(sys.argv) > 3 else 160
    rows = []
    for seed in seeds:
        for case in (SUITES[PERMUTE] if seed == 0 else random_permutations(seed, draws, "cuda")):
            row = measure(case)
            if row is not None:
                row["seed"] = seed
                rows.append(row)
                print(seed, row["case"], row["names"]["plan"], row["pct"], flush=True)
    summary = {}
    for seed in ("vectors", "no vectors"):
        mine = [r for r in rows if r["vectors"] == (seed == "vectors") and "plan" in r["pct"]]
        for name in BASES:
            ratios = [r["pct"][name] / r["pct"]["plan"] for r in mine if name in r["pct"]]
            if ratios:
                summary[f"{seed} {name}"] = {
                    "cases": len(ratios), "geomean": round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 3),
                    "min": round(min(ratios), 3), "max": round(max(ratios), 3),
                    "behind_2pct": sum(x < 0.98 for x in ratios), "ahead_2pct": sum(x > 1.02 for x in ratios)}
            print(seed, name, summary.get(f"{seed} {name}"), flush=True)
    with open(out_path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": rows, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
