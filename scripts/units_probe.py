"""Probe: permutations whose unit contiguous on both sides (the input's fastest axis, kept last) holds 16 to 127 bytes
(or --units, of an odd number of elements with --odd), which the planner leaves to the element tiles (permute_runs
takes units of RUN_MIN bytes or more, permute_runs_words 1-byte elements only). Against the planner's plan:
permute_runs in the natural word (its span both ways) and permute_runs_words (units in funnel-shifted 32-bit words).
Permutations drawn from a seed (rank 3 to 5, element sizes 1, 2, 4 and 8 bytes, the unit's bytes log-uniform, 32-512
MiB), every plan checked bit for bit against torch's permute into a poisoned output, timed with torch and a copy of
the same bytes in interleaved rounds.

    python3 scripts/units_probe.py OUT.json SEED CASES [--sizes=2,4] [--units=LOW,HIGH] [--odd] [--rule] [--dry]
"""

import dataclasses
import json
import math
import sys
import time

import numpy as np

from cornerturn.problem import Permutation, canonical_permutation
from cornerturn.tiling import element_bytes

DRY = "--dry" in sys.argv
SIZES = [int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--sizes=")), "1,2,4,8").split(",")]
DTYPES = {1: "uint8", 2: "bfloat16", 4: "float32", 8: "float64"}
UNIT_BYTES = tuple(int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--units=")),
                                         "16,128").split(","))
ODD = "--odd" in sys.argv  # units of an odd number of elements only
RULE = "--rule" in sys.argv  # only where permute.ODD_RUN_MIN changes the plan: the plan without it against the plan


def draw(seed: int, cases: int):
    """(dtype, size, shape, axes, perm) of each drawn permutation whose canonical form keeps a unit of UNIT_BYTES."""
    rng = np.random.default_rng(seed)
    out, tries = [], 0
    while len(out) < cases and tries < 100 * cases:
        tries += 1
        size = int(rng.choice(SIZES))
        unit = max(1, round(math.exp(rng.uniform(math.log(UNIT_BYTES[0]), math.log(UNIT_BYTES[1] - 0.5)))) // size)
        unit |= ODD
        rank = int(rng.integers(3, 6))
        elements = math.exp(rng.uniform(math.log(32 << 20), math.log(512 << 20))) / size / unit
        weights = rng.random(rank - 1) + 0.1
        logs = math.log(elements / 2 ** (rank - 1)) * weights / weights.sum()
        shape = (*(max(2, round(2 * math.exp(v))) for v in logs), unit)
        axes = (*(int(a) for a in rng.permutation(rank - 1)), rank - 1)
        if axes == tuple(range(rank)):
            continue
        strides = tuple(math.prod(shape[i + 1:]) * size for i in range(rank))
        perm = canonical_permutation(shape, strides, size, axes)
        if not isinstance(perm, Permutation) or not UNIT_BYTES[0] <= element_bytes(perm) < UNIT_BYTES[1]:
            continue
        out.append((DTYPES[size], size, shape, axes, perm))
    return out


def plans(perm):
    from cornerturn import engine
    from cornerturn.engine import permute
    from cornerturn.engine.permute import ShiftedRunsConfig, has_unit, natural_word, shifted_runs_fit

    planned = engine.choose(perm, "cuda:0")
    if RULE:
        rule, permute.ODD_RUN_MIN = permute.ODD_RUN_MIN, 1 << 30
        engine.choose.cache_clear()
        before = engine.choose(perm, "cuda:0")
        permute.ODD_RUN_MIN = rule
        engine.choose.cache_clear()
        return before, ({"rule": planned} if planned.config != before.config else None)
    others = {}
    word = natural_word(perm)
    if has_unit(perm, word):
        runs = permute._build_runs(perm, word, None, None)
        others[f"runs{word}"] = runs
        flipped = dataclasses.replace(runs.config, span=not runs.config.span)
        others[f"runs{word}-" + ("span" if flipped.span else "along")] = permute.build(perm, word, flipped)
    for block in (1024, 2048):
        if shifted_runs_fit(perm, block):
            others[f"sruns{block}"] = permute.build(perm, 4, ShiftedRunsConfig(block, 4))
    return planned, {k: v for k, v in others.items() if v.config != planned.config or v.word != planned.word}


def run_case(name, dtype, size, shape, axes, planned, others) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = math.prod(shape) * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.permute(*axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for label, p in (("plan", planned), *others.items()):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{name} {label}: wrong result")
        fns[label] = call
    copy_to = torch.empty_like(x)
    fns["torch"] = lambda: x.permute(*axes).contiguous()
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    return {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}


def write_rows(path: str, script: str, rows: list) -> None:
    """The rows so far, after every case, so that a run cut short keeps what it measured."""
    import torch

    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": f"python3 scripts/{script}.py " + " ".join(sys.argv[1:]), "rows": rows}, f, indent=1)


def main() -> None:
    path, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = []
    for dtype, size, shape, axes, perm in draw(seed, cases):
        name = f"{dtype} {'x'.join(map(str, shape))} ({','.join(map(str, axes))})"
        if DRY:
            print(f"{name:44s} unit {element_bytes(perm)} B, {len(perm.extents)} axes")
            continue
        planned, others = plans(perm)
        if others is None:  # --rule: a plan the rule leaves
            continue
        pct = run_case(name, dtype, size, shape, axes, planned, others)
        rows.append({"case": name, "shape": list(shape), "axes": list(axes), "itemsize": size,
                     "unit_bytes": element_bytes(perm), "plan": f"{planned.config.name} ({planned.word} B)",
                     "pct": pct})
        write_rows(path, "units_probe", rows)
        print(f"{name:44s} unit {element_bytes(perm):3d} B {planned.config.name:24s} "
              + " ".join(f"{k} {v:5.1f}" for k, v in pct.items()), flush=True)


if __name__ == "__main__":
    main()
