"""Probe: element tiles whose stores start at each output row's own 32-byte boundary (SKEW). A program of tile row
tr writes, of output row c, the elements from the first sector boundary at or after tr * BLOCK_R onwards (BLOCK_R
of them), reading for that the input rows shifted by that row's distance to the boundary (d_c, under a sector's
elements); the first tile row also writes each row's first d_c elements. So every sector of the output is written
whole by one store of one program, where the plan's tiles split a sector between two programs wherever output rows
do not start at 32 bytes; the loads of a warp then reach up to a sector's elements' rows, from the L1. Matrices of
2-, 4- and 8-byte elements drawn from SEED (cornerturn.bench.suites.random_cases) whose plan is the element tiles
and whose output rows do not start at 32 bytes; the plan against the same tiles skewed, with a device copy of the
same bytes in interleaved rounds; every result checked bit for bit against torch's transpose into a poisoned output.

    python3 scripts/skew_probe.py OUT.json SEED CASES
"""

import copy
import json
import math
import sys
import time

import triton
import triton.language as tl

from cornerturn.engine.kernels import _tile_of_program


@triton.jit
def tiles_skew(x_ptr, out_ptr, rows, cols, batch_stride, row_stride, col_stride, tiles_r, tiles_c, out_row_stride,
               band, out_mis, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WIDE: tl.constexpr,
               UNITS: tl.constexpr):
    """out_mis: the output's first word's place in its sector (words); UNITS: words a sector."""
    b, tr, tc = _tile_of_program(tiles_r, tiles_c, band, WIDE)
    i = tl.arange(0, BLOCK_R)
    c = tc * BLOCK_C + tl.arange(0, BLOCK_C)
    r0 = tr * BLOCK_R
    row0 = out_mis + (b * cols + c) * out_row_stride + r0  # [BLOCK_C]: where (r0, c) lies, from a sector boundary
    d = (UNITS - (row0 & (UNITS - 1))) & (UNITS - 1)
    x_base = x_ptr + b * batch_stride
    out_base = out_ptr + b * cols * out_row_stride
    r = r0 + d[None, :] + i[:, None]
    mask = (r < rows) & (c[None, :] < cols)
    tile = tl.load(x_base + r * row_stride + c[None, :] * col_stride, mask=mask)
    tl.store(out_base + c[None, :] * out_row_stride + r, tile, mask=mask)
    if tr == 0:  # each row's first d_c elements
        h = tl.arange(0, UNITS)[:, None]
        hm = (h < d[None, :]) & (h < rows) & (c[None, :] < cols)
        head = tl.load(x_base + h * row_stride + c[None, :] * col_stride, mask=hm)
        tl.store(out_base + c[None, :] * out_row_stride + h, head, mask=hm)


SIZES = {"float16": 2, "bfloat16": 2, "int16": 2, "float32": 4, "int32": 4, "float64": 8, "int64": 8,
         "complex64": 8}
FIXED = [("int32", (1, 301997, 401)), ("float32", (1, 16383, 16385)), ("float16", (1, 16383, 16385))]


def cases(seed: int):
    from cornerturn.bench.suites import random_cases

    yield from ((d, SIZES[d], s) for d, s in FIXED)
    for draw in range(50):
        for c in random_cases(seed * 1000 + draw, 64, "cuda"):
            size = SIZES.get(c.dtype)
            if size is not None:
                yield c.dtype, size, c.shape if len(c.shape) == 3 else (1, *c.shape)


def skewed(plan, out_ptr: int):
    from cornerturn.engine import kernels
    from cornerturn.engine.launch import Launch

    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        assert launch.kernel is kernels.transpose_tiles and launch.constexprs["WORDS"] == 1
        units = 32 // launch.word
        ce = launch.constexprs
        other.pieces.append((xo, oo, Launch(tiles_skew, launch.programs,
                                            (*launch.ints, (out_ptr + oo) // launch.word % units),
                                            {"BLOCK_R": ce["BLOCK_R"], "BLOCK_C": ce["BLOCK_C"], "WIDE": ce["WIDE"],
                                             "UNITS": units}, launch.num_warps, launch.word)))
    return other


def run_case(dtype, size, shape, planned, stream) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = shape[0] * shape[1] * shape[2] * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    fns = {}
    for label, p in (("plan", planned), ("skew", skewed(planned, out.data_ptr()))):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{dtype} {shape} {label}: wrong result")
        fns[label] = call
    copy_to = torch.empty_like(x)
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    pct = {n: round(100 * t["copy"].median / v.median, 2) for n, v in t.items() if n != "copy"}
    return {"case": f"{dtype} {shape[0]} x ({shape[1]}x{shape[2]})", "shape": list(shape), "plan": planned.config.name,
            "pct": pct, "speedup": round(pct["skew"] / pct["plan"], 4)}


def main() -> None:
    import torch

    from cornerturn import engine
    from cornerturn.engine import kernels
    from cornerturn.problem import canonical

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    result = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "command": "python3 scripts/skew_probe.py " + " ".join(sys.argv[1:]), "rows": []}
    stream = torch.cuda.current_stream().cuda_stream
    for dtype, size, shape in cases(seed):
        if len(result["rows"]) >= count:
            break
        if shape[1] * size % 32 == 0:  # output rows at whole sectors share none
            continue
        strides = (shape[1] * shape[2] * size, shape[2] * size, size)
        planned = engine.choose(canonical(shape, strides, size), "cuda:0")
        if (len(planned.pieces) != 1 or planned.pieces[0][2].kernel is not kernels.transpose_tiles
                or planned.pieces[0][2].constexprs["WORDS"] != 1):
            continue
        row = run_case(dtype, size, shape, planned, stream)
        torch.cuda.empty_cache()
        result["rows"].append(row)
        print(f"{row['case']:36s} {row['plan']:20s} plan {row['pct']['plan']:6.2f} skew {row['pct']['skew']:6.2f} "
              f"x{row['speedup']:.3f}", flush=True)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
    for n in (2, 4, 8):
        s = [r["speedup"] for r in result["rows"] if SIZES[r["case"].split()[0]] == n]
        if s:
            print(f"{n}-byte: x{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({min(s):.3f}-{max(s):.3f}) over "
                  f"{len(s)}")


if __name__ == "__main__":
    main()
