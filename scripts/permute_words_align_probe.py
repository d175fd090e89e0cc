"""Probe: how much permute_words gains where Triton may use vector loads and stores. The permute suite's random byte
permutations that permute_words takes, as drawn and with every extent rounded to a multiple of 16 (so that the
launch's integer arguments are specialised as 16-divisible and the compiler may vectorize), planned the same way
(permute_words, its default tile), each checked bit-exact and timed against the copy in interleaved rounds.

    python3 scripts/permute_words_align_probe.py --out $OUT/align.json
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

SEEDS = (23, 2424, 6161)  # the permute suite's random byte permutations that permute_words takes


def rounded(shape):
    return tuple(max(16, round(n / 16) * 16) for n in shape)


def words_only(shape):
    """Each extent an odd multiple of 4: rows at whole words, but no stride a multiple of 16 bytes."""
    return tuple(4 * (max(1, round(n / 4)) | 1) for n in shape)


def canonical(shape, axes):
    strides = [1]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), 1, tuple(axes))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ep.tiles_in_vectors = lambda perm: False  # words on the rounded shapes too
    cases = []
    for seed in SEEDS:
        for case in random_permutations(seed, 32, "cuda"):
            perm = canonical(case.shape, case.axes)
            if case.dtype in ("int8", "uint8", "float8_e4m3fn") and isinstance(perm, problem.Permutation) and \
                    ep.words_sides(perm) is not None:
                cases.append((case.shape, rounded(case.shape), words_only(case.shape), case.axes))
    rows = []
    for odd, even, fours, axes in cases:
        for label, shape in (("odd", odd), ("x16", even), ("x4", fours)):
            perm = canonical(shape, axes)
            sides = ep.words_sides(perm) if isinstance(perm, problem.Permutation) else None
            if sides is None:
                print(label, shape, axes, "not a words plan")
                continue
            plan = ep.build(perm, 4, ep.words_config(sides))
            n = math.prod(shape)
            x = torch.randint(-128, 127, (n,), dtype=torch.int8, device="cuda").view(shape)
            ref = x.permute(axes).contiguous()
            out = torch.empty_like(ref)
            out.fill_(0x5A)
            xv, ov = view_of(x), view_of(out)
            run_views(plan, xv, ov)
            torch.cuda.synchronize()
            ok = bool(torch.equal(out, ref))
            copy = torch.empty_like(x)
            timed = time_cuda_rounds({"words": lambda p=plan, a=xv, b=ov: run_views(p, a, b),
                                      "copy": lambda c=copy, s=x: c.copy_(s)}, repeats=args.repeats)
            pct = 100 * timed["copy"].median / timed["words"].median
            c = plan.pieces[0][2].constexprs
            rows.append({"label": label, "shape": list(shape), "axes": list(axes), "plan": plan.config.name,
                         "out": c["OUT"], "in_words": c["IN_WORDS"], "ok": ok, "pct_of_copy": pct})
            print(label, shape, axes, plan.config.name, "OUT", c["OUT"], "IN_WORDS", c["IN_WORDS"], "ok", ok,
                  f"{pct:.0f}%", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/permute_words_align_probe.py", "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
