"""Probe: 2-byte general permutations in the element tiles: the planner's tile, a tile chosen to waste the fewest
lanes on padding, and the permute_words kernel (32-bit words, 2-byte elements), on the permute suite's random
2-byte permutations of the given seeds that the element tiles take.

Every plan's output is checked bit for bit against torch (outputs poisoned first), then the plans, torch's permute
and a torch copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_2byte_probe.py --seeds 23,2424 --out $OUT/two.json
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
from cornerturn.tiling import Sides, element_bytes, split

TWO = {"float16", "bfloat16", "int16"}


def canonical(shape, itemsize, axes):
    strides = [itemsize]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), itemsize, tuple(axes))


def useful(size_a, size_b, block_a, block_b) -> float:
    return size_a * size_b / (math.ceil(size_a / block_a) * block_a * math.ceil(size_b / block_b) * block_b)


def least_padding(sides, config):
    """Of tiles of a quarter to the whole of the planner's elements, each side a power of two no longer than the
    side needs, the one whose lanes are most often inside the permutation (the larger on a tie)."""
    full = config.block_a * config.block_b
    best = None
    for block_a in (2**i for i in range(2, 11)):
        for block_b in (2**i for i in range(2, 11)):
            if not (full // 4 <= block_a * block_b <= full) or block_a > 2 * ep._pow2_at_least(sides.size_a) or \
                    block_b > 2 * ep._pow2_at_least(sides.size_b):
                continue
            key = (round(useful(sides.size_a, sides.size_b, block_a, block_b), 3), block_a * block_b)
            if best is None or key > best[0]:
                best = (key, ep.PermuteConfig(block_a, block_b, config.num_warps))
    return best[1]


def words_sides_any(perm):
    """engine.permute.words_sides without its 1-byte condition (and its 16-byte vector check): 2-byte elements in
    32-bit words."""
    if element_bytes(perm) != perm.itemsize or min(perm.in_strides) <= 0:
        return None
    sides = split(perm, perm.itemsize, max(16, ep.SIDE_BYTES // perm.itemsize))
    if sides.b[0].in_stride != 1:
        return None
    if not ep.chained(sides.b):
        if sides.size_a * perm.itemsize < ep.WORDS_MIN_A:
            return None
        rest = tuple(sorted((*sides.b[1:], *sides.rest), key=lambda x: x.out_stride))
        cut = Sides(sides.word, sides.a, sides.b[:1], rest)
        if cut.size_b * perm.itemsize >= ep.WORDS_MIN_B and len(rest) <= ep.REST_IN_LAUNCH:
            sides = cut
    segment = math.prod(x.extent for x in sides.b[:ep.segment_axes(sides.b)]) * perm.itemsize
    if len(sides.rest) > ep.REST_IN_LAUNCH or sides.size_b * perm.itemsize < ep.WORDS_MIN_B or \
            segment < ep.SEGMENT_MIN:
        return None
    return sides


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="23,2424")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for case in random_permutations(seed, 32, "cuda"):
            if case.dtype not in TWO:
                continue
            perm = canonical(case.shape, 2, case.axes)
            if not isinstance(perm, problem.Permutation):
                continue
            planned = ep.build(perm, ep.natural_word(perm))
            if not isinstance(planned.config, ep.PermuteConfig) or planned.pieces[0][2].word != 2:
                continue
            t0 = time.time()
            sides = split(perm, 2, max(16, ep.SIDE_BYTES // 2))
            n = math.prod(case.shape)
            x = torch.randint(-32768, 32767, (n,), dtype=torch.int16, device="cuda").view(case.shape)
            ref = x.permute(case.axes).contiguous()
            out = torch.empty_like(ref)
            copy = torch.empty_like(x)
            xv, ov = view_of(x), view_of(out)
            c = planned.config
            plans = {"tiles": planned, "padding": ep.build(perm, 2, least_padding(sides, c)),
                     "tiles-w8": ep.build(perm, 2, ep.PermuteConfig(c.block_a, c.block_b, 8))}
            in_words = words_sides_any(perm)
            if in_words is not None:
                plans["words"] = ep._build_words(perm, in_words, None, None)
            fns, names, ok = {}, {}, {}
            for key, plan in plans.items():
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
            fill = {k: useful(sides.size_a, sides.size_b, p.config.block_a, p.config.block_b) for k, p in plans.items()
                    if k != "words"}
            constexprs = {k: {n: v for n, v in p.pieces[0][2].constexprs.items() if isinstance(v, (int, bool))}
                          for k, p in plans.items()}
            rows.append({"seed": seed, "shape": list(case.shape), "dtype": case.dtype, "axes": list(case.axes),
                         "sides": [sides.size_a, sides.size_b], "plans": names, "constexprs": constexprs,
                         "useful": fill, "ok": ok, "median_s": med, "pct_of_copy": pct})
            print(f"{seed} {case.dtype} {case.shape} {case.axes} sides {sides.size_a}x{sides.size_b} "
                  + " ".join(f"{k}={names[k]}({fill.get(k, 0):.2f})" for k in plans)
                  + f" ok={all(ok.values())} " + " ".join(f"{k}:{v:.0f}" for k, v in pct.items())
                  + f" ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/permute_2byte_probe.py --seeds " + args.seeds, "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
