"""Probe: own_rows_probe.cu (each output sector one tile's, rows shifted through shared memory) against the engine's
plan and the copy, on 1- and 2-byte matrices drawn from a seed and a few named ones; every result checked bit for
bit against torch's transpose into a poisoned output first, ragged small shapes with every base offset included.

    python3 scripts/own_rows_probe.py OUT.json SEED CASES
    python3 scripts/own_rows_probe.py --check-only   (the small checks alone, for compute-sanitizer)
"""

from __future__ import annotations

import json
import math
import pathlib
import statistics
import sys
import time

import cupy as cp
import numpy as np
import torch

import cornerturn
from cornerturn.bench.suites import Case, random_cases

SOURCE = pathlib.Path(__file__).with_suffix(".cu").read_text()
TRB, TC, THREADS = 256, 64, 256
KINDS = ("one", "pipe", "pipe32", "pipe32w")  # 32: 32-bit offsets within a matrix (under 2 GiB); w: 2 words a unit
SMS = 0
NAMED = [Case((6000, 6000), "bfloat16"), Case((114201, 2410), "int8"), Case((16389, 16387), "uint8"),
         Case((16384, 16384), "uint8"), Case((771864, 905), "uint8"), Case((27460, 12358), "float16"),
         Case((8, 5428, 1038), "float16"), Case((16384, 16388), "uint8"), Case((477055, 508), "int16")]


PIPES = {"pipe": "long long, 1", "pipe32": "int, 1", "pipe32w": "int, 2"}
NAMES = [n for e in (1, 2) for n in (f"own_rows<{e}>", *(f"own_rows_pipe<{e}, {a}>" for a in PIPES.values()))]


