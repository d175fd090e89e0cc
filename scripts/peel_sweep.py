"""BlockOptions of the block, peeled and trimmed forms of the in-place transpose (cornerturn.engine.rectangular), one
setting changed at a time from the default: each plan checked bit for bit first, then timed whole and pass by pass
against torch's copy of the same bytes.

    [VARY=block:256,512 | VARY=trim_sizes] python3 scripts/peel_sweep.py [32768x8191:float32 ...]
    (writes $OUT/peel_sweep.json; needs a GPU)
"""

import dataclasses
import json
import os
import sys

import torch
from inplace_passes import passes, run_steps

from cornerturn.engine import rectangular
from cornerturn.engine.timing import time_cuda

VARIANTS = {"block": (256, 512, 2048, 4096), "saved_bytes": (4 << 20, 32 << 20, 64 << 20),
            "segments": (1024, 16384), "restride_bytes": (4 << 10, 8 << 10, 32 << 10, 64 << 10),
            "trim_sizes": ((), (1, 2), (1, 2, 4))}
if os.environ.get("VARY"):  # e.g. VARY=block:256,512 or VARY=trim_sizes (its values above)
    name, _, values = os.environ["VARY"].partition(":")
    VARIANTS = {name: tuple(int(v) for v in values.split(",")) if values else VARIANTS[name]}


def settings():
    default = rectangular.BLOCK_OPTIONS
    yield "default", default
    for name, values in VARIANTS.items():
        for value in values:
            yield f"{name}={value}", dataclasses.replace(default, **{name: value})
    if not os.environ.get("VARY"):
        yield "plain words", default


def sweep(m: int, n: int, dtype) -> dict:
    itemsize = torch.empty((), dtype=dtype).element_size()
    x = torch.randint(0, 255, (m * n * itemsize,), dtype=torch.uint8, device="cuda")
    flat = torch.empty_like(x)
    copy_ms = 1e3 * time_cuda(lambda: flat.copy_(x), repeats=5).median
    out = {"copy_ms": copy_ms}
    for label, options in settings():
        # x is transposed in place by every timing, so the expected result is taken from it as it is now
        want = x.view(m, n * itemsize).view(dtype).t().contiguous().view(-1).view(torch.uint8)
        packed_word = rectangular._packed_word
        if label == "plain words":  # chunks and rows moved in element-wide words, never funnel-shifted
            rectangular._packed_word = lambda *_: 0
        rectangular._plan.cache_clear()
        plan = rectangular.plan(1, m, n, itemsize, 16, blocks=options)
        rectangular._packed_word = packed_word
        scratch = torch.empty(max(plan.scratch_bytes, 16), dtype=torch.uint8, device="cuda")
        table = torch.frombuffer(bytearray(plan.table or bytes(16)), dtype=torch.uint8).cuda()
        y = x.clone()
        run_steps(plan.steps, y, scratch, table)
        row = {"bit_exact": bool(torch.equal(y, want)), "scratch_bytes": plan.scratch_bytes}
        del y
        row["ms"] = 1e3 * time_cuda(lambda p=plan, s=scratch, t=table: run_steps(p.steps, x, s, t), repeats=5).median
        row["pct_copy"] = 100 * copy_ms / row["ms"]
        for name, steps in passes(plan):
            row[name] = 1e3 * time_cuda(lambda st=steps, s=scratch, t=table: run_steps(st, x, s, t), repeats=5).median
        out[label] = row
        print(m, n, dtype, label, json.dumps(row), flush=True)
    return out


def main(argv: list[str]) -> None:
    shapes = [(*map(int, a.split(":")[0].split("x")), a.split(":")[1]) for a in argv] or [(32768, 8191, "float32")]
    out = {f"{m}x{n} {dtype}": sweep(m, n, getattr(torch, dtype)) for m, n, dtype in shapes}
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    with open(os.path.join(os.environ.get("OUT", "."), "peel_sweep.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
