"""GPU time of each pass of the in-place plan for non-square matrices: column passes a launch per 32 MiB band
(double-buffered) against one pipelined launch per pass (4 MiB bands through a ring of slots).

    python3 scripts/inplace_passes.py   (writes $OUT/rect_passes.json; needs a GPU)
"""

import itertools
import json
import os

import torch

from cornerturn.engine import rectangular
from cornerturn.engine.timing import time_cuda


def run_steps(steps, x, scratch):
    pointers = {"x": x.data_ptr(), "scratch": scratch.data_ptr()}
    stream = torch.cuda.current_stream().cuda_stream
    for s in steps:
        s.launch.run_pointers(pointers[s.first[0]] + s.first[1], pointers[s.second[0]] + s.second[1], stream, 0,
                              s.ints)


def passes(plan):
    """The plan's launches grouped by pass: (name, steps); a counter-zeroing launch goes with the pass after it."""
    key = lambda s: (s.launch.kernel.fn.__name__, s.launch.constexprs.get("MODE"))  # noqa: E731
    grouped, pending = [], []
    for (name, mode), steps in itertools.groupby(plan.steps, key=key):
        if name == "zero_words":
            pending = list(steps)
            continue
        grouped.append((f"{name}{'' if mode is None else (' post' if mode else ' pre')}", pending + list(steps)))
        pending = []
    return grouped


SETTINGS = {
    "banded 32 MiB": rectangular.ColumnOptions(pipelined=False, band_bytes=32 << 20),
    "pipelined 4 MiB": None,  # the element size's settings (rectangular.column_options)
}


def measure(m, n, dtype):
    itemsize = torch.empty((), dtype=dtype).element_size()
    x = torch.randint(0, 255, (m * n * itemsize,), dtype=torch.uint8, device="cuda")
    flat = torch.empty_like(x)
    t_copy = time_cuda(lambda: flat.copy_(x), repeats=5).median
    case = {"copy_ms": t_copy * 1e3}
    for label, columns in SETTINGS.items():
        columns = rectangular.column_options(itemsize) if columns is None else columns
        plan = rectangular.plan(1, m, n, itemsize, 16, columns=columns)
        scratch = torch.empty(plan.scratch_bytes, dtype=torch.uint8, device="cuda")
        t_all = time_cuda(lambda p=plan, s=scratch: run_steps(p.steps, x, s), repeats=5).median
        row = {"total_ms": t_all * 1e3, "pct_copy": 100 * t_copy / t_all, "launches": len(plan.steps),
               "columns": str(columns), "scratch_bytes": plan.scratch_bytes}
        for name, steps in passes(plan):
            t = time_cuda(lambda st=steps, s=scratch: run_steps(st, x, s), repeats=5).median
            row[name] = {"ms": t * 1e3, "pct_copy": 100 * t_copy / t}
        case[label] = row
        print(m, n, dtype, label, json.dumps(row), flush=True)
    return case


out = {}
for m, n, dtype in [(32768, 8192, torch.float32), (32768, 8191, torch.float32), (65536, 16384, torch.int8),
                    (16384, 32768, torch.float16), (8192, 4096, torch.complex128), (8192, 32768, torch.float32)]:
    out[f"{m}x{n} {dtype}"] = measure(m, n, dtype)
    torch.cuda.empty_cache()
os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
with open(os.path.join(os.environ.get("OUT", "."), "rect_passes.json"), "w") as f:
    json.dump(out, f, indent=1)
