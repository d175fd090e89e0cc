"""Probe: permute_words told where its rows and output runs start (IN_ALIGN, OUT_ALIGN: loads and stores widen to
vectors) against the same plan not told, on the permute suite's random 1-byte cases that the planner gives
permute_words; and 2-byte permutations in permute_words (words_sides with 2-byte elements), told and not, against
the planner's element tiles. Every plan bit-exact against torch into a poisoned output first, then timed with torch
and the copy in interleaved CUDA-event rounds.

    python scripts/words_align_probe.py FIRST_SEED LAST_SEED MAX_CASES_PER_SIZE OUT.json
"""

from __future__ import annotations

import json
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import suite
from cornerturn.engine import permute
from cornerturn.engine.launch import Launch
from cornerturn.problem import Permutation, canonical_permutation

TORCH = {1: torch.uint8, 2: torch.int16}


def untold(plan):
    """The plan with IN_ALIGN and OUT_ALIGN at 1 (the kernel before)."""
    launch = plan.pieces[0][2]
    c = dict(launch.constexprs, IN_ALIGN=1, OUT_ALIGN=1)
    copy = type(plan)(plan.problem, plan.config, plan.word, plan.reason)
    copy.pieces.append((0, 0, Launch(launch.kernel, launch.programs, launch.ints, c, launch.num_warps, launch.word)))
    return copy


def cases(first, last, most):
    found = []
    for seed in range(first, last + 1):
        for c in suite("permute", seed=seed, count=32, device="cuda")[-32:]:
            size = torch.empty(0, dtype=getattr(torch, c.dtype)).element_size()
            if c.axes is None or size > 2:
                continue
            strides, step = [], size
            for e in reversed(c.shape):
                strides.append(step)
                step *= e
            p = canonical_permutation(tuple(c.shape), tuple(reversed(strides)), size, tuple(c.axes))
            if not isinstance(p, Permutation):
                continue
            planner = engine.choose(p, "cuda:0")
            sides = permute.words_sides(p, sizes=(1, 2))
            if sides is None:
                continue
            words = permute._build_words(p, sides, None, "probe")
            constexprs = words.pieces[0][2].constexprs
            if size == 1 and (words.config != planner.config or max(constexprs["IN_ALIGN"],
                                                                       constexprs["OUT_ALIGN"]) == 1):
                continue  # the planner's plan is not this one, or nothing is told: the same kernel
            if size == 2 and (type(planner.config).__name__ != "PermuteConfig" or constexprs["OUT"] != 0):
                continue  # 2-byte: where the element tiles move it and its output runs are whole words
            if sum(1 for f in found if f[3] == size) < most:
                found.append((seed, c, p, size, planner, words))
            if len(found) == 2 * most:
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


def measure(seed, c, p, size, planner, words):
    dtype = TORCH[size]
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, tuple(c.shape), dtype=dtype, device="cuda")
    want = x.permute(*c.axes).contiguous()
    o = torch.empty_like(want)
    xv, ov = view_of(x), view_of(o)
    plans = {"told": words, "untold": untold(words)}
    if size == 2:
        plans["planner"] = planner
    exact = {}
    for name, plan in plans.items():
        o.fill_(-93 if size == 1 else -23131)
        engine.run(plan, xv, ov)
        exact[name] = bool(torch.equal(o, want))
    d = torch.empty_like(x)
    fns = {"copy": lambda: d.copy_(x), "torch": lambda: o.copy_(x.permute(*c.axes))}
    fns.update({name: (lambda plan=plan: engine.run(plan, xv, ov)) for name, plan in plans.items()})
    med = timed(fns)
    k = words.pieces[0][2].constexprs
    return {"case": c.name, "seed": seed, "problem": repr(p), "size": size, "words": words.config.name,
            "planner": planner.config.name, "OUT": k["OUT"], "IN_WORDS": k["IN_WORDS"], "IN_ALIGN": k["IN_ALIGN"],
            "OUT_ALIGN": k["OUT_ALIGN"], "exact": exact,
            "pct": {n: round(100 * med["copy"] / v, 1) for n, v in med.items() if n != "copy"}}


def main() -> None:
    first, last, most, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rows = []
    t0 = time.time()
    for seed, c, p, size, planner, words in cases(first, last, most):
        row = measure(seed, c, p, size, planner, words)
        print(f"{time.time() - t0:5.0f}s {row['case']:44s} {row['words']:22s} OUT {row['OUT']} in {row['IN_ALIGN']:2d} "
              f"out {row['OUT_ALIGN']:2d} " + " ".join(f"{k} {v:5.1f}" for k, v in row["pct"].items()) +
              "".join(f" NOT EXACT {k}" for k, e in row["exact"].items() if not e), flush=True)
        rows.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
