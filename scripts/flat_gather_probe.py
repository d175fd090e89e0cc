"""Probe: general permutations moved as one flat run of the output (permute_gather: each lane splits its output
index into the axes' digits and loads that word) against the planner's plan, on the permute suite's random
permutations. Each plan is checked bit for bit against torch's permute into a poisoned output, then timed in
interleaved rounds with torch and a device copy of the same bytes. Each case also gets the sector model's figure:
the share of the 32-byte input sectors that a program's loads touch which it uses (sampled programs, the least).

    python3 scripts/flat_gather_probe.py OUT.json SEED[,SEED...] CASES [gather|rule] [MIN_USE]
    python3 scripts/flat_gather_probe.py OUT.json @FILE 0 [gather|rule]    (the cases named in FILE, one a line)
    python3 scripts/flat_gather_probe.py OUT.json inner:SEED CASES [gather|rule]

inner: batches of small blocks whose axes the output permutes among themselves, the batch's axes permuted too
(inner_cases: 2 or 3 inner axes of 2-64 elements, 16 B to 8 KiB a block; 2 to 4 batch axes; 32-512 MiB).

MIN_USE (default 0) leaves out the cases whose sector model's figure is below it.

With `rule`: the planner's plan with permute.GATHER (the rule) against the plan without it, on the cases it changes.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

from cornerturn.arrays import contiguous_strides
from cornerturn.bench.suites import RANDOM_DTYPES, Case, parse_case, random_permutations
from cornerturn.engine import permute
from cornerturn.engine.permute import PermuteGatherConfig, build, gather_fit, natural_word
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import Permutation, canonical_permutation

GATHERS = ((1024, 4), (2048, 8))
WORD_DTYPES = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def sector_use(perm: Permutation, block: int = 1024, samples: int = 8) -> float:
    """The least, over `samples` programs of `block` words spread over the output, of the bytes a program loads over
    the bytes of the 32-byte input sectors it touches."""
    word = permute.widest_word(perm)
    axes = permute.word_axes(perm, word)
    total = math.prod(a.extent for a in axes)
    use = 1.0
    for k in range(samples):
        start = (total // block) * k // samples * block
        o = np.arange(start, min(start + block, total), dtype=np.int64)
        src, q = np.zeros_like(o), o.copy()
        for a in reversed(axes):
            src += (q % a.extent) * a.in_stride
            q //= a.extent
        use = min(use, o.size * word / (32 * np.unique(src * word // 32).size))
    return use


def inner_cases(seed: int, count: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        itemsize = int(rng.choice(list(RANDOM_DTYPES)))
        dtype = str(rng.choice(RANDOM_DTYPES[itemsize]))
        k = int(rng.integers(2, 4))
        block = math.exp(rng.uniform(math.log(16), math.log(8192))) / itemsize
        weights = rng.random(k) + 0.2
        inner = [max(2, min(64, round(math.exp(math.log(max(block, 2 ** k)) * w / weights.sum())))) for w in weights]
        total = math.exp(rng.uniform(math.log(32 << 20), math.log(512 << 20))) / itemsize / math.prod(inner)
        nb = int(rng.integers(2, 5))
        weights = rng.random(nb) + 0.2
        batch = [max(2, round(math.exp(math.log(max(total, 2 ** nb)) * w / weights.sum()))) for w in weights]
        outer = tuple(int(a) for a in rng.permutation(nb))
        inside = tuple(nb + int(a) for a in rng.permutation(k))
        if inside == tuple(range(nb, nb + k)):
            continue
        found.append(Case((*batch, *inner), dtype, (*outer, *inside)))
    return found


def plans_of(perm: Permutation, mode: str) -> dict | None:
    natural = natural_word(perm)
    if mode == "rule":
        permute.GATHER = False
        before = build(perm, natural)
        permute.GATHER = True
        rule = build(perm, natural)
        if type(rule.config) is type(before.config) and rule.config == before.config:
            return None
        return {f"rule {rule.config.name}": rule, f"plan {before.config.name}": before}
    found = {f"plan {build(perm, natural).config.name}": build(perm, natural)}
    for block, warps in GATHERS:
        config = PermuteGatherConfig(block, warps)
        found[config.name] = build(perm, 0, config)
    return found


def measure(case, mode: str, min_use: float) -> dict | None:
    itemsize = next(size for size, names in RANDOM_DTYPES.items() if case.dtype in names)
    shape = case.shape
    perm = canonical_permutation(shape, contiguous_strides(shape, itemsize), itemsize, case.axes)
    if not isinstance(perm, Permutation) or not gather_fit(perm) or sector_use(perm) < min_use:
        return None
    plans = plans_of(perm, mode)
    if plans is None:
        return None
    nbytes = math.prod(shape) * itemsize
    raw = torch.randint(-2**31, 2**31 - 1, (nbytes // 4 + 1,), dtype=torch.int32, device="cuda")
    flat = raw.view(torch.uint8)[:nbytes]
    if itemsize == 16:  # as pairs of 8-byte words
        x, axes = flat.view(torch.int64).reshape(*shape, 2), (*case.axes, len(shape))
    else:
        x, axes = flat.view(WORD_DTYPES[itemsize]).reshape(shape), case.axes
    want = x.permute(axes).contiguous()
    out = torch.empty_like(want)
    copy_out = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    calls = {"copy": lambda: copy_out.copy_(x)}
    for name, plan in plans.items():
        def call(plan=plan):
            for xo, oo, launch in plan.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)

        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{name}: wrong result for {case}")
        calls[name] = call
    calls["torch"] = lambda: out.copy_(x.permute(axes))
    times = time_cuda_rounds(calls, warmup=2, repeats=7)
    copy = times["copy"].median
    pct = {k: round(100 * copy / t.median, 1) for k, t in times.items() if k != "copy"}
    plan_name = next(k for k in pct if k.startswith("plan"))
    label = f"{case.dtype} {'x'.join(map(str, shape))} ({','.join(map(str, case.axes))})"
    return {"case": label, "itemsize": itemsize, "axes": len(permute.word_axes(perm, permute.widest_word(perm))),
            "sector_use": round(sector_use(perm), 3), "plan": plan_name, "reason": plans[plan_name].reason,
            "pct": pct}


def main() -> None:
    out_path, count = sys.argv[1], int(sys.argv[3])
    if sys.argv[2].startswith("inner:"):
        named, seeds = inner_cases(int(sys.argv[2][6:]), count), [int(sys.argv[2][6:])]
    elif sys.argv[2].startswith("@"):
        with open(sys.argv[2][1:]) as f:
            named = [parse_case(line.strip()) for line in f if line.strip()]
        seeds = [0]
    else:
        named, seeds = None, [int(s) for s in sys.argv[2].split(",")]
    mode = sys.argv[4] if len(sys.argv) > 4 else "gather"
    min_use = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    rows = []
    for seed in seeds:
        for case in named or random_permutations(seed, count, "cuda"):
            row = measure(case, mode, min_use)
            if row is None:
                continue
            row["seed"] = seed
            rows.append(row)
            print(f"{row['case']:46s} use {row['sector_use']:.2f} " +
                  " ".join(f"{k}:{v}" for k, v in row["pct"].items()), flush=True)
    with open(out_path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": torch.cuda.get_device_name(),
                   "seeds": seeds, "command": f"python3 scripts/flat_gather_probe.py OUT.json {sys.argv[2]} {count} "
                   f"{mode} {min_use}", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
