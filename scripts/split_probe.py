"""Probe: matrices of a few columns of 1- or 2-byte elements whose rows lie end to end (pixels split into planes),
the planner's plan against transpose_split in a few program sizes; matrices drawn from a seed (columns log-uniform
from 2 to 31 bytes or 16 2-byte elements, 64-512 MiB, a quarter batched), and with --named a few chosen ones; every
plan checked bit for bit against torch's transpose into a poisoned output, timed with torch and a copy of the same
bytes in interleaved rounds.

    python3 scripts/split_probe.py OUT.json SEED CASES [--named] [--dry] [--configs=128x4,256x8] [--rule]
        [--shapes=uint8:BATCHxROWSxCOLS,...] [--cols=8,16]

With --rule, only the matrices the planner now moves in transpose_split: its plan against the plan without the rule.
With --cols, only matrices of those columns whose output rows start inside words (rows not a whole number of words),
the 1-byte ones of every column count given, the 2-byte ones of those up to SPLIT_MAX_COLS.
"""

import math
import sys

import numpy as np
from units_probe import run_case, write_rows  # the transpose as the permutation (0, 2, 1) of (batch, rows, cols)

from cornerturn.engine.configs import SPLIT_MAX_COLS, SplitConfig
from cornerturn.problem import canonical

DRY = "--dry" in sys.argv
RULE = "--rule" in sys.argv
NAMED = "--named" in sys.argv
CONFIGS = [SplitConfig(*map(int, c.split("x"))) for c in next(
    (a.split("=")[1] for a in sys.argv if a.startswith("--configs=")), "128x4,256x4,256x8,512x4,512x8").split(",")]
DTYPES = {1: "uint8", 2: "float16"}
SHAPES = [(d, 1 if d == "uint8" else 2, tuple(int(v) for v in s.split("x"))) for d, s in (
    c.split(":") for c in next((a.split("=")[1] for a in sys.argv if a.startswith("--shapes=")), "").split(",") if c)]
COLS = [int(c) for c in next((a.split("=")[1] for a in sys.argv if a.startswith("--cols=")), "").split(",") if c]
NAMED_CASES = [("uint8", 1, (1, 20486927, 3)), ("uint8", 1, (1, 19095989, 5)), ("uint8", 1, (64, 50176, 3)),
               ("uint8", 1, (1, 33554432, 4)), ("uint8", 1, (16, 51529, 3)), ("float16", 2, (1, 20476827, 3)),
               ("uint8", 1, (1, 75681474, 6)), ("uint8", 1, (1, 23885850, 9))]


def draw(seed: int, cases: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(cases):
        size = 1 if rng.random() < 0.65 else 2
        if COLS:
            choices = [c for c in COLS if c <= SPLIT_MAX_COLS[size]] or COLS
            size = size if choices != COLS or max(COLS) <= SPLIT_MAX_COLS[size] else 1
            cols = int(rng.choice(choices))
        else:
            cols = int(round(math.exp(rng.uniform(math.log(2), math.log(SPLIT_MAX_COLS[size] + 0.49)))))
        nbytes = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20)))
        batch = int(rng.integers(2, 65)) if rng.random() < 0.25 else 1
        rows = max(2, int(nbytes // (batch * cols * size)))
        if COLS and rows % (4 // size) == 0:
            rows += 1  # output rows inside words
        out.append((DTYPES[size], size, (batch, rows, cols)))
    return out


def plans(size, shape):
    from cornerturn import engine
    from cornerturn.engine import configs
    from cornerturn.engine.plan import build

    strides = (shape[1] * shape[2] * size, shape[2] * size, size)
    problem = canonical(shape, strides, size)
    configs.SPLIT_RULE = not RULE
    engine.choose.cache_clear()
    planned = engine.choose(problem, "cuda:0")
    configs.SPLIT_RULE = True
    engine.choose.cache_clear()
    if RULE:
        ruled = engine.choose(problem, "cuda:0")
        return problem, planned, [ruled] if ruled.config != planned.config else None
    return problem, planned, [build(problem, 4, c) for c in CONFIGS]


def main() -> None:
    path, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = []
    for dtype, size, shape in (NAMED_CASES if NAMED else []) + SHAPES + draw(seed, cases):
        problem, planned, others = plans(size, shape)
        if others is None:  # --rule: a plan the rule leaves
            continue
        name = f"{dtype} {shape[0]} x ({shape[1]}x{shape[2]})"
        if DRY:
            print(f"{name:36s} {planned.config.name}")
            continue
        pct = run_case(name, dtype, size, shape, (0, 2, 1), planned, {o.config.name: o for o in others})
        rows.append({"case": name, "shape": list(shape), "itemsize": size, "plan": planned.config.name, "pct": pct})
        write_rows(path, "split_probe", rows)
        print(f"{name:36s} {planned.config.name:22s} " + " ".join(f"{k} {v:5.1f}" for k, v in pct.items()),
              flush=True)


if __name__ == "__main__":
    main()
