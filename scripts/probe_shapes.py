"""Probe (GPU): the engine's plans on shapes nobody listed, against variants, each checked bit for bit and timed
against torch's copy of the same bytes in the same run. Results go to $OUT/probe-shapes.json as they come.

    python3 scripts/probe_shapes.py cliff            the 2-byte cliff shapes: variants of their plans
    SEED=7001 CASES=24 python3 scripts/probe_shapes.py random   random shapes: heuristic (with and without
                                                     alignment hints), every autotune candidate up to a budget

BUDGET_S bounds the whole run (default 500 s); CAND_S the candidates of one case (default 6 s).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import traceback
from pathlib import Path

import torch

from cornerturn.bench import plain_tile
from cornerturn.bench.suites import Case, random_cases
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import (
    FunnelConfig,
    PackedConfig,
    TileConfig,
    WordsConfig,
    candidates,
    heuristic,
    natural_word,
)
from cornerturn.engine.timing import time_cuda
from cornerturn.problem import canonical

OUT = Path(os.environ.get("OUT", "/tmp")) / "probe-shapes.json"
START = time.time()
BUDGET_S = float(os.environ.get("BUDGET_S", 500))
CAND_S = float(os.environ.get("CAND_S", 6))
RESULTS: dict = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "command": " ".join(["python3", *sys.argv]), "cases": []}


def save() -> None:
    OUT.write_text(json.dumps(RESULTS, indent=1))


def make(case: Case):
    dtype = getattr(torch, case.dtype)
    n = case.nbytes
    x = torch.randint(-128, 127, (n,), dtype=torch.int8, device="cuda").view(dtype).view(case.shape)
    *batch, rows, cols = case.shape
    out = torch.empty((*batch, cols, rows), dtype=dtype, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    return x, out, want


def timed(fn, x, out, want) -> dict:
    out.view(torch.int8).fill_(-91)
    fn()
    torch.cuda.synchronize()
    exact = bool(torch.equal(out.view(torch.int8), want.view(torch.int8)))
    t = time_cuda(fn, repeats=7).median
    return {"exact": exact, "ms": round(t * 1e3, 4)}


def copy_time(x) -> float:
    copied = torch.empty_like(x)
    return time_cuda(lambda: copied.copy_(x), repeats=7).median


def engine_call(problem, word, config, x, out, hints=True):
    p = engine_plan.build(problem, word, config)
    for _, _, launch in p.pieces:
        if not hints:
            launch.constexprs = {k: (1 if k in ("IN_ALIGN", "OUT_ALIGN") else v) for k, v in launch.constexprs.items()}
    stream = torch.cuda.current_stream().cuda_stream
    x_ptr, out_ptr = x.data_ptr(), out.data_ptr()

    def call():
        for xo, oo, launch in p.pieces:
            launch.run_pointers(x_ptr + xo, out_ptr + oo, stream, 0)

    return call, p.name


def probe(case: Case, variants: list, budget_s: float | None = None) -> dict:
    """variants: (label, config, word, hints); after the first two, none starts later than `budget_s` after the
    case's start."""
    case_start = time.time()
    x, out, want = make(case)
    copy_ms = copy_time(x) * 1e3
    problem = canonical(tuple(x.shape), tuple(s * x.element_size() for s in x.stride()), x.element_size())
    row = {"case": case.name, "shape": list(case.shape), "dtype": case.dtype, "copy_ms": round(copy_ms, 4),
           "problem": problem.describe(), "variants": {}}
    try:
        torch_r = timed(lambda: out.copy_(x.transpose(-1, -2)), x, out, want)
        row["variants"]["torch"] = {**torch_r, "pct": round(100 * copy_ms / torch_r["ms"], 1)}
    except Exception as exc:  # noqa: BLE001
        row["variants"]["torch"] = {"error": str(exc)[:200]}
    if plain_tile.supports(x.element_size()):
        try:
            r = timed(plain_tile.make(x, out), x, out, want)
            row["variants"]["plain-tile"] = {**r, "pct": round(100 * copy_ms / r["ms"], 1)}
        except Exception as exc:  # noqa: BLE001 - a probe records what failed
            row["variants"]["plain-tile"] = {"error": str(exc)[:200]}
    for k, (label, config, word, hints) in enumerate(variants):
        late = budget_s is not None and k >= 2 and time.time() - case_start > budget_s
        if late or time.time() - START > BUDGET_S:
            row["variants"][label] = {"skipped": "over budget"}
            continue
        try:
            call, name = engine_call(problem, word or natural_word(problem), config, x, out, hints)
            r = timed(call, x, out, want)
            row["variants"][label] = {**r, "plan": name, "pct": round(100 * copy_ms / r["ms"], 1)}
        except Exception as exc:  # noqa: BLE001
            row["variants"][label] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    x = out = want = None
    torch.cuda.empty_cache()
    return row