def pipe_smem(e: int) -> int:
    nr = 256 // e + 32 // e
    si = ((64 * e + 30) // 16) * 4
    return (2 * nr * si + 64 * (nr // (4 // e) + 1)) * 4 + 2 * nr


def kernels():
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=tuple(NAMES))
    found = {}
    for e in (1, 2):
        found[("one", e)] = module.get_function(f"own_rows<{e}>")
        for kind, index in PIPES.items():
            pipe = module.get_function(f"own_rows_pipe<{e}, {index}>")
            pipe.max_dynamic_shared_size_bytes = pipe_smem(e)
            found[(kind, e)] = pipe
    return found


def launcher(kernels, kind: str, x: torch.Tensor, out: torch.Tensor):
    e = x.element_size()
    kernel = kernels[(kind, e)]
    *batch, rows, cols = x.shape
    batches = math.prod(batch)
    tr, halo = TRB // e, 32 // e
    grid = ((rows + halo - 1 + tr - 1) // tr, (cols + TC - 1) // TC, batches)
    xs = x.reshape(batches, rows, cols)
    outs = out.reshape(batches, cols, rows)
    args = (cp.uint64(x.data_ptr()), cp.uint64(out.data_ptr()), np.int64(rows), np.int64(cols),
            np.int64(xs.stride(1)), np.int64(outs.stride(1)), np.int64(xs.stride(0) if batches > 1 else 0),
            np.int64(outs.stride(0) if batches > 1 else 0))
    if kind == "one":
        return lambda: kernel(grid, (THREADS,), args)
    tiles = grid[0] * grid[1] * grid[2]
    blocks = min(tiles, SMS * (227 * 1024 // pipe_smem(e)))
    args = (*args, np.int32(grid[0]), np.int32(grid[1]), np.int32(tiles))
    return lambda: kernel((blocks,), (THREADS,), args, shared_mem=pipe_smem(e))


def torch_dtype(e: int):
    return {1: torch.int8, 2: torch.int16}[e]


def random_tensor(shape, e: int, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(-(1 << (8 * e - 1)), 1 << (8 * e - 1), shape, dtype=torch_dtype(e), device="cuda",
                         generator=gen)


def check_small(ks, gen) -> int:
    """Ragged shapes, every base offset of input and output up to 31 bytes."""
    checked = 0
    for e in (1, 2):
        for rows, cols in ((1, 1), (3, 5), (31, 33), (65, 129), (300, 200), (257, 63), (1000, 7), (5, 1000),
                           (289, 97), (513, 65)):
            for shift in range(0, 32 // e, 3):
                for oshift in (0, 1, 5, 31 // e):
                    base = random_tensor((rows * cols + 64,), e, gen)
                    x = base[shift:shift + rows * cols].view(rows, cols)
                    obuf = torch.full((rows * cols + 64,), -91, dtype=torch_dtype(e), device="cuda")
                    out = obuf[oshift:oshift + rows * cols].view(cols, rows)
                    for kind in KINDS:
                        obuf.fill_(-91)
                        launcher(ks, kind, x, out)()
                        torch.cuda.synchronize()
                        if not torch.equal(out, x.t().contiguous()):
                            raise SystemExit(f"mismatch: {kind} e={e} {rows}x{cols} shift {shift} oshift {oshift}")
                        if not (torch.all(obuf[:oshift] == -91) and torch.all(obuf[oshift + rows * cols:] == -91)):
                            raise SystemExit(f"wrote outside: {kind} e={e} {rows}x{cols} shift {shift} oshift {oshift}")
                        checked += 1
    # batched, with a pitch wider than the row
    for e in (1, 2):
        full = random_tensor((3, 301, 250), e, gen)
        x = full[:, :, 3:230]
        for kind in KINDS:
            out = torch.full((3, 227, 301), -91, dtype=torch_dtype(e), device="cuda")
            launcher(ks, kind, x, out)()
            torch.cuda.synchronize()
            if not torch.equal(out, x.transpose(1, 2).contiguous()):
                raise SystemExit(f"mismatch: {kind} batched pitch e={e}")
            checked += 1
    return checked


def time_rounds(fns: dict, rounds: int = 7, launches: int = 3) -> dict:
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            fn()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(launches):
                fn()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1000 / launches)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    global SMS
    if sys.argv[1:] == ["--check-only"]:
        SMS = torch.cuda.get_device_properties(0).multi_processor_count
        print("small checks:", check_small(kernels(), torch.Generator(device="cuda").manual_seed(1)), "bit-exact")
        return
    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    SMS = torch.cuda.get_device_properties(0).multi_processor_count
    ks = kernels()
    gen = torch.Generator(device="cuda").manual_seed(seed)
    print("small checks:", check_small(ks, gen), "bit-exact", flush=True)
    drawn = [c for c in random_cases(seed, count, "cuda") if c.itemsize in (1, 2)]
    results = []
    for case in NAMED + drawn:
        e = case.itemsize
        x = random_tensor(case.shape, e, gen)
        ref = x.transpose(-1, -2).contiguous()
        out = torch.full(case.out_shape, -91, dtype=torch_dtype(e), device="cuda")
        probes, exact = {}, True
        for kind in KINDS:
            out.fill_(-91)
            probes[kind] = launcher(ks, kind, x, out)
            probes[kind]()
            torch.cuda.synchronize()
            exact = exact and torch.equal(out, ref)
        eng = torch.full(case.out_shape, -91, dtype=torch_dtype(e), device="cuda")
        cornerturn.transpose(x, out=eng)
        torch.cuda.synchronize()
        exact_engine = torch.equal(eng, ref)
        del ref
        flat_in, flat_out = x.reshape(-1), eng.reshape(-1)
        t = time_rounds({"copy": lambda a=flat_in, b=flat_out: b.copy_(a),
                         "engine": lambda a=x, b=eng: cornerturn.transpose(a, out=b), **probes})
        row = {"case": case.name, "shape": list(case.shape), "itemsize": e, "named": case in NAMED, "exact": exact,
               "exact_engine": exact_engine, "us": t,
               "pct_copy": {k: 100 * t["copy"] / v for k, v in t.items() if k != "copy"},
               "over_engine": {k: t["engine"] / t[k] for k in KINDS}}
        results.append(row)
        pct = row["pct_copy"]
        print(f"{case.name:32s} exact {exact} engine {pct['engine']:5.1f}% one {pct['one']:5.1f}% "
              f"pipe {pct['pipe']:5.1f}% pipe32 {pct['pipe32']:5.1f}% pipe32w {pct['pipe32w']:5.1f}%", flush=True)
        del x, out, eng
    drawn_rows = [r for r in results if not r["named"]]
    summary = {"all_exact": all(r["exact"] and r["exact_engine"] for r in results),
               "median_pct_engine_drawn": statistics.median(r["pct_copy"]["engine"] for r in drawn_rows)}
    for kind in KINDS:
        summary[f"geomean_{kind}_over_engine_drawn"] = math.exp(
            statistics.fmean(math.log(r["over_engine"][kind]) for r in drawn_rows))
        summary[f"median_pct_{kind}_drawn"] = statistics.median(r["pct_copy"][kind] for r in drawn_rows)
    print(json.dumps(summary), flush=True)
    pathlib.Path(path).write_text(json.dumps({"device": torch.cuda.get_device_name(), "seed": seed,
                                              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                              "command": f"python3 scripts/own_rows_probe.py OUT.json {seed} {count}",
                                              "summary": summary, "results": results}, indent=1))


if __name__ == "__main__":
    main()
