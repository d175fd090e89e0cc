"""Probe: transpose_words programs that take several tiles along the input rows (WordsConfig.steps), so that the
sector two neighbouring tiles of a row share is read by one program (from its L1) instead of two. The planner's
plan against the same tile with 2-16 steps and a few taller or narrower tiles with steps, on the 1- and 2-byte cases
of random suites and a few named ones; every plan bit-exact first, then timed in interleaved rounds (L2 flushed)
against torch's copy of the same bytes.

    python scripts/words_steps_probe.py --seeds 31337,5252 --out OUT.json [--named] [--quick]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import random_cases
from cornerturn.dtypes import itemsize_of
from cornerturn.engine.configs import WordsConfig
from cornerturn.engine.plan import build
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical

NAMED = [("uint8", (182314, 1673)), ("uint8", (771864, 905)), ("int16", (477055, 508)), ("int8", (16383, 16385)),
         ("float16", (16383, 16385)), ("uint8", (10171, 25381)), ("uint8", (825737, 545))]


def variants(c: WordsConfig, quick: bool) -> dict[str, WordsConfig]:
    out = {}
    for s in ((4, 8) if quick else (2, 4, 8, 16)):
        out[f"same-s{s}"] = WordsConfig(c.block_r, c.block_cw, c.num_warps, c.out, s)
    if not quick:
        for br, cw, w, s in ((256, 16, 8, 8), (256, 8, 8, 16), (512, 8, 8, 16), (256, 32, 8, 4), (128, 16, 4, 8),
                             (512, 16, 8, 8)):
            out[f"{br}x{cw}-w{w}-s{s}"] = WordsConfig(br, cw, w, c.out, s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="31337")
    ap.add_argument("--cases", type=int, default=64)
    ap.add_argument("--out", required=True)
    ap.add_argument("--named", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--limit", type=int, default=1000)
    a = ap.parse_args()
    cases = [(d, s) for d, s in NAMED] if a.named else []
    for seed in (int(v) for v in a.seeds.split(",") if v):
        cases += [(c.dtype, c.shape) for c in random_cases(seed, a.cases, "cuda") if c.itemsize in (1, 2)]
    rows_out, t0 = [], time.time()
    for dtype_name, shape in cases[:a.limit]:
        size = itemsize_of(dtype_name)
        strides = []
        acc = size
        for e in reversed(shape):
            strides.insert(0, acc)
            acc *= e
        problem = canonical(shape, tuple(strides), size)
        current = engine.choose(problem, "cuda:0")
        if not isinstance(current.config, WordsConfig):
            print(f"skip {dtype_name} {shape}: {current.name}", flush=True)
            continue
        plans = {"current": current}
        for name, cfg in variants(current.config, a.quick).items():
            plans[name] = build(problem, 4, cfg)
        dtype = torch.uint8 if size == 1 else torch.int16
        x = torch.randint(0, 256, (*shape[:-1], size * shape[-1]), dtype=torch.uint8, device="cuda").view(dtype)
        want = x.transpose(-1, -2).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.view(torch.uint8).fill_(0xA5)
            engine.run(p, xv, ov)
            exact[name] = bool(torch.equal(o, want))
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s)}
        fns.update({name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()})
        med = {k: t.median for k, t in time_cuda_rounds(fns, repeats=7).items()}
        pct = {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}
        best = max(pct, key=pct.get)
        row = {"case": f"{dtype_name} {'x'.join(map(str, shape))}", "plan": current.name, "pct": pct, "exact": exact}
        rows_out.append(row)
        print(f"{time.time() - t0:6.0f}s {row['case']:26s} {current.name:24s} {pct['current']:5.1f} best "
              f"{pct[best]:5.1f} {best:16s} s4 {pct.get('same-s4', 0):5.1f} s8 {pct.get('same-s8', 0):5.1f}"
              f"{'' if all(exact.values()) else ' NOT EXACT'}", flush=True)
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seeds": a.seeds, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