def cliff() -> None:
    shapes = [("bfloat16", (8192, 6000)), ("bfloat16", (6000, 6000)), ("float16", (27460, 12358)),
              ("bfloat16", (104278, 3152)), ("float16", (8, 5428, 1038)), ("bfloat16", (6000, 8192)),
              ("float16", (8000, 8000)), ("int8", (114201, 2410)), ("int8", (4869, 29081)), ("int8", (8192, 6000)),
              ("float32", (5044, 28681)), ("float32", (6000, 6000))]
    for dtype, shape in shapes:
        case = Case(shape, dtype)
        item = case.itemsize
        strides = []
        acc = item
        for e in reversed(shape):
            strides.append(acc)
            acc *= e
        problem = canonical(shape, tuple(reversed(strides)), item)
        word = natural_word(problem)
        variants = [("heuristic", None, word, True), ("heuristic-nohints", None, word, False)]
        h = heuristic(problem, word)
        if isinstance(h, PackedConfig):
            variants += [("packed-split", PackedConfig(h.block_r, h.block_cw, h.num_warps, split=not h.split), word,
                          True),
                         ("packed-split-nohints", PackedConfig(h.block_r, h.block_cw, h.num_warps,
                                                               split=not h.split), word, False)]
        for cfg in (TileConfig(64, 64, 4), TileConfig(64, 128, 8), TileConfig(128, 64, 8), TileConfig(32, 128, 4)):
            variants.append((f"elements-{cfg.name}", cfg, item if item <= 8 else 8, True))
        RESULTS["cases"].append(probe(case, variants))
        save()


def random_suite() -> None:
    seed, count = int(os.environ.get("SEED", 7001)), int(os.environ.get("CASES", 24))
    RESULTS["seed"] = seed
    for case in random_cases(seed, count, "cuda"):
        if time.time() - START > BUDGET_S:
            break
        item = case.itemsize
        strides, acc = [], item
        for e in reversed(case.shape):
            strides.append(acc)
            acc *= e
        problem = canonical(case.shape, tuple(reversed(strides)), item)
        word = natural_word(problem)
        variants = [("heuristic", None, word, True), ("heuristic-nohints", None, word, False)]
        found = candidates(problem, word)
        order = random.Random(seed).sample(range(len(found)), len(found))  # an even sample within the budget
        variants += [(f"cand-{found[k].name}", found[k], word, True) for k in order]
        RESULTS["cases"].append(probe(case, variants, CAND_S))
        save()


def compare() -> None:
    """The packed and funnel kernels against transpose_words with the same tiles."""
    W, P, F, T = WordsConfig, PackedConfig, FunnelConfig, TileConfig  # noqa: N806
    cases = [("int8", (32768, 32768), [("old-packed", P(256, 64, 4, True), 4),
                                        ("words", W(256, 64, 4), 4)]),
             ("int8", (16384, 16384), [("old-packed", P(128, 64, 8, True), 4),
                                        ("words", W(128, 64, 8), 4), ("words-w4", W(128, 64, 4), 4)]),
             ("float16", (16384, 16384), [("old-packed", P(128, 64, 4), 4),
                                           ("words", W(128, 64, 4), 4), ("words-32", W(128, 32, 4), 4)]),
             ("bfloat16", (8192, 6000), [("old-packed", P(128, 64, 4), 4),
                                          ("words", W(128, 64, 4), 4)]),
             ("float16", (27460, 12358), [("old-packed-split", P(128, 64, 4, True), 4),
                                           ("words", W(128, 64, 4), 4), ("words-32", W(128, 32, 4), 4),
                                           ("tiles", T(256, 64, 8), 2)]),
             ("int8", (16384, 16383), [("old-funnel", F(128, 32, 4), 4),
                                        ("words", W(128, 32, 4), 4), ("words-64", W(64, 32, 4), 4)]),
             ("int8", (16383, 16385), [("old-funnel", F(128, 32, 4), 4),
                                        ("words", W(128, 32, 4), 4), ("words-64", W(64, 32, 4), 4),
                                        ("words-64-16", W(64, 16, 4), 4),
                                        ("items", W(128, 32, 4, "items"), 4)]),
             ("int8", (4869, 29081), [("old-funnel", F(128, 32, 4), 4),
                                       ("words-64", W(64, 32, 4), 4), ("items", W(128, 32, 4, "items"), 4)]),
             ("int8", (114201, 2410), [("old-tiles", T(64, 128, 4), 1),
                                        ("words", W(128, 32, 4), 4), ("words-64", W(64, 32, 4), 4)]),
             ("int16", (14 * 1234, 16999), [("old-tiles", T(256, 64, 8), 2),
                                             ("words", W(128, 32, 4), 4), ("words-64", W(64, 32, 4), 4)])]
    for dtype, shape, variants in cases:
        RESULTS["cases"].append(probe(Case(shape, dtype), [(label, cfg, word, True) for label, cfg, word in variants]))
        save()


if __name__ == "__main__":
    try:
        {"cliff": cliff, "random": random_suite, "compare": compare}[sys.argv[1]]()
    except Exception:  # noqa: BLE001
        RESULTS["error"] = traceback.format_exc()[-3000:]
        save()
        raise
    for c in RESULTS["cases"]:
        best = max((v for v in c["variants"].values() if v.get("pct")), key=lambda v: v["pct"], default={})
        h = c["variants"].get("heuristic", {})
        print(f"{c['case']:32s} heuristic {h.get('pct')}% ({h.get('plan')})  best {best.get('pct')}% "
              f"({best.get('plan')}) torch {c['variants']['torch'].get('pct')}%  plain "
              f"{c['variants'].get('plain-tile', {}).get('pct')}%", flush=True)
