"""Probe: transposes of 1- and 2-byte elements with one side under 256 (the heuristic's domain: the planner's table
starts at sides of 256), as the permute suite makes them (a few long rows, or many short ones, some batched):
the current plan against words tiles stretched along the long side (rows of short-row matrices padded to a power of
two, 64-256 words along B; short-column matrices 256-1024 rows) in both output modes, and element tiles; interleaved
CUDA-event timing against torch's copy, bit-exact first.

    python scripts/short_side_probe.py SEED CASES OUT.json [--named] [--narrow | --rule | --tiles] [--sizes=1,2]
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine.configs import (
    InterleaveConfig,
    NarrowConfig,
    TileConfig,
    WordsConfig,
    _pow2_at_least,
    _pow2_at_most,
    interleave_ok,
    narrow_ok,
    natural_word,
    skinny,
)
from cornerturn.engine.plan import build
from cornerturn.problem import canonical

RULE = "--rule" in sys.argv  # the planner's plan against the old words tile, where engine.configs.skinny moves it
NARROW_ONLY = "--narrow" in sys.argv  # output rows of at most 64 bytes: transpose_narrow against the best others
NAMED = [(1, 55, 5, 217560), (1, 1, 130, 313950), (2, 1, 7, 13300665), (1, 1, 171, 1213632), (1, 1, 339250, 227),
         (2, 1, 1492788, 32), (2, 1, 2537136, 69), (1, 12, 4913973, 8), (1, 3834, 147, 161)]


SIZES = [int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--sizes=")), "1,2").split(",")]
WIDE_TILES = "--tiles" in sys.argv  # elements of 4-16 bytes: the heuristic's element tile against others
INTERLEAVE = "--interleave" in sys.argv  # 2 or 4 rows: transpose_interleave against the plan and transpose_narrow


def bits(t: torch.Tensor) -> torch.Tensor:
    return (torch.view_as_real(t) if t.is_complex() else t).reshape(-1).view(torch.uint8)


def draw(rng):
    size = int(rng.choice(SIZES))
    total = math.exp(rng.uniform(math.log(32 << 20), math.log(512 << 20))) / size
    short = int(rng.choice([2, 3, 4])) if INTERLEAVE else int(math.exp(rng.uniform(math.log(2), math.log(256))))
    batch = int(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.25 else 1
    long = int(total / batch / short)
    return (size, batch, short, long) if INTERLEAVE or rng.random() < 0.5 else (size, batch, long, short)


def candidates(rows: int, cols: int, size: int, problem) -> dict:
    out = {}
    if INTERLEAVE:
        if interleave_ok(problem):
            for cw, w in ((128, 4), (256, 4), (512, 4), (512, 8), (1024, 8)):
                out[f"i{cw}-{w}"] = (4, InterleaveConfig(cw, w))
            out["n1024-4"] = (4, NarrowConfig(1024, 4))
            out["w4x256-8"] = (4, WordsConfig(4, 256, 8, "items"))
            out["w4x1024-4"] = (4, WordsConfig(4, 1024, 4, "items"))
        return out
    if WIDE_TILES:
        word = min(size, 8)
        span = _pow2_at_least(min(rows, cols))
        for tile_bytes in (8192, 16384, 32768):
            other = max(8, _pow2_at_most(tile_bytes // (span * size)))
            for w in (4, 8):
                cfg = TileConfig(min(span, 1024), min(other, 1024), w) if rows <= cols else \
                    TileConfig(min(other, 1024), min(span, 1024), w)
                out[f"t{cfg.block_r}x{cfg.block_c}-{w}"] = (word, cfg)
        return out
    pack = 4 // size
    if NARROW_ONLY:
        if narrow_ok(problem):
            for ow, w in ((1024, 4), (2048, 4), (2048, 8)):
                out[f"n{ow}-{w}"] = (4, NarrowConfig(ow, w))
        br = max(4, _pow2_at_least(rows))
        for cw in (c for c in (64, 256, 1024) if 1024 <= br * c <= 16384):
            for w in (4, 8):
                out[f"w{br}x{cw}-{w}-items"] = (4, WordsConfig(br, cw, w, "items"))
        bc = min(1024, _pow2_at_most(16384 // (br * size)))
        out[f"t{br}x{bc}"] = (size, TileConfig(min(br, 1024), bc, 8))
        return out
    if rows <= cols:  # few long rows: output rows short
        br = max(4, _pow2_at_least(rows))
        for cw in (c for c in (16, 64, 256, 1024) if 1024 <= br * c <= 16384):
            for w in (4, 8):
                for mode in ("shifted", "items"):
                    if br * cw <= 16384:
                        out[f"w{br}x{cw}-{w}-{mode}"] = (4, WordsConfig(br, cw, w, mode))
        bc = min(1024, _pow2_at_most(16384 // (br * size)))
        out[f"t{br}x{bc}"] = (size, TileConfig(min(br, 1024), bc, 8))
    else:  # many short rows: output rows long
        cw = _pow2_at_least(math.ceil(cols / pack))
        for br in (128, 256, 1024):
            for w in (4, 8):
                for mode in ("shifted", "items"):
                    if br * cw <= 16384:
                        out[f"w{br}x{cw}-{w}-{mode}"] = (4, WordsConfig(br, cw, w, mode))
        bc = _pow2_at_least(cols)
        out[f"t{min(1024, _pow2_at_most(16384 // (bc * size)))}x{bc}"] = (
            size, TileConfig(min(1024, _pow2_at_most(16384 // (bc * size))), bc, 8))
    return out


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    shapes = list(NAMED) if "--named" in sys.argv else []
    shapes += [draw(rng) for _ in range(cases)]
    if NARROW_ONLY:
        shapes = [s for s in shapes if s[2] * s[0] <= 64 and s[2] >= 2]
    rows_out = []
    t0 = time.time()
    for size, batch, m, n in shapes:
        shape = (batch, m, n) if batch > 1 else (m, n)
        strides = tuple(size * s for s in ((m * n, n, 1) if batch > 1 else (n, 1)))
        problem = canonical(shape, strides, size)
        current = engine.choose(problem, "cuda:0")
        plans = {"current " + current.name: current}
        if RULE:
            if skinny(problem) is None or (INTERLEAVE and not isinstance(skinny(problem)[1], InterleaveConfig)):
                continue
            old = build(problem, natural_word(problem))  # the heuristic's plan, in the word it would take
            plans["old " + old.name] = old
        else:
            for name, (word, cfg) in candidates(m, n, size, problem).items():
                plans[name] = build(problem, word, cfg)
        dtype = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}[size]
        x = torch.randint(0, 256, (*shape[:-1], size * n), dtype=torch.uint8, device="cuda").view(dtype)
        want = x.transpose(-1, -2).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        exact = {}
        for name, p in plans.items():
            o.view(torch.uint8).fill_(0xA5)
            engine.run(p, xv, ov)
            exact[name] = torch.equal(bits(o), bits(want))  # bit for bit: random bits hold NaNs
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, s=x: d.copy_(s)}
        if RULE:
            fns["torch"] = lambda d=o, s=x: d.copy_(s.transpose(-1, -2))
        fns.update({name: (lambda p=p, s=xv, t=ov: engine.run(p, s, t)) for name, p in plans.items()})
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
        row = {"case": f"{str(dtype)[6:]} " + "x".join(map(str, shape)), "size": size,
               "batch": batch, "rows": m, "cols": n, "exact": exact,
               "pct": {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}}
        best = max(row["pct"], key=row["pct"].get)
        cur = next(k for k in row["pct"] if k.startswith("current"))
        print(f"{time.time() - t0:6.0f}s {row['case']:28s} current {row['pct'][cur]:5.1f} ({cur[8:]}) best "
              f"{row['pct'][best]:5.1f} {best} {'' if all(exact.values()) else 'NOT EXACT'}", flush=True)
        rows_out.append(row)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "seed": seed, "rows": rows_out}, f, indent=1)


if __name__ == "__main__":
    main()
