"""Probe: 1- and 2-byte permutations moved in 32-bit words (permute_words) against the element tiles, on the permute
suite's random permutations of the given seeds (those permute_words takes).

Every plan's output is checked bit for bit against torch, then the tiles, the words plans, torch's permute and a torch
copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_words_probe.py --seeds 23,97 --out $OUT/words.json
"""

from __future__ import annotations

import argparse
import json
import math
import time

import torch

from cornerturn import problem
from cornerturn.arrays import view_of
from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute as ep
from cornerturn.engine.runtime import run_views
from cornerturn.engine.timing import time_cuda_rounds

ITEMSIZE = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float16": 2, "bfloat16": 2, "int16": 2}
INT = {1: torch.int8, 2: torch.int16}
WORDS = [None, ep.PermuteWordsConfig(64, 16, 4)]


def canonical(shape, itemsize, axes):
    strides = [itemsize]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), itemsize, tuple(axes))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="23,97")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for case in random_permutations(seed, 32, "cuda"):
            itemsize = ITEMSIZE.get(case.dtype)
            if itemsize is None:
                continue
            perm = canonical(case.shape, itemsize, case.axes)
            if not (isinstance(perm, problem.Permutation) and ep.words_ok(perm)):
                continue
            t0 = time.time()
            n = math.prod(case.shape)
            x = torch.randint(-128, 127, (n * itemsize,), dtype=torch.int8, device="cuda").view(INT[itemsize])
            x = x.view(case.shape)
            ref = x.permute(case.axes).contiguous()
            out = torch.empty_like(ref)
            copy = torch.empty_like(x)
            xv, ov = view_of(x), view_of(out)
            fns, names, ok = {}, {}, {}
            plans = [("tile", ep.build(perm, itemsize))]
            plans += [(c.name if c else "words", ep.build(perm, 4, c)) for c in WORDS]
            for key, plan in plans:
                names[key] = plan.config.name
                out.view(torch.int8).fill_(0x5A)
                run_views(plan, xv, ov)
                torch.cuda.synchronize()
                ok[key] = bool(torch.equal(out, ref))
                fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
            fns["torch"] = lambda o=out, s=x, a=case.axes: o.copy_(s.permute(a))
            fns["copy"] = lambda c=copy, s=x: c.copy_(s)
            timed = time_cuda_rounds(fns, repeats=args.repeats)
            med = {k: t.median for k, t in timed.items()}
            pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
            constexprs = ep.build(perm, 4).pieces[0][2].constexprs
            rows.append({"seed": seed, "shape": list(case.shape), "dtype": case.dtype, "axes": list(case.axes),
                         "plans": names, "ok": ok, "out_words": constexprs["OUT_WORDS"],
                         "in_words": constexprs["IN_WORDS"], "median_s": med, "pct_of_copy": pct,
                         "copy_gbps": 2 * n * itemsize / med["copy"] / 1e9})
            print(f"{seed} {case.dtype} {case.shape} {case.axes} {names['words']} out_words={constexprs['OUT_WORDS']}"
                  f" ok={all(ok.values())} " + " ".join(f"{k}:{v:.0f}" for k, v in pct.items())
                  + f" ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/permute_words_probe.py --seeds " + args.seeds, "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
