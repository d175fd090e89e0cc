"""Probe: permute_words' runs that the planner writes element by element (OUT 2; old) against shifted words with the
next groups gathered from the tile (new), on random byte permutations of the permute suite's generator;
interleaved CUDA-event timing against torch's copy, bit-exact first."""

from __future__ import annotations

import json
import math
import sys

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation


def main() -> None:
    seeds, cases, path = [int(s) for s in sys.argv[1].split(",")], int(sys.argv[2]), sys.argv[3]
    rows = []
    for seed in seeds:
        for case in random_permutations(seed, 400, "cuda"):
            if len(rows) >= cases or case.itemsize != 1:
                continue
            strides = tuple(math.prod(case.shape[k + 1:]) for k in range(len(case.shape)))
            p = canonical_permutation(case.shape, strides, 1, case.axes)
            if type(p).__name__ != "Permutation" or not permute.words_ok(p):
                continue
            old = permute.build(p, 4)
            if old.pieces[0][2].constexprs.get("OUT") != 2:
                continue
            c = old.config
            if c.block_a // 4 < 2:
                continue
            permute.PROBE_GATHER = True
            new = permute.build(p, 4, permute.PermuteWordsConfig(c.block_a, c.block_cw, c.num_warps, "shifted"))
            permute.PROBE_GATHER = False
            if not new.pieces[0][2].constexprs.get("NEXT_BY_GATHER"):
                continue
            x = torch.randint(0, 256, case.shape, dtype=torch.uint8, device="cuda")
            want = x.permute(*case.axes).contiguous()
            o = torch.empty_like(want)
            xv, ov = view_of(x), view_of(o)
            exact = {}
            for name, plan in (("old", old), ("new", new)):
                o.fill_(0xA5)
                engine.run(plan, xv, ov)
                exact[name] = torch.equal(o, want)
            d = torch.empty_like(x)
            fns = {"copy": lambda d=d, s=x: d.copy_(s), "old": lambda p=old, s=xv, t=ov: engine.run(p, s, t),
                   "new": lambda p=new, s=xv, t=ov: engine.run(p, s, t)}
            times = {k: [] for k in fns}
            ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
            for _ in range(7):
                for k, fn in fns.items():
                    fn()
                    ev[0].record()
                    fn()
                    ev[1].record()
                    ev[1].synchronize()
                    times[k].append(ev[0].elapsed_time(ev[1]))
            med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
            row = {"case": case.name, "seed": seed, "plan": old.name, "exact": exact,
                   "old_pct": 100 * med["copy"] / med["old"], "new_pct": 100 * med["copy"] / med["new"],
                   "speedup": med["old"] / med["new"]}
            print(json.dumps(row), flush=True)
            rows.append(row)
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)
    sp = [r["speedup"] for r in rows]
    if sp:
        print("cases", len(sp), "geomean", math.exp(sum(map(math.log, sp)) / len(sp)), "min", min(sp), "max", max(sp))


if __name__ == "__main__":
    main()
