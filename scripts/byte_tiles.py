"""Packed tiles for bytes (and 16-bit elements) side by side: the heuristic's plan and four tile shapes (the
first, 128 rows x 64 words with 8 warps, the bytes' heuristic before 2026-11-23 19:40 UTC),
each checked bit for bit, then timed in five interleaved rounds against torch's copy of the same bytes.

    [ODD=1|only] [PAIRS=1|only] python3 scripts/byte_tiles.py   (needs a GPU; writes $OUT/byte_tiles.json; ODD
    adds int8 matrices with odd rows, whose heuristic is the funnel kernel, with funnel tiles; PAIRS adds
    1 GiB matrices of 16-byte elements with the pairs kernel's tiles, up to 128 KiB)
"""

import json
import os
import statistics

import torch

from cornerturn.engine.configs import FunnelConfig, PackedConfig, PairsConfig, natural_word
from cornerturn.engine.plan import build
from cornerturn.engine.timing import time_cuda
from cornerturn.problem import Problem

PACKED = [None, PackedConfig(128, 64, 8, split=True), PackedConfig(256, 64, 4, split=True),
          PackedConfig(256, 64, 8, split=True), PackedConfig(128, 128, 4, split=True)]  # None: the heuristic's
FUNNEL = [None, FunnelConfig(128, 32, 4), FunnelConfig(256, 16, 4), FunnelConfig(256, 16, 8),
          FunnelConfig(256, 32, 4), FunnelConfig(128, 16, 4)]  # bytes whose input rows are odd
CASES = [(1, 32768, 32768), (1, 16384, 16384), (1, 65536, 16384), (1, 16384, 65536), (2, 16384, 16384),
         (2, 32768, 16384)]
ODD_CASES = [(1, 16384, 16383), (1, 16383, 16385), (1, 32767, 16383), (1, 65536, 16383)]  # both sides >= 4096
PAIRS = [None, PairsConfig(64, 64, 8), PairsConfig(64, 64, 16), PairsConfig(128, 32, 8), PairsConfig(32, 128, 8),
         PairsConfig(128, 64, 16), PairsConfig(64, 128, 16), PairsConfig(64, 32, 4)]  # None: pairs32x64-w8
PAIR_CASES = [(16, 8192, 8192), (16, 16384, 4096), (16, 4096, 16384)]
ROUNDS = 5
NAMES = {1: "int8", 2: "int16", 16: "complex128"}


def runner(plan, x: torch.Tensor, y: torch.Tensor, stream: int):
    def call():
        for xo, oo, launch in plan.pieces:
            launch.run_pointers(x.data_ptr() + xo, y.data_ptr() + oo, stream, 0)
    return call


def case(size: int, m: int, n: int, configs: list, stream: int) -> tuple[str, dict]:
    problem = Problem("transpose", (), (), m, n, n * size, size, size)
    word = natural_word(problem)
    x = torch.randint(-128, 127, (m * n * size,), dtype=torch.int8, device="cuda")
    y = torch.empty_like(x)
    copied = torch.empty_like(x)
    view = {1: torch.int8, 2: torch.int16, 16: torch.int64}[size]  # 16-byte elements as pairs of words
    want = x.view(view).view(m, n, -1).transpose(0, 1).contiguous().view(-1).view(torch.int8)
    plans = {(p := build(problem, word, config)).config.name: runner(p, x, y, stream) for config in configs}
    exact, failed = {}, {}
    for name, call in plans.items():
        y.fill_(5)
        try:
            call()
        except Exception as e:  # a tile too large for shared memory, say: recorded, not timed
            failed[name] = f"{type(e).__name__}: {str(e)[:200]}"
            continue
        exact[name] = bool(torch.equal(y, want))
    plans = {name: call for name, call in plans.items() if name not in failed}
    times = {name: [] for name in ["copy", *plans]}
    for _ in range(ROUNDS):
        times["copy"].append(time_cuda(lambda: copied.copy_(x), repeats=5).median)
        for name, call in plans.items():
            times[name].append(time_cuda(call, repeats=5).median)
    t_copy = statistics.median(times["copy"])
    row = {name: {"pct": round(100 * t_copy / statistics.median(times[name]), 1),
                  "pct_rounds": [round(100 * t_copy / t, 1) for t in times[name]], "exact": exact[name]}
           for name in plans}
    row.update({name: {"failed": why} for name, why in failed.items()})
    heuristic_name = next(iter(plans))
    return f"{NAMES[size]} {m}x{n} (heuristic {heuristic_name})", row


def main() -> None:
    out = {"device": torch.cuda.get_device_name(), "cases": {}}
    stream = torch.cuda.current_stream().cuda_stream
    only = "only" in (os.environ.get("ODD"), os.environ.get("PAIRS"))
    cases = [(c, PACKED) for c in CASES] if not only else []
    cases += [(c, FUNNEL) for c in ODD_CASES] if os.environ.get("ODD") else []
    cases += [(c, PAIRS) for c in PAIR_CASES] if os.environ.get("PAIRS") else []
    for (size, m, n), configs in cases:
        key, row = case(size, m, n, configs, stream)
        out["cases"][key] = row
        print(key, {k: (v["pct"], min(v["pct_rounds"]), max(v["pct_rounds"]), v["exact"]) if "pct" in v else v
                    for k, v in row.items()}, flush=True)
    with open(os.path.join(os.environ.get("OUT", "/tmp"), "byte_tiles.json"), "w") as f:
        json.dump(out, f, indent=1)


main()
