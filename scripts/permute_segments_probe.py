"""Probe: byte permutations whose side B does not lie end to end in the input, moved by permute_words in segments,
against the element tiles and (where that rule takes them) permute_words with B cut to its first axis.

Cases: the permute suite's random 1-byte permutations of the given seeds that permute_words takes with segments of
any length (`segments_only`) and whose side B is not one run of 16 bytes or more; half of them (or as many as there
are) with segments under 16 bytes. Every plan's output is checked bit for bit against torch, then the element tiles,
the plan in segments, the plan with B cut (where it applies), the planner's own plan, torch's permute and a torch
copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_segments_probe.py --seeds 100-159 --out $OUT/segments.json
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

BYTES = ("int8", "uint8", "float8_e4m3fn")


def canonical(shape, axes):
    strides = [1]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), 1, tuple(axes))


def segments_only(perm: problem.Permutation) -> Sides | None:
    """permute_words' sides with B in segments of any length (never cut): 1-byte elements, positive strides, B's
    first axis of unit stride, 16 bytes or more along B, at most four rest axes, tiles not in vectors."""
    if perm.itemsize != 1 or element_bytes(perm) != 1 or min(perm.in_strides) <= 0:
        return None
    sides = split(perm, 1, ep.SIDE_BYTES)
    if sides.b[0].in_stride != 1 or len(sides.rest) > ep.REST_IN_LAUNCH or sides.size_b < 16:
        return None
    return None if ep.tiles_in_vectors(perm) else sides


def cut_sides(sides: Sides) -> Sides | None:
    """B cut to its first axis where it does not lie end to end (the others join the rest), at least 16 bytes
    along B, at most four rest axes; None where that does not apply."""
    if ep.chained(sides.b):
        return sides if sides.size_b >= 16 else None
    rest = tuple(sorted((*sides.b[1:], *sides.rest), key=lambda x: x.out_stride))
    cut = Sides(sides.word, sides.a, sides.b[:1], rest)
    return cut if cut.size_b >= 16 and len(rest) <= ep.REST_IN_LAUNCH else None


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="100-159")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--max-cases", type=int, default=24, help="half of them with segments under 16 bytes")
    ap.add_argument("--segmented", action="store_true", help="only cases the planner reads in segments")
    ap.add_argument("--a-below", type=int, default=0, help="only cases with fewer bytes than this along A")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    short, long = [], []
    for seed in seeds_of(args.seeds):
        for case in random_permutations(seed, 32, "cuda"):
            perm = canonical(case.shape, case.axes) if case.dtype in BYTES else None
            sides = segments_only(perm) if isinstance(perm, problem.Permutation) else None
            if sides is None or (ep.chained(sides.b) and sides.size_b >= 16):
                continue  # not taken, or the same plan as before segments
            if args.a_below and sides.size_a >= args.a_below:
                continue
            if args.segmented and not ep.build(perm, ep.natural_word(perm)).pieces[0][2].constexprs.get("NS"):
                continue
            segment = math.prod(x.extent for x in sides.b[:ep.segment_axes(sides.b)])
            (short if segment < 16 else long).append((seed, case, perm, sides, segment))
    half = args.max_cases // 2
    chosen = short[:max(half, args.max_cases - len(long))] + long[:max(half, args.max_cases - len(short))]
    rows = []
    for seed, case, perm, sides, segment in chosen:
        t0 = time.time()
        n = math.prod(case.shape)
        x = torch.randint(-128, 127, case.shape, dtype=torch.int8, device="cuda")
        ref = x.permute(case.axes).contiguous()
        out = torch.empty_like(ref)
        copy = torch.empty_like(x)
        xv, ov = view_of(x), view_of(out)
        plans = [("tile", ep.build(perm, 1)), ("segments", ep._build_words(perm, sides, None, None))]
        cut = cut_sides(sides)
        if cut is not None:
            plans.append(("cut", ep._build_words(perm, cut, None, None)))
        plans.append(("planner", ep.build(perm, ep.natural_word(perm))))
        fns, names, ok = {}, {}, {}
        for key, plan in plans:
            names[key] = plan.config.name
            out.fill_(0x5A)
            run_views(plan, xv, ov)
            torch.cuda.synchronize()
            ok[key] = bool(torch.equal(out, ref))
            fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
        fns["torch"] = lambda o=out, s=x, a=case.axes: o.copy_(s.permute(a))
        fns["copy"] = lambda c=copy, s=x: c.copy_(s)
        timed = time_cuda_rounds(fns, repeats=args.repeats)
        med = {k: t.median for k, t in timed.items()}
        pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
        constexprs = plans[1][1].pieces[0][2].constexprs
        rows.append({"seed": seed, "shape": list(case.shape), "dtype": case.dtype, "axes": list(case.axes),
                     "segment_bytes": segment, "ns": constexprs["NS"], "size_a": sides.size_a,
                     "size_b": sides.size_b, "plans": names, "ok": ok, "out_words": constexprs["OUT_WORDS"],
                     "in_words": constexprs["IN_WORDS"], "median_s": med, "pct_of_copy": pct,
                     "copy_gbps": 2 * n / med["copy"] / 1e9})
        print(f"{seed} {case.dtype} {case.shape} {case.axes} segment={segment} NS={constexprs['NS']} "
              f"out_words={constexprs['OUT_WORDS']} ok={all(ok.values())} "
              + " ".join(f"{k}:{v:.0f}" for k, v in pct.items()) + f" ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": f"python3 scripts/permute_segments_probe.py --seeds {args.seeds} --max-cases {args.max_cases}"
                       + (" --segmented" if args.segmented else "")
                       + (f" --a-below {args.a_below}" if args.a_below else ""),
            "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
