"""Probe: the in-place square kernel's tile and warp settings on random squares of wider elements (4, 8, 16 bytes),
drawn from seeds as `cornerturn bench --inplace --suite random` draws them; each variant checked bit-exact, timed
against a device copy of the same bytes in interleaved rounds.

    python3 scripts/square_warps_probe.py OUT.json SEEDS PER_SIZE [--sizes 4,8,16] [--variants w2,w8,...]
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import torch

from cornerturn.bench.inplace import random_squares
from cornerturn.engine.inplace import square_funnel, square_launch, square_word
from cornerturn.engine.timing import time_cuda_rounds

# square_launch keywords; "now" is the default
VARIANTS = {"now": {}, "w2": {"num_warps": 2}, "w4": {"num_warps": 4}, "w8": {"num_warps": 8},
            "b16_w1": {"block": 16, "num_warps": 1}, "b16_w2": {"block": 16, "num_warps": 2},
            "b32_w2": {"block": 32, "num_warps": 2},
            "b32_w4": {"block": 32, "num_warps": 4}, "b64_w8": {"block": 64, "num_warps": 8},
            "g16": {"group": 16}, "g8": {"group": 8}, "g4": {"group": 4}, "g1": {"group": 1},
            "w2_g8": {"num_warps": 2, "group": 8}, "w2_g1": {"num_warps": 2, "group": 1}}
DTYPES = {1: "int8", 2: "float16", 4: "float32", 8: "float64", 16: "complex128"}


def squares(seeds: list[int], per_size: int, sizes: list[int]) -> list[tuple[int, str]]:
    """Up to per_size squares of each element size from each seed, in the order the seed draws them."""
    chosen = []
    for seed in seeds:
        count = {size: 0 for size in sizes}
        for _, n, _, dtype in random_squares(seed, 40 * per_size):
            size = np.dtype(dtype).itemsize
            if size in count and count[size] < per_size:
                count[size] += 1
                chosen.append((n, dtype))
    return chosen


def measure(n: int, dtype: str, variants: list[str], repeats: int) -> dict:
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    funnel = square_funnel(n, itemsize, 16)
    word = 1 if funnel else square_word(itemsize, x.data_ptr())
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact, settings = {}, {}, {}
    for name in variants:
        launch = square_launch(1, n, itemsize, word, funnel=funnel, **VARIANTS[name])
        key = (launch.constexprs["BLOCK"], launch.num_warps, launch.constexprs["GROUP"])
        if key in settings.values():  # the default under another name
            continue
        x.copy_(original)
        try:
            launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0)
        except Exception as error:  # noqa: BLE001 - a setting that does not fit the GPU (shared memory) is skipped
            print(dtype, n, name, "skipped:", str(error)[:80])
            continue
        settings[name] = key
        launches[name] = launch
        exact[name] = bool(torch.equal(x, want))
    del want
    fns = {name: (lambda launch=launch: launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0))
           for name, launch in launches.items()}
    fns["copy"] = lambda: target.copy_(x)
    timings = time_cuda_rounds(fns, repeats=repeats)
    copy_ms = timings["copy"].median
    return {"case": f"{dtype} {n}x{n}", "n": n, "itemsize": itemsize, "mib": n * n * itemsize / 2**20,
            "copy_s": copy_ms, "settings": settings,
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def summary(rows: list[dict]) -> dict:
    """Per element size and variant: geometric mean of time now / time variant (above 1: the variant is faster),
    range, and how many squares it leads by more than 2%."""
    out = {}
    for size in sorted({r["itemsize"] for r in rows}):
        group = [r for r in rows if r["itemsize"] == size]
        names = {k for r in group for k in r["pct"] if k != "now"}
        out[DTYPES[size]] = {}
        for name in sorted(names):
            ratios = [r["pct"][name] / r["pct"]["now"] for r in group if name in r["pct"]]
            out[DTYPES[size]][name] = {"geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
                                       "min": min(ratios), "max": max(ratios), "ahead": sum(q > 1.02 for q in ratios),
                                       "behind": sum(q < 0.98 for q in ratios), "squares": len(ratios)}
        out[DTYPES[size]]["now_median_pct"] = float(np.median([r["pct"]["now"] for r in group]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("seeds", help="comma-separated")
    parser.add_argument("per_size", type=int)
    parser.add_argument("--sizes", default="4,8,16")
    parser.add_argument("--variants", default="w2,w8,b32_w2,g16")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    variants = ["now", *args.variants.split(",")]
    rows = []
    for n, dtype in squares(seeds, args.per_size, [int(s) for s in args.sizes.split(",")]):
        row = measure(n, dtype, variants, args.repeats)
        rows.append(row)
        torch.cuda.empty_cache()
        print(row["case"], {k: (row["settings"][k], round(v, 1)) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    result = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "command": f"python3 scripts/square_warps_probe.py OUT.json {args.seeds} {args.per_size} --sizes "
                         f"{args.sizes} --variants {args.variants} --repeats {args.repeats}",
              "summary": summary(rows), "rows": rows}
    print(json.dumps(result["summary"], indent=1))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
