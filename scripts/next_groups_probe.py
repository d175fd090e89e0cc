"""Probe: the words kernel's shifted stores (OUT 1) with the next groups of rows loaded again (old) or gathered from
the tile (new), on random 1- and 2-byte shapes whose plan shifts; interleaved CUDA-event timing against torch's
copy, bit-exact first."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import torch

import cornerturn
from cornerturn.engine import plan as engine_plan


def plans(shape, dtype):
    out = []
    for mode in (False, True):
        engine_plan.PROBE_GATHER = mode
        cornerturn.api._backend_plan.cache_clear()
        cornerturn.api._cached_plan.cache_clear()
        cornerturn.engine.choose.cache_clear()
        out.append(cornerturn.plan(shape, dtype, device="cuda"))
    return out


def launches_of(p):
    return [(launch.constexprs.get("IN_WORDS"), launch.constexprs.get("OUT"), launch.constexprs.get("NEXT_BY_GATHER"))
            for _, _, launch in p._backend.pieces]


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    rows_out = []
    drawn = 0
    named = [(a.split(":")[0], *map(int, a.split(":")[1].split("x"))) for a in sys.argv[4:]]
    total = cases + len(named)
    while len(rows_out) < total and drawn < 4000:
        drawn += 1
        if named:
            dtype, m, n = named.pop()
            size = 1 if dtype == "uint8" else 2
        else:
            size = int(rng.choice([1, 2]))
            target = math.exp(rng.uniform(math.log(64 << 20), math.log(512 << 20))) / size
            m = int(math.exp(rng.uniform(math.log(300), math.log(min(1e6, target / 300)))))
            n = int(target // m)
            if n < 300:
                continue
            dtype = "uint8" if size == 1 else "int16"
        old, new = plans((m, n), dtype)
        c = new._backend.pieces[0][2].constexprs if new._backend.pieces else {}
        if not c.get("NEXT_BY_GATHER"):
            continue
        x = torch.randint(0, 256, (m, n * size), dtype=torch.uint8, device="cuda").view(getattr(torch, dtype))
        want = x.t().contiguous()
        outs = {}
        for name, p in (("old", old), ("new", new)):
            o = torch.empty_like(want).view(torch.uint8).fill_(0xA5).view(want.dtype)
            p.execute(x, o)
            outs[name] = torch.equal(o.view(torch.uint8), want.view(torch.uint8))
        copy_dst = torch.empty_like(x)
        o = torch.empty_like(want)
        fns = {"copy": lambda d=copy_dst, s=x: d.copy_(s), "old": lambda p=old, s=x, d=o: p.execute(s, d),
               "new": lambda p=new, s=x, d=o: p.execute(s, d)}
        times = {k: [] for k in fns}
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        for _ in range(9):
            for k, fn in fns.items():
                fn()
                ev[0].record()
                fn()
                ev[1].record()
                ev[1].synchronize()
                times[k].append(ev[0].elapsed_time(ev[1]))
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        row = {"case": f"{dtype} {m}x{n}", "plan": old.method, "old": launches_of(old), "new": launches_of(new),
               "exact": outs, "old_pct": 100 * med["copy"] / med["old"], "new_pct": 100 * med["copy"] / med["new"],
               "speedup": med["old"] / med["new"]}
        print(json.dumps(row), flush=True)
        rows_out.append(row)
    with open(path, "w") as f:
        json.dump(rows_out, f, indent=1)
    sp = [r["speedup"] for r in rows_out]
    if sp:
        print("cases", len(sp), "geomean", math.exp(sum(map(math.log, sp)) / len(sp)), "min", min(sp), "max", max(sp))


if __name__ == "__main__":
    main()
