"""Probe: batches of small matrices (both sides short), the planner's plan against transpose_gather (the output as one
flat run, each element gathered from its matrix) in a few program sizes; matrices drawn from a seed (sides
log-uniform from 2 to MAX_SIDE, element sizes given, 64-512 MiB a case); every plan checked bit for bit against
torch's transpose, timed with torch and a copy of the same bytes in interleaved rounds.

    python3 scripts/small_matrices_probe.py OUT.json SEED CASES [--sizes=4,8,16] [--max-side=128] [--dry] [--rule]

With --rule, only the matrices the planner now moves in transpose_gather (engine.configs.small_matrices): its plan
against the plan without that rule.
"""

import json
import math
import sys
import time

import numpy as np

from cornerturn.engine.configs import GatherConfig, word_size
from cornerturn.problem import canonical

DRY = "--dry" in sys.argv
RULE = "--rule" in sys.argv
SIZES = [int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--sizes=")), "4,8,16").split(",")]
MAX_SIDE = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--max-side=")), "128"))
GATHERS = (GatherConfig(1024, 4), GatherConfig(2048, 4), GatherConfig(4096, 8))
DTYPES = {1: "uint8", 2: "float16", 4: "float32", 8: "float64", 16: "complex128"}


def draw(seed: int, cases: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(cases):
        size = int(rng.choice(SIZES))
        rows, cols = (int(round(math.exp(rng.uniform(math.log(2), math.log(MAX_SIDE))))) for _ in range(2))
        nbytes = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20)))
        batch = max(1, int(nbytes // (rows * cols * size)))
        out.append((DTYPES[size], size, (batch, rows, cols)))
    return out


def plans(size, shape):
    from cornerturn import engine

    strides = (shape[1] * shape[2] * size, shape[2] * size, size)
    problem = canonical(shape, strides, size)
    from cornerturn.engine import configs

    configs.GATHER_SMALL = not RULE
    engine.choose.cache_clear()
    planned = engine.choose(problem, "cuda:0")
    configs.GATHER_SMALL = True
    engine.choose.cache_clear()
    if RULE:
        ruled = engine.choose(problem, "cuda:0")
        return problem, planned, [ruled] if ruled.config != planned.config else None
    word = word_size(problem)
    from cornerturn.engine.plan import build

    return problem, planned, [build(problem, word, c) for c in GATHERS]


def run_case(name, dtype, size, shape, planned, gathers) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = math.prod(shape) * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for label, p in (("plan", planned), *((g.config.name, g) for g in gathers)):
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
    fns["torch"] = lambda: x.transpose(-1, -2).contiguous()
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    return {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}


def main() -> None:
    path, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = []
    for dtype, size, shape in draw(seed, cases):
        problem, planned, gathers = plans(size, shape)
        if gathers is None:  # --rule: a plan the rule leaves
            continue
        name = f"{dtype} {shape[0]} x ({shape[1]}x{shape[2]})"
        if DRY:
            print(f"{name:36s} {planned.config.name}")
            continue
        pct = run_case(name, dtype, size, shape, planned, gathers)
        rows.append({"case": name, "shape": list(shape), "itemsize": size, "plan": planned.config.name, "pct": pct})
        print(f"{name:36s} {planned.config.name:20s} " + " ".join(f"{k} {v:5.1f}" for k, v in pct.items()),
              flush=True)
    if not DRY:
        import torch

        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/small_matrices_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
