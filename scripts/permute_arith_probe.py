"""Probe: permute_tiles with what the planner knows of its offsets written into the arithmetic, on the input side
(ARITH_IN, ALIGN_SB), the output side (ARITH_OUT, ALIGN_SA) or both (the compiler then widens loads or stores),
against the same plan with the hints as attributes only (the code before), on the general-tile permutations of
random permute suites and the named ones; every plan bit-exact, then timed in interleaved rounds (L2 flushed) with
torch and a copy of the same bytes.

    python scripts/permute_arith_probe.py --seeds 23,9494 --out OUT.json
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import SUITES, random_permutations
from cornerturn.engine.launch import Launch
from cornerturn.engine.permute_kernel import permute_tiles
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation

TORCH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}


VARIANTS = {"old": (False, False), "in": (True, False), "out": (False, True), "both": (True, True)}


def variant(plan, arith_in: bool, arith_out: bool):
    out = copy.copy(plan)
    out.pieces = []
    for xo, oo, launch in plan.pieces:
        if launch.kernel is permute_tiles:
            c = launch.constexprs
            launch = Launch(launch.kernel, launch.programs, launch.ints,
                            {**c, "ARITH_IN": arith_in, "ARITH_OUT": arith_out,
                             "ALIGN_SA": c["ALIGN_SA"] if arith_out else 1,
                             "ALIGN_SB": c["ALIGN_SB"] if arith_in else 1}, launch.num_warps, launch.word)
        out.pieces.append((xo, oo, launch))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="23")
    ap.add_argument("--cases", type=int, default=32)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    cases = list(SUITES["permute"])
    for seed in (int(v) for v in a.seeds.split(",") if v):
        cases += random_permutations(seed, a.cases, "cuda")
    rows, t0 = [], time.time()
    for case in cases:
        size = case.itemsize
        strides, acc = [], size
        for e in reversed(case.shape):
            strides.insert(0, acc)
            acc *= e
        perm = canonical_permutation(case.shape, tuple(strides), size, case.axes)
        new = engine.choose(perm, "cuda:0")
        if not any(launch.kernel is permute_tiles for _, _, launch in new.pieces):
            continue
        plans = {name: variant(new, *flags) for name, flags in VARIANTS.items()}
        plans["rule"] = variant(new, new.word <= 2, True)  # the rule the first run suggested
        n = math.prod(case.shape)
        x = torch.randint(0, 256, (n * size,), dtype=torch.uint8, device="cuda").view(TORCH[size]).view(case.shape)
        want = x.permute(case.axes).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.view(-1).view(torch.uint8).fill_(0xA5)
            engine.run(p, xv, ov)
            exact[name] = bool(torch.equal(o.view(-1).view(torch.uint8), want.view(-1).view(torch.uint8)))
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s),
               "torch": lambda d=o, s=x, ax=case.axes: d.copy_(s.permute(ax)),
               **{name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()}}
        med = {k: t.median for k, t in time_cuda_rounds(fns, repeats=7).items()}
        pct = {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}
        row = {"case": case.name, "plan": new.name, "word": new.word, "pct": pct, "exact": exact,
               "over_old": {k: round(med["old"] / med[k], 3) for k in (*VARIANTS, "rule")}}
        rows.append(row)
        print(f"{time.time() - t0:5.0f}s {case.name:46s} {new.name:18s} w{new.word:<2d} old {pct['old']:5.1f} in "
              f"{pct['in']:5.1f} out {pct['out']:5.1f} both {pct['both']:5.1f} rule {pct['rule']:5.1f} "
              f"torch {pct['torch']:5.1f}"
              f"{'' if all(exact.values()) else ' NOT EXACT'}", flush=True)
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seeds": a.seeds, "rows": rows}, f, indent=1)
    for k in (*VARIANTS, "rule"):
        for word in sorted({r["word"] for r in rows}) + [0]:
            ratios = [r["over_old"][k] for r in rows if word in (0, r["word"])]
            g = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
            print(f"{k:5s} word {word or 'all'}: {len(ratios)} cases, over old geomean {g:.3f}x, "
                  f"min {min(ratios):.2f}x, max {max(ratios):.2f}x, behind by >2%: {sum(v < 0.98 for v in ratios)}")


if __name__ == "__main__":
    main()
