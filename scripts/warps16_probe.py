"""Probe: words tiles on 16 warps (128 x 64, 256 x 32, 256 x 64, 512 x 16, 512 x 32 words; longer output pieces at
128 registers or fewer) against the planner's plan, on the 1- and 2-byte matrices the random suite draws from the
given seeds; every plan checked bit for bit against torch's transpose, timed with a copy of the same bytes in
interleaved rounds (L2 flushed before each sample).

    python3 scripts/warps16_probe.py OUT.json SEED [SEED ...] [--cases=64] [--rows=LO:HI]
"""

import json
import sys
import time

import torch

from cornerturn.bench.suites import random_cases
from cornerturn.engine import choose
from cornerturn.engine.configs import WordsConfig
from cornerturn.engine.plan import build
from cornerturn.engine.table import class_of
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.engine.tune import config_to_dict
from cornerturn.problem import canonical

CANDIDATES = [WordsConfig(br, bcw, 16) for br, bcw in ((128, 64), (256, 32), (256, 64), (512, 16), (512, 32))]
# --rows=LO:HI: matrices of LO to HI rows (wide ones), and tiles that cover all their rows
ROW_CANDIDATES = [WordsConfig(512, 16, 8), WordsConfig(512, 16, 16), WordsConfig(512, 32, 16), WordsConfig(1024, 8, 16),
                  WordsConfig(1024, 16, 16)]


def few_rows_cases(seed: int, count: int, lo: int, hi: int):
    """`count` 1- and 2-byte matrices of lo to hi rows (log-uniform), 64-768 MiB, a quarter batched."""
    import math

    import numpy as np

    from cornerturn.bench.suites import Case

    rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        dtype = str(rng.choice(["uint8", "int8", "float8_e4m3fn", "float16", "bfloat16", "int16"]))
        size = 1 if "8" in dtype else 2
        nbytes = math.exp(rng.uniform(math.log(64 << 20), math.log(768 << 20)))
        rows = int(math.exp(rng.uniform(math.log(lo), math.log(hi))))
        batch = int(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.25 else 1
        cols = int(nbytes / size / rows / batch)
        found.append(Case((batch, rows, cols) if batch > 1 else (rows, cols), dtype))
    return found


def run_case(case, candidates) -> dict:
    dtype = getattr(torch, case.dtype)
    size = case.itemsize
    shape = case.shape
    x = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = x.view(torch.uint8)[: case.nbytes].view(dtype).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    problem = canonical(tuple(shape), tuple(s * size for s in x.stride()), size)
    chosen = choose(problem, "cuda:0")
    stream = torch.cuda.current_stream().cuda_stream
    plans = {"plan": chosen}
    for c in candidates:
        plans[c.name] = build(problem, 4, c)
    fns = {}
    for name, p in plans.items():
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{case.name} {name}: wrong result")
        fns[name] = call
    copy_dst = torch.empty_like(x)
    fns["copy"] = lambda: copy_dst.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    copy = t["copy"].median
    pct = {n: round(100 * copy / v.median, 1) for n, v in t.items() if n != "copy"}
    return {"case": case.name, "class": class_of(problem), "plan": chosen.config.name,
            "plan_config": config_to_dict(chosen.config), "pct": pct}


def main() -> None:
    path = sys.argv[1]
    seeds = [int(a) for a in sys.argv[2:] if not a.startswith("--")]
    opts = dict(a.lstrip("-").split("=") for a in sys.argv[2:] if a.startswith("--"))
    count = int(opts.get("cases", "64"))
    rows = []
    few = tuple(int(v) for v in opts["rows"].split(":")) if "rows" in opts else None
    candidates = ROW_CANDIDATES if few else CANDIDATES
    for seed in seeds:
        for case in (few_rows_cases(seed, count, *few) if few else random_cases(seed, count, "cuda")):
            if case.itemsize > 2:
                continue
            r = run_case(case, candidates)
            r["seed"] = seed
            rows.append(r)
            best = max((v, n) for n, v in r["pct"].items() if n != "plan")
            print(f"{seed} {r['case']:28s} {r['class']:18s} plan {r['plan']:24s} {r['pct']['plan']:5.1f}% | best16 "
                  f"{best[1]} {best[0]:5.1f}% | " + " ".join(f"{v:5.1f}" for n, v in r["pct"].items() if n != "plan"),
                  flush=True)
            torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/warps16_probe.py " + " ".join(sys.argv[1:]),
                   "candidates": [c.name for c in candidates], "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
