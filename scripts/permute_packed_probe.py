"""Probe: general tiles whose side A (the output's innermost axes) goes on past the input's fastest axis where both
are short ("packed": the output's contiguous runs become A x B's head, not A alone), against the planner's plan, on
the random permute suites' permutations whose side A packing changes (permute.PACK_BYTES). Every plan bit-exact
first, then timed in interleaved rounds (L2 flushed) with torch and a copy of the same bytes.

    python scripts/permute_packed_probe.py --seeds 23,9494 --out OUT.json [--budget 480]
"""

from __future__ import annotations

import argparse
import json
import math
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation
from cornerturn.tiling import split, widest_word

TORCH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}
def tiles_with(perm, word: int, packed: bool, warps: int | None = None):
    """permute.build's element tiles, plain or packed (PermuteConfig.packed), the heuristic's tile (`warps` if
    given)."""
    sides = split(perm, word, max(16, permute.SIDE_BYTES // word), permute.PACK_BYTES if packed else 0)
    config = permute.heuristic(sides)
    return permute.build(perm, word, permute.PermuteConfig(config.block_a, config.block_b, warps or config.num_warps,
                                                           packed), "probe")


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="23")
    ap.add_argument("--cases", type=int, default=32)
    ap.add_argument("--budget", type=float, default=480.0, help="stop starting cases after this many seconds")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows, t0 = [], time.time()
    for seed in seeds_of(a.seeds):
        for case in random_permutations(seed, a.cases, "cuda"):
            if time.time() - t0 > a.budget:
                break
            size = case.itemsize
            strides, acc = [], size
            for e in reversed(case.shape):
                strides.insert(0, acc)
                acc *= e
            perm = canonical_permutation(case.shape, tuple(strides), size, case.axes)
            if perm.kind != "permute":
                continue
            word = widest_word(perm)
            target = max(16, permute.SIDE_BYTES // word)
            plain, packed = split(perm, word, target), split(perm, word, target, permute.PACK_BYTES)
            if packed.a == plain.a:
                continue
            chosen = engine.choose(perm, "cuda:0")
            plans = {"plan": chosen, "tiles": tiles_with(perm, word, False),
                     "packed": tiles_with(perm, word, True), "packed-w4": tiles_with(perm, word, True, 4)}
            n = math.prod(case.shape)
            x = torch.randint(0, 256, (n * size,), dtype=torch.uint8, device="cuda").view(TORCH[size])
            x = x.view(case.shape)
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
            row = {"seed": seed, "case": case.name, "plan": chosen.name, "word": word,
                   "sides": {"plain": [len(plain.a), plain.size_a, len(plain.b), plain.size_b],
                             "packed": [len(packed.a), packed.size_a, len(packed.b), packed.size_b]},
                   "configs": {k: p.config.name for k, p in plans.items()}, "pct": pct, "exact": exact}
            rows.append(row)
            print(f"{time.time() - t0:5.0f}s {case.name:46s} {chosen.name:22s} A {plain.size_a}->{packed.size_a} "
                  + " ".join(f"{k} {v:5.1f}" for k, v in pct.items())
                  + f"{'' if all(exact.values()) else ' NOT EXACT'}", flush=True)
            with open(a.out, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "seeds": a.seeds, "pack": permute.PACK_BYTES,
                           "rows": rows}, f, indent=1)
    for k in ("tiles", "packed", "packed-w4"):
        ratios = [r["pct"][k] / r["pct"]["plan"] for r in rows]
        if ratios:
            g = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
            print(f"{k:10s} {len(rows)} cases: over the plan {g:.3f}x, min {min(ratios):.2f}x, max {max(ratios):.2f}x,"
                  f" ahead by >5%: {sum(v > 1.05 for v in ratios)}, behind by >5%: {sum(v < 0.95 for v in ratios)}")


if __name__ == "__main__":
    main()
