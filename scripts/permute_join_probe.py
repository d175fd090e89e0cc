"""Probe: byte permutations in permute_words whose output runs along A do not span whole words, from the permute
suite's random draws of the given seeds: the planner's plan, and its words tile with the runs written element by
element ("items"), shifted into place ("shifted") and shifted with runs end to end joined ("joined"); each bit-exact
first, then timed in interleaved CUDA-event rounds with torch and the copy.

    python scripts/permute_join_probe.py --seeds 3000-3040 --out OUT.json [--max-cases N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np
import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import RANDOM_DTYPES, random_permutations
from cornerturn.engine import permute
from cornerturn.problem import Permutation, canonical_permutation


def seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-cases", type=int, default=60)
    args = ap.parse_args()
    rows, t0 = [], time.time()
    for seed in seeds(args.seeds):
        for case in random_permutations(seed, 32, "cuda"):
            if len(rows) >= args.max_cases:
                break
            if case.dtype not in RANDOM_DTYPES[1]:  # bytes only (moved as uint8: the same bits)
                continue
            size = 1
            strides = tuple(int(s) for s in np.cumprod((1, *case.shape[::-1]))[-2::-1])
            p = canonical_permutation(case.shape, strides, size, case.axes)
            if not isinstance(p, Permutation) or permute.natural_word(p) != 4 or not permute.words_ok(p):
                continue
            sides = permute.words_sides(p)
            if sides.size_a * size % 4 == 0:
                continue
            current = engine.choose(p, "cuda:0")
            base = permute.words_config(sides)
            plans = {"current " + current.name: current}
            for out in ("items", "shifted", "joined"):
                cfg = dataclasses.replace(base, out=out)
                plans[f"{out} {cfg.name}"] = permute.build(p, 4, cfg)
            x = torch.randint(0, 256, case.shape, dtype=torch.uint8, device="cuda")
            want = x.permute(case.axes).contiguous()
            o = torch.empty_like(want)
            xv, ov = view_of(x), view_of(o)
            exact = {}
            for name, plan in plans.items():
                o.fill_(0xA5)
                engine.run(plan, xv, ov)
                exact[name] = bool(torch.equal(o, want))
            d = torch.empty_like(x)
            axes = case.axes
            fns = {"copy": lambda d=d, x=x: d.copy_(x), "torch": lambda o=o, x=x, axes=axes: o.copy_(x.permute(axes))}
            fns.update({name: (lambda plan=plan, xv=xv, ov=ov: engine.run(plan, xv, ov))
                        for name, plan in plans.items()})
            med = timed(fns)
            row = {"seed": seed, "case": f"{case.dtype} {'x'.join(map(str, case.shape))} {case.axes}",
                   "size_a": sides.size_a, "b0_out_stride": sides.b[0].out_stride, "exact": exact,
                   "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}
            rows.append(row)
            pct = row["pct"]
            print(f"{time.time() - t0:5.0f}s {row['case']:44s} A={sides.size_a:4d} end-to-end="
                  f"{int(sides.b[0].out_stride == sides.size_a)} " + " ".join(f"{k.split(' ')[0]} {v:5.1f}"
                                                                             for k, v in pct.items())
                  + "".join(f" NOT EXACT {k}" for k, e in exact.items() if not e), flush=True)
            with open(args.out, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
