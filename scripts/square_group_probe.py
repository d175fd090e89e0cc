"""Probe: the in-place square kernels with their tile pairs numbered in blocks of GROUP x GROUP tiles (so that the
programs running at one time touch fewer rows of the matrix) against the pairs numbered down whole columns (GROUP
1, the default); every variant checked bit-exact, timed against a device copy of the same bytes in interleaved
rounds.

    python3 scripts/square_group_probe.py --out $OUT --squares float64:22325,int8:35549 --groups 1,4,8,16

(--groups 0 is the planner's rule, inplace.pair_group.)
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from cornerturn.bench.inplace import random_squares
from cornerturn.engine.inplace import square_funnel, square_launch, square_word
from cornerturn.engine.timing import time_cuda_rounds


def measure(n: int, dtype: str, seed: int, repeats: int, groups: list[int]) -> dict:
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    funnel = square_funnel(n, itemsize, 16)
    word = 1 if funnel else square_word(itemsize, x.data_ptr())
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact = {}, {}
    for group in groups:  # 0: the planner's rule (inplace.pair_group)
        name = f"group{group}" if group else "rule"
        launches[name] = square_launch(1, n, itemsize, word, funnel=funnel, group=group or None)
    for name, launch in launches.items():
        x.copy_(original)
        launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0)
        exact[name] = bool(torch.equal(x, want))
    del want
    fns = {name: (lambda launch=launch: launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0))
           for name, launch in launches.items()}
    fns["copy"] = lambda: target.copy_(x)
    timings = time_cuda_rounds(fns, repeats=repeats)
    copy_ms = timings["copy"].median
    return {"seed": seed, "case": f"{dtype} {n}x{n}", "n": n, "itemsize": itemsize, "copy_ms": copy_ms,
            "kernel": next(iter(launches.values())).kernel.fn.__name__,
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", default="")
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--groups", default="1,4,8,16")
    parser.add_argument("--squares", default="", help="dtype:side,... besides the random draw")
    args = parser.parse_args()
    groups = [int(g) for g in args.groups.split(",")]
    cases = [(n, dtype, seed) for seed in map(int, filter(None, args.seeds.split(",")))
             for _, n, _, dtype in random_squares(seed, args.cases)]
    cases += [(int(side), dtype, 0) for dtype, side in
              (spec.split(":") for spec in filter(None, args.squares.split(",")))]
    rows = []
    for n, dtype, seed in cases:
        row = measure(n, dtype, seed, args.repeats, groups)
        rows.append(row)
        torch.cuda.empty_cache()
        print(row["case"], row["kernel"], {k: round(v, 1) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    command = (f"--seeds {args.seeds} --cases {args.cases} --repeats {args.repeats} --groups {args.groups} "
               f"--squares {args.squares}")
    with open(f"{args.out}/square-group-probe.json", "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/square_group_probe.py --out $OUT " + command,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
