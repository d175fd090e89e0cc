"""Probe: the in-place funnel kernel (odd sides of 1- and 2-byte squares) storing whole aligned words of the output
rows (WORD_STORES, each group's successor read again or gathered) against storing every element alone (the
default), at several tiles and warp counts; each variant checked bit-exact, timed against a device copy of the same
bytes in interleaved rounds.

    python3 scripts/funnel_stores_probe.py --out $OUT --squares int8:16383,float16:8191 [--seeds 2411 --cases 20]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from cornerturn.bench.inplace import random_squares
from cornerturn.engine.inplace import square_funnel, square_launch
from cornerturn.engine.timing import time_cuda_rounds

# square_launch keywords per element size; "now" is the default
VARIANTS = {
    1: {"now": {}, "now_w8": {"num_warps": 8},
        "words": {"word_stores": True}, "words_g": {"word_stores": True, "gather_next": True},
        "words_w8": {"word_stores": True, "num_warps": 8},
        "words_w8_g": {"word_stores": True, "num_warps": 8, "gather_next": True},
        "words_w2_g": {"word_stores": True, "num_warps": 2, "gather_next": True},
        "words_b128_w8_g": {"word_stores": True, "block": 128, "num_warps": 8, "gather_next": True},
        "now_b128_w8": {"block": 128, "num_warps": 8},
        "words_b128_w8": {"word_stores": True, "block": 128, "num_warps": 8},
        "words_b128_w16_g": {"word_stores": True, "block": 128, "num_warps": 16, "gather_next": True},
        "words_b128_w4_g": {"word_stores": True, "block": 128, "num_warps": 4, "gather_next": True}},
    2: {"now": {}, "now_w4": {"num_warps": 4},
        "words": {"word_stores": True}, "words_g": {"word_stores": True, "gather_next": True},
        "words_w4": {"word_stores": True, "num_warps": 4},
        "words_w4_g": {"word_stores": True, "num_warps": 4, "gather_next": True},
        "words_w8_g": {"word_stores": True, "num_warps": 8, "gather_next": True},
        "now_b128_w8": {"block": 128, "num_warps": 8},
        "words_b128_w8_g": {"word_stores": True, "block": 128, "num_warps": 8, "gather_next": True},
        "words_b128_w16_g": {"word_stores": True, "block": 128, "num_warps": 16, "gather_next": True}},
}


def measure(n: int, dtype: str, seed: int, repeats: int, only: set[str]) -> dict:
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact = {}, {}
    for name, kw in VARIANTS[itemsize].items():
        if only and name not in only | {"now"}:
            continue
        launches[name] = square_launch(1, n, itemsize, 1, funnel=4, **kw)
        x.copy_(original)
        launches[name].run_pointers(x.data_ptr(), x.data_ptr(), stream, 0)
        exact[name] = bool(torch.equal(x, want))
    del want
    fns = {name: (lambda launch=launch: launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0))
           for name, launch in launches.items()}
    fns["copy"] = lambda: target.copy_(x)
    timings = time_cuda_rounds(fns, repeats=repeats)
    copy_ms = timings["copy"].median
    return {"seed": seed, "case": f"{dtype} {n}x{n}", "n": n, "itemsize": itemsize, "copy_ms": copy_ms,
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", default="")
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--squares", default="", help="dtype:side,... besides the random draw")
    parser.add_argument("--only", default="", help="only these variants (and now)")
    args = parser.parse_args()
    cases = [(n, dtype, seed) for seed in map(int, filter(None, args.seeds.split(",")))
             for _, n, _, dtype in random_squares(seed, args.cases)
             if square_funnel(n, getattr(torch, dtype).itemsize, 16)]
    cases += [(int(side), dtype, 0) for dtype, side in
              (spec.split(":") for spec in filter(None, args.squares.split(",")))]
    rows = []
    for n, dtype, seed in cases:
        row = measure(n, dtype, seed, args.repeats, set(filter(None, args.only.split(","))))
        rows.append(row)
        torch.cuda.empty_cache()
        print(row["case"], {k: round(v, 1) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    command = f"--seeds {args.seeds} --cases {args.cases} --repeats {args.repeats} --squares {args.squares}"
    command += f" --only {args.only}" if args.only else ""
    with open(f"{args.out}/funnel-stores-probe.json", "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/funnel_stores_probe.py --out $OUT " + command,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
