"""Probe: the general tiles of 2-byte (or 1-byte) words (permute_tiles), with other base tiles than the planner's and
with the loads' offsets written into the arithmetic (ARITH_IN, so that the compiler widens them) or left as
attributes, on the general-tile permutations of that word size of random permute suites (and the named ones); each
variant goes through the planner's own narrowing to short sides. Every variant bit-exact first, then timed in
interleaved rounds (L2 flushed) with torch and a copy of the same bytes. Each row records the plan's constexprs, so
that a rule can be read off them.

    python scripts/permute_2byte_tiles_probe.py [--word 1] [--named] --seeds 2001-2010 --out OUT.json [--budget 540]
    python scripts/permute_2byte_tiles_probe.py --loads [--word 1] --seeds 4001-4030 --out OUT.json
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
from cornerturn.engine import permute
from cornerturn.engine.launch import Launch
from cornerturn.engine.permute_kernel import permute_tiles
from cornerturn.engine.plan import alignment
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation
from cornerturn.tiling import split

TORCH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}
BASES = {2: {"256x32": (256, 32, 4), "128x64": (128, 64, 4), "64x128": (64, 128, 4), "64x64": (64, 64, 4),
             "128x128w8": (128, 128, 8)},
         1: {"64x128w8": (64, 128, 8), "128x128w8": (128, 128, 8), "64x256w8": (64, 256, 8),
             "128x64w4": (128, 64, 4), "64x128w4": (64, 128, 4), "32x256w8": (32, 256, 8),
             "128x256w8": (128, 256, 8)}}


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def with_loads(plan, arith_in: bool, cap: int = 0):
    """The plan with its loads' offsets written into the arithmetic (arith_in), what they promise to divide them
    capped at `cap` words where cap (so that loads widen to at most cap words)."""
    out = copy.copy(plan)
    out.pieces = []
    for xo, oo, launch in plan.pieces:
        c = dict(launch.constexprs)
        size_b = launch.ints[-3]  # ints end with size_a, size_b, tiles_a, tiles_b
        c.update(ARITH_IN=arith_in, ALIGN_SB=alignment(size_b) if arith_in else 1)
        if cap:
            c.update({k: min(c[k], cap) for k in ("ALIGN_IA", "ALIGN_IB", "ALIGN_SB")})
        out.pieces.append((xo, oo, Launch(launch.kernel, launch.programs, launch.ints, c, launch.num_warps,
                                          launch.word)))
    return out


def load_variants(perm, word: int) -> dict:
    """The planner's tile with its loads as attributes (old: no LOAD_WORDS), the plan as the planner makes it, and
    the loads in the arithmetic with their width capped at 2 to 16 words (up to 16 bytes)."""
    saved, permute.LOAD_WORDS = permute.LOAD_WORDS, {}
    try:
        plain = permute.build(perm, word)
    finally:
        permute.LOAD_WORDS = saved
    return {"old": plain, "plan": permute.build(perm, word),
            **{f"in{cap}": with_loads(plain, True, cap) for cap in (2, 4, 8, 16) if cap * word <= 16}}


def variants(perm, word: int) -> dict:
    """Each base tile of the word size, narrowed as the planner narrows; for 2-byte words with the loads as
    attributes and widened (the planner's rule aside)."""
    sides = split(perm, word, max(16, permute.SIDE_BYTES // word))
    saved = permute.TILES[word]
    plans = {}
    try:
        for name, base in BASES[word].items():
            permute.TILES[word] = base
            plain = permute.build(perm, word, permute.heuristic(sides), "probe")
            if any(p.config == plain.config for p in plans.values()):
                continue  # narrowed to the same tile as a base before it
            if word == 2:
                plans[name] = with_loads(plain, False)
                plans[name + "+in"] = with_loads(plain, True)
            else:
                plans[name] = plain
    finally:
        permute.TILES[word] = saved
    return plans


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="2001-2010")
    ap.add_argument("--cases", type=int, default=32)
    ap.add_argument("--budget", type=float, default=540.0, help="stop starting cases after this many seconds")
    ap.add_argument("--loads", action="store_true", help="the planner's tile only, its loads' widths compared")
    ap.add_argument("--word", type=int, default=2, help="the word size of the general tiles probed")
    ap.add_argument("--named", action="store_true", help="the permute suite's named cases first")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.word not in BASES:
        ap.error(f"--word: one of {sorted(BASES)}")
    rows, t0 = [], time.time()
    draws = [(0, SUITES["permute"])] if a.named else []
    draws += [(seed, random_permutations(seed, a.cases, "cuda")) for seed in seeds_of(a.seeds)]
    for seed, cases in draws:
        for case in cases:
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
            chosen = engine.choose(perm, "cuda:0")
            if chosen.word != a.word or not all(launch.kernel is permute_tiles for _, _, launch in chosen.pieces):
                continue
            plans = load_variants(perm, a.word) if a.loads else variants(perm, a.word)
            base = "old" if a.loads else next(iter(BASES[a.word]))
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
            for name, tile in BASES[a.word].items():  # a base narrowed to another's tile reads that one's time
                if name not in plans and not a.loads:
                    permute.TILES[a.word], saved = tile, permute.TILES[a.word]
                    same = permute.heuristic(split(perm, a.word, max(16, permute.SIDE_BYTES // a.word)))
                    permute.TILES[a.word] = saved
                    twin = next(k for k, p in plans.items() if p.config == same and not k.endswith("+in"))
                    pct[name] = pct[twin]
                    if a.word == 2:
                        pct[name + "+in"] = pct[twin + "+in"]
            launch = plans[base].pieces[0][2]
            assert chosen.config == plans[base].config, (chosen.config, plans[base].config)
            row = {"seed": seed, "case": case.name, "plan": chosen.name, "reason": chosen.reason,
                   "constexprs": {k: v for k, v in launch.constexprs.items() if k != "ASM"},
                   "ints": list(launch.ints), "configs": {k: p.config.name for k, p in plans.items()},
                   "pct": pct, "exact": exact}
            rows.append(row)
            best = max((k for k in pct if k != "torch"), key=pct.get)
            print(f"{time.time() - t0:5.0f}s {case.name:46s} {chosen.name:18s} "
                  + " ".join(f"{k} {v:5.1f}" for k, v in pct.items())
                  + f" best {best}{'' if all(exact.values()) else ' NOT EXACT'}", flush=True)
            with open(a.out, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "seeds": a.seeds, "rows": rows}, f, indent=1)
    names = [k for k in rows[0]["pct"] if k != "torch"] if rows else []
    base = names[0] if names else ""
    for k in names:
        ratios = [r["pct"][k] / r["pct"][base] for r in rows]
        g = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        gm = math.exp(sum(math.log(r["pct"][k]) for r in rows) / len(rows))
        print(f"{k:12s} {len(rows)} cases: geomean {gm:5.1f}% of copy, over {base} {g:.3f}x, "
              f"min {min(ratios):.2f}x, max {max(ratios):.2f}x, behind by >2%: {sum(v < 0.98 for v in ratios)}")


if __name__ == "__main__":
    main()
