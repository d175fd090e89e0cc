"""Probe: the element tiles with side B extended by the input's next axes that lie end to end with it (the rest axes
whose stride continues B's), against the planner's tile sides, on the permute suite's random permutations of the
given seeds that take the element tiles and where B can grow.

Every plan's output is checked bit for bit against torch (outputs poisoned first), then both plans, torch's permute
and a torch copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_extend_probe.py --seeds 23,2424,6161,7171,7272 --out $OUT/extend.json
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
from cornerturn.dtypes import itemsize_of
from cornerturn.engine import permute as ep
from cornerturn.engine.runtime import run_views
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.tiling import MAX_SIDE_AXES, Sides


def canonical(shape, itemsize, axes):
    strides = [itemsize]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), itemsize, tuple(axes))


def extend(sides: Sides) -> Sides:
    """B with the rest axes that continue it end to end in the input, up to MAX_SIDE_AXES axes."""
    if not ep.chained(sides.b):
        return sides
    b, rest = list(sides.b), list(sides.rest)
    while len(b) < MAX_SIDE_AXES:
        follow = [r for r in rest if r.in_stride == b[-1].in_stride * b[-1].extent]
        if not follow:
            break
        b.append(follow[0])
        rest.remove(follow[0])
    return Sides(sides.word, sides.a, tuple(b), tuple(rest))


def useful(size_a, size_b, block_a, block_b) -> float:
    return size_a * size_b / (math.ceil(size_a / block_a) * block_a * math.ceil(size_b / block_b) * block_b)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="23,2424")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    original_split = ep.split
    for seed in (int(s) for s in args.seeds.split(",")):
        for case in random_permutations(seed, 32, "cuda"):
            size = itemsize_of(case.dtype)
            perm = canonical(case.shape, size, case.axes)
            if not isinstance(perm, problem.Permutation):
                continue
            planned = ep.build(perm, ep.natural_word(perm))
            if not isinstance(planned.config, ep.PermuteConfig):
                continue
            word = planned.word
            sides = original_split(perm, word, max(16, ep.SIDE_BYTES // word))
            longer = extend(sides)
            if longer == sides:
                continue
            ep.split = lambda p, w, t, s=longer: s
            try:
                extended = ep.build(perm, word)
            finally:
                ep.split = original_split
            t0 = time.time()
            x = torch.randint(-128, 128, (math.prod(case.shape) * size,), dtype=torch.int8, device="cuda")
            x = x.view(*case.shape, size)  # the element's bytes as a last axis that stays last
            ref = x.permute(*case.axes, len(case.shape)).contiguous()
            out = torch.empty_like(ref)
            copy = torch.empty_like(x)
            xv, ov = view_of(x), view_of(out)
            plans = {"tiles": planned, "extended": extended}
            fns, names, ok = {}, {}, {}
            for key, plan in plans.items():
                names[key] = plan.config.name
                out.fill_(0x5A)
                run_views(plan, xv, ov)
                torch.cuda.synchronize()
                ok[key] = bool(torch.equal(out, ref))
                fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
            order = (*case.axes, len(case.shape))
            fns["torch"] = lambda o=out, s=x, a=order: o.copy_(s.permute(a))
            fns["copy"] = lambda c=copy, s=x: c.copy_(s)
            timed = time_cuda_rounds(fns, repeats=args.repeats)
            med = {k: t.median for k, t in timed.items()}
            pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
            fill = {"tiles": useful(sides.size_a, sides.size_b, planned.config.block_a, planned.config.block_b),
                    "extended": useful(longer.size_a, longer.size_b, extended.config.block_a,
                                       extended.config.block_b)}
            rows.append({"seed": seed, "case": case.name, "sides": [sides.size_a, sides.size_b, longer.size_b],
                         "plans": names, "useful": fill, "ok": ok, "median_s": med, "pct_of_copy": pct})
            print(f"{seed} {case.name} sides {sides.size_a}x{sides.size_b}->{longer.size_b} "
                  + " ".join(f"{k}={names[k]}({fill[k]:.2f})" for k in plans)
                  + f" ok={all(ok.values())} " + " ".join(f"{k}:{v:.0f}" for k, v in pct.items())
                  + f" ext/tiles x{med['tiles'] / med['extended']:.2f} ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/permute_extend_probe.py --seeds " + args.seeds, "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
