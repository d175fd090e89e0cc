"""GPU time of each pass of the in-place plan for non-square matrices: the three passes of cornerturn.ckg
(column passes pipelined through a ring of 4 MiB slots) against the block and peeled forms of cornerturn.blocks
(square blocks in place, chunks permuted by cycles; an edge of a few rows saved, rows restrided) where they
apply; each plan's result checked bit for bit against torch's transpose first.

    python3 scripts/inplace_passes.py [32768x4095:float16 ...]   (writes $OUT/rect_passes.json; needs a GPU)
"""

import itertools
import json
import os
import sys

import torch

from cornerturn.engine import rectangular
from cornerturn.engine.timing import time_cuda


def run_steps(steps, x, scratch, table):
    pointers = {"x": x.data_ptr(), "scratch": scratch.data_ptr(), "table": table.data_ptr()}
    stream = torch.cuda.current_stream().cuda_stream
    for s in steps:
        s.launch.run_pointers(pointers[s.first[0]] + s.first[1], pointers[s.second[0]] + s.second[1], stream, 0,
                              s.ints)


PASS_OF = {"cycles_save": "chunk cycles", "cycles_move": "chunk cycles", "cycles_save_packed": "chunk cycles",
           "cycles_move_packed": "chunk cycles", "transpose_square_inplace": "squares",
           "copy_2d": "edge", "restride_rows": "rows restrided",
           "restride_rows_packed": "rows restrided"}


def passes(plan):
    """The plan's launches grouped by pass: (name, steps); a launch that zeroes counters or copies a cycle table
    goes with the pass after it."""
    key = lambda s: (s.launch.kernel.fn.__name__, s.launch.constexprs.get("MODE"))  # noqa: E731
    grouped, pending = [], []
    for (name, mode), steps in itertools.groupby(plan.steps, key=key):
        if name in ("zero_words", "copy_words"):
            pending = list(steps)
            continue
        label = PASS_OF.get(name, f"{name}{'' if mode is None else (' post' if mode else ' pre')}")
        if grouped and grouped[-1][0] == label:
            grouped[-1][1].extend(pending + list(steps))
        else:
            taken = sum(name.split(" #")[0] == label for name, _ in grouped)
            grouped.append((f"{label} #{taken + 1}" if taken else label, pending + list(steps)))
        pending = []
    return grouped


SETTINGS = {
    "three passes": {"blocks": rectangular.BlockOptions(enabled=False)},
    "default form": {},  # the default: the block, grid, peeled or trimmed form where one applies
}


def measure(m, n, dtype):
    """Each setting's plan checked and timed, whole and pass by pass; the ceiling is the faster of two timings of
    torch's copy of the same bytes, before and after the plans (the first copy on fresh memory can be slower)."""
    itemsize = torch.empty((), dtype=dtype).element_size()
    x = torch.randint(0, 255, (m * n * itemsize,), dtype=torch.uint8, device="cuda")
    flat = torch.empty_like(x)
    copies = [time_cuda(lambda: flat.copy_(x), repeats=5).median]
    case = {}
    for label, options in SETTINGS.items():
        want = x.view(m, n * itemsize).view(dtype).t().contiguous().view(-1).view(torch.uint8)
        plan = rectangular.plan(1, m, n, itemsize, 16, **options)
        scratch = torch.empty(max(plan.scratch_bytes, 16), dtype=torch.uint8, device="cuda")
        table = torch.frombuffer(bytearray(plan.table or bytes(16)), dtype=torch.uint8).cuda()
        y = x.clone()
        run_steps(plan.steps, y, scratch, table)
        exact = bool(torch.equal(y, want))
        del y
        t_all = time_cuda(lambda p=plan, s=scratch, t=table: run_steps(p.steps, x, s, t), repeats=5).median
        row = {"bit_exact": exact, "total_ms": t_all * 1e3, "launches": len(plan.steps),
               "kernels": sorted({s.launch.kernel.fn.__name__ for s in plan.steps}),
               "scratch_bytes": plan.scratch_bytes}
        for name, steps in passes(plan):
            row[name] = {"ms": 1e3 * time_cuda(lambda st=steps, s=scratch, t=table: run_steps(st, x, s, t),
                                               repeats=5).median}
        case[label] = row
    copies.append(time_cuda(lambda: flat.copy_(x), repeats=5).median)
    case["copy_ms"] = 1e3 * min(copies)
    for label in SETTINGS:
        row = case[label]
        row["pct_copy"] = 100 * case["copy_ms"] / row["total_ms"]
        for part in row.values():
            if isinstance(part, dict):
                part["pct_copy"] = 100 * case["copy_ms"] / part["ms"]
        print(m, n, dtype, label, json.dumps(row), flush=True)
    return case


SHAPES = [(32768, 8192, "float32"), (32768, 8191, "float32"), (8191, 32768, "float32"), (32768, 12289, "float32"),
          (65536, 16384, "int8"), (16384, 32768, "float16"), (8192, 4096, "complex128"), (8192, 32768, "float32")]


def main(argv: list[str]) -> None:
    """Arguments, if any, are shapes such as 32768x4095:float16; the default is SHAPES."""
    shapes = [(*map(int, a.split(":")[0].split("x")), a.split(":")[1]) for a in argv] or SHAPES
    out = {}
    for m, n, dtype in shapes:
        out[f"{m}x{n} {dtype}"] = measure(m, n, getattr(torch, dtype))
        torch.cuda.empty_cache()
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    with open(os.path.join(os.environ.get("OUT", "."), "rect_passes.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
