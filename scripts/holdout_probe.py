"""Probe: every candidate plan for the permute suites' slowest random cases (the planner's, autotune's element
tiles plain and packed, and permute_words tiles in both output modes), each checked bit-exact against torch into a
poisoned output, then timed with the copy in interleaved CUDA-event rounds.

    python scripts/holdout_probe.py OUT.json
"""

from __future__ import annotations

import contextlib
import json
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine import permute
from cornerturn.problem import Permutation, canonical_permutation

CASES = [("uint8", (98, 11, 9, 87, 79), (1, 4, 0, 3, 2)), ("uint8", (80, 4, 240, 20, 47), (4, 2, 0, 3, 1)),
         ("int8", (33, 72, 47, 4, 27, 6), (5, 4, 0, 2, 1, 3)), ("int16", (557, 10, 391, 37), (1, 0, 3, 2)),
         ("int8", (130, 91, 69, 50), (1, 2, 3, 0)), ("uint8", (111, 1257, 9, 35), (0, 2, 3, 1)),
         ("int16", (3, 99, 47, 57, 58, 5), (2, 4, 5, 3, 0, 1)), ("int64", (99, 8, 247, 65), (2, 3, 1, 0)),
         ("int16", (12, 100, 13, 5, 15, 227), (1, 3, 5, 4, 2, 0)),
         ("int16", (63, 49, 11, 9, 36, 13), (3, 2, 5, 1, 4, 0)),
         ("int8", (6, 8, 839, 390, 8), (2, 4, 3, 0, 1)), ("int16", (18324, 81, 47), (1, 0, 2)),
         ("int16", (649, 3517, 95), (2, 0, 1)), ("uint8", (178, 12, 190, 179), (2, 0, 1, 3)),
         ("int16", (3, 5, 55, 67, 56, 22), (5, 0, 4, 3, 1, 2)), ("int8", (256, 256, 64, 64), (3, 2, 1, 0))]
WORDS = [(a, b, w, o) for a, b in ((128, 16), (128, 32), (256, 16)) for w in (4, 8)
         for o in ("shifted", "items")]


def timed(fns, repeats=7):
    times = {k: [] for k in fns}
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    for _ in range(repeats):
        for k, fn in fns.items():
            fn()
            ev[0].record()
            fn()
            ev[1].record()
            ev[1].synchronize()
            times[k].append(ev[0].elapsed_time(ev[1]))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def plans_of(p):
    plans = {}
    if not isinstance(p, Permutation):  # a transpose: the words kernel's candidates (engine.configs)
        from cornerturn.engine.configs import words_candidates, words_ok
        from cornerturn.engine.plan import build
        if words_ok(p):
            for config in words_candidates(True)[::3]:
                plans["4:" + config.name] = build(p, 4, config)
        return plans
    for word, config in permute.candidates(p):
        with contextlib.suppress(ValueError):
            plans[f"{word}:{config.name}" + ("-packed" if getattr(config, "packed", False) else "")] = \
                permute.build(p, word, config)
    if permute.words_sides(p) is not None or (p.itemsize <= 2):
        for a, b, w, o in WORDS:
            with contextlib.suppress(ValueError, AssertionError, TypeError):
                plans[f"4:pwords{a}x{b}-w{w}-{o}"] = permute.build(p, 4, permute.PermuteWordsConfig(a, b, w, o))
    return plans


def main() -> None:
    path = sys.argv[1]
    rows = []
    t0 = time.time()
    for dtype, shape, axes in CASES:
        tdt = getattr(torch, dtype)
        size = torch.empty(0, dtype=tdt).element_size()
        strides, step = [], size
        for e in reversed(shape):
            strides.append(step)
            step *= e
        p = canonical_permutation(shape, tuple(reversed(strides)), size, axes)
        info = torch.iinfo(tdt)
        x = torch.randint(info.min, info.max, shape, dtype=tdt, device="cuda")
        want = x.permute(*axes).contiguous()
        o = torch.empty_like(want)
        xv, ov = view_of(x), view_of(o)
        planner = engine.choose(p, "cuda:0")
        plans = {"planner:" + planner.config.name: planner, **plans_of(p)}
        good = {}
        bad = []
        for name, plan in plans.items():
            try:
                o.fill_(-93)
                engine.run(plan, xv, ov)
                torch.cuda.synchronize()
            except Exception as exc:
                bad.append(f"{name}: {str(exc)[:80]}")
                continue
            if torch.equal(o, want):
                good[name] = plan
            else:
                bad.append(f"{name}: NOT EXACT")
        d = torch.empty_like(x)
        fns = {"copy": lambda d=d, x=x: d.copy_(x), "torch": lambda o=o, x=x, axes=axes: o.copy_(x.permute(*axes))}
        fns.update({k: (lambda plan=plan, xv=xv, ov=ov: engine.run(plan, xv, ov)) for k, plan in good.items()})
        med = timed(fns)
        pct = {k: round(100 * med["copy"] / v, 1) for k, v in med.items() if k != "copy"}
        best = max((k for k in pct if k != "torch"), key=pct.get)
        top = sorted(((v, k) for k, v in pct.items()), reverse=True)[:4]
        print(f"{time.time() - t0:4.0f}s {dtype} {'x'.join(map(str, shape))} {axes}: planner "
              f"{pct[next(k for k in pct if k.startswith('planner'))]} best {pct[best]} {best} | "
              + ", ".join(f"{k} {v}" for v, k in top) + (f" | failed {bad}" if bad else ""), flush=True)
        rows.append({"dtype": dtype, "shape": shape, "axes": axes, "problem": repr(p), "pct": pct, "failed": bad})
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
