"""Probe: batches of small matrices of 1- and 2-byte elements (2-31 rows of 16-2,048 bytes) that the skinny rule gives
transpose_interleave, whose programs of 128-512 words a row are wider than the matrices' rows. The plan against the
same kernel in programs of 32-256 words (2 and 4 warps), the heuristic's words tile and transpose_gather (1,024-4,096
elements a program, in the elements' own words), each checked bit for bit against torch's transpose into a poisoned
output, timed in interleaved rounds with a device copy of the same bytes.

    python3 scripts/interleave_width_probe.py OUT.json SEED CASES [rule]

With `rule`: the planner's plan with configs.SHORT_ROWS (the rule) against the plan before it, on the draws it changes.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

from cornerturn.engine import configs
from cornerturn.engine.configs import GatherConfig, InterleaveConfig, heuristic, skinny, word_size
from cornerturn.engine.plan import build
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical

DTYPES = {1: torch.uint8, 2: torch.int16}
WIDTHS = ((32, 2), (64, 2), (64, 4), (128, 4), (256, 4))
GATHERS = ((1024, 4), (2048, 4), (4096, 8))


def draw(rng: np.random.Generator):
    itemsize = int(rng.choice([1, 2]))
    rows = int(round(math.exp(rng.uniform(math.log(2), math.log(31)))))
    cols = int(round(math.exp(rng.uniform(math.log(16), math.log(2048))))) // itemsize
    total = math.exp(rng.uniform(math.log(32 << 20), math.log(256 << 20)))
    batch = max(2, int(total // (rows * cols * itemsize)))
    return itemsize, (batch, rows, cols)


def candidates(problem, rule):
    words = math.ceil(problem.cols * problem.itemsize / 4)
    found = {f"plan {rule.name}": (4, rule)}
    for width, warps in WIDTHS:
        if width < rule.block_cw and width < 4 * words:
            found[f"interleave{width}-w{warps}"] = (4, InterleaveConfig(width, warps))
    found[f"heuristic {heuristic(problem, 4).name}"] = (4, heuristic(problem, 4))
    for block, warps in GATHERS:
        found[f"gather{block}-w{warps}"] = (word_size(problem), GatherConfig(block, warps))
    return found


def rule_and_before(problem):
    """The skinny rule's plan with SHORT_ROWS (the rule) and without (the plan before), or None where they agree."""
    configs.SHORT_ROWS = False
    before = skinny(problem)
    configs.SHORT_ROWS = True
    rule = skinny(problem)
    if before is None or rule is None or rule[1] == before[1]:
        return None
    return {f"rule {rule[1].name}": rule[:2], f"before {before[1].name}": before[:2]}


def measure(itemsize: int, shape: tuple[int, ...], mode: str) -> dict | None:
    strides = (shape[1] * shape[2] * itemsize, shape[2] * itemsize, itemsize)
    problem = canonical(shape, strides, itemsize)
    words = math.ceil(problem.cols * itemsize / 4)
    if mode == "rule":
        plans = rule_and_before(problem)
        if plans is None:
            return None
    else:
        hit = skinny(problem)
        if hit is None or not isinstance(hit[1], InterleaveConfig) or words >= hit[1].block_cw:
            return None
        plans = candidates(problem, hit[1])
    x = torch.randint(-30000, 30000, shape, dtype=torch.int32, device="cuda").to(DTYPES[itemsize])
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    copy_out = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    calls = {"copy": lambda: copy_out.copy_(x)}
    for name, (word, config) in plans.items():
        plan = build(problem, word, config, name)

        def call(plan=plan):
            for xo, oo, launch in plan.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)

        out.fill_(-91)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{name}: wrong result for {shape} of {itemsize}-byte elements")
        calls[name] = call
    calls["torch"] = lambda: out.copy_(x.transpose(-1, -2))
    times = time_cuda_rounds(calls, warmup=2, repeats=7)
    copy = times["copy"].median
    pct = {k: round(100 * copy / t.median, 1) for k, t in times.items() if k != "copy"}
    plan_name = next(k for k in pct if k.startswith(("plan", "before")))
    best = max((k for k in pct if k != "torch"), key=pct.get)
    return {"case": f"{DTYPES[itemsize]} {shape[0]} x ({shape[1]}x{shape[2]})", "words": words, "pct": pct,
            "plan": plan_name, "best": best, "best_over_plan": pct[best] / pct[plan_name]}


def main() -> None:
    out_path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    mode = sys.argv[4] if len(sys.argv) > 4 else "widths"  # "rule": SHORT_ROWS against the plans before
    rng = np.random.default_rng(seed)
    rows = []
    todo = [(1, (15780, 29, 174))]  # 20x789x29x174 by (0,1,3,2), seed 16202: 14% of the copy, torch 1.96x
    while len(rows) < count:
        itemsize, shape = todo.pop() if todo else draw(rng)
        row = measure(itemsize, shape, mode)
        if row is None:
            continue
        rows.append(row)
        print(f"{row['case']:34s} words {row['words']:4d} " + " ".join(f"{k}:{v}" for k, v in row["pct"].items()),
              flush=True)
    ratios = {}
    for row in rows:
        for k, v in row["pct"].items():
            if k.startswith(("interleave", "heuristic", "gather", "rule")):
                name = k.split()[0] if k.startswith(("heuristic", "rule")) else k
                ratios.setdefault(name, []).append(v / row["pct"][row["plan"]])
    summary = {k: {"cases": len(v), "geomean": math.exp(sum(map(math.log, v)) / len(v)), "min": min(v),
                   "max": max(v)} for k, v in ratios.items()}
    print(json.dumps(summary, indent=1))
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": torch.cuda.get_device_name(),
                   "seed": seed, "command": f"python3 scripts/interleave_width_probe.py OUT.json {seed} {count} {mode}",
                   "summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
