"""Probe: transpose_tiles told the alignment of the output's row stride and rows in its arithmetic (OUT_ALIGN; the
stores along output rows widen) against the same plan without it (the code before), on the random suites' cases
whose plan takes the element tiles with OUT_ALIGN > 1 and the named suite's; every plan bit-exact, then timed in
interleaved rounds (L2 flushed) against torch's copy of the same bytes.

    python scripts/tiles_out_align_probe.py --seeds 31337,5252 --out OUT.json
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
from cornerturn.bench.suites import SUITES, random_cases
from cornerturn.engine.kernels import transpose_tiles
from cornerturn.engine.launch import Launch
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical

TORCH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}


def without(plan):
    old = copy.copy(plan)
    old.pieces = [(xo, oo, Launch(la.kernel, la.programs, la.ints, {**la.constexprs, "OUT_ALIGN": 1}, la.num_warps,
                                  la.word) if la.kernel is transpose_tiles else la) for xo, oo, la in plan.pieces]
    return old


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="31337")
    ap.add_argument("--cases", type=int, default=64)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    cases = list(SUITES["cuda"])
    for seed in (int(v) for v in a.seeds.split(",") if v):
        cases += random_cases(seed, a.cases, "cuda")
    rows, t0 = [], time.time()
    for case in cases:
        size = case.itemsize
        strides, acc = [], size
        for e in reversed(case.shape):
            strides.insert(0, acc)
            acc *= e
        new = engine.choose(canonical(case.shape, tuple(strides), size), "cuda:0")
        if not any(la.kernel is transpose_tiles and la.constexprs["OUT_ALIGN"] > 1 for _, _, la in new.pieces):
            continue
        plans = {"new": new, "old": without(new)}
        n = math.prod(case.shape)
        x = torch.randint(0, 256, (n * size,), dtype=torch.uint8, device="cuda").view(TORCH[size]).view(case.shape)
        want = x.transpose(-1, -2).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.view(-1).view(torch.uint8).fill_(0xA5)
            engine.run(p, xv, ov)
            exact[name] = bool(torch.equal(o.view(-1).view(torch.uint8), want.view(-1).view(torch.uint8)))
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s),
               **{name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()}}
        med = {k: t.median for k, t in time_cuda_rounds(fns, repeats=7).items()}
        pct = {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}
        align = max(la.constexprs.get("OUT_ALIGN", 1) for _, _, la in new.pieces)
        row = {"case": case.name, "plan": new.name, "size": size, "out_align": align, "pct": pct, "exact": exact,
               "new_over_old": round(med["old"] / med["new"], 3)}
        rows.append(row)
        print(f"{time.time() - t0:5.0f}s {case.name:30s} {new.name:18s} a{align:<2d} old {pct['old']:5.1f} new "
              f"{pct['new']:5.1f} x{row['new_over_old']:.3f}{'' if all(exact.values()) else ' NOT EXACT'}", flush=True)
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seeds": a.seeds, "rows": rows}, f, indent=1)
    for size in sorted({r["size"] for r in rows}) + [0]:
        ratios = [r["new_over_old"] for r in rows if size in (0, r["size"])]
        g = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        print(f"size {size or 'all'}: {len(ratios)} cases, new/old geomean {g:.3f}x, min {min(ratios):.3f}x, "
              f"max {max(ratios):.3f}x, behind by >2%: {sum(v < 0.98 for v in ratios)}")


if __name__ == "__main__":
    main()
