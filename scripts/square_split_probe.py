"""Probe: the in-place square kernel with its inner tile pairs unmasked and told the side's alignment (SPLIT, the
defaults now) against every pair masked (the settings before), on random squares (`cornerturn bench --inplace
--suite random`'s draw); each variant checked bit-exact, timed against a device copy of the same bytes in the same
run.

    python3 scripts/square_split_probe.py --out $OUT --seeds 2411,6464 --cases 20 [--sweep]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from cornerturn.bench.inplace import random_squares
from cornerturn.engine.inplace import square_funnel, square_launch, square_word
from cornerturn.engine.timing import time_cuda_rounds

# before SPLIT_PAIRS: every pair masked, (block, warps) for sides that are not a multiple of 16, and the store
# pointers computed after the barrier only where rows are not whole 16-byte runs
BEFORE = {1: (64, 4), 2: (64, 8), 4: (64, 4), 8: (32, 4), 16: (32, 4)}
# with --sweep, these variants too (square_launch keywords; the first two probe runs, results in docs/results)
SWEEP = {
    1: {"split": {"split": True}, "split_readdress": {"split": True, "readdress": True},
        "split_b128": {"split": True, "block": 128, "num_warps": 4},
        "split_b128_w8": {"split": True, "block": 128, "num_warps": 8},
        "split_readdress_b128": {"split": True, "readdress": True, "block": 128, "num_warps": 4}},
    2: {"split_readdress": {"split": True, "readdress": True, "block": 64, "num_warps": 8},
        "split_readdress_w4": {"split": True, "readdress": True, "block": 64, "num_warps": 4},
        "split_b128_w4": {"split": True, "block": 128, "num_warps": 4},
        "split_b128_w8": {"split": True, "block": 128, "num_warps": 8},
        "split_readdress_b128_w4": {"split": True, "readdress": True, "block": 128, "num_warps": 4}},
    4: {"masked_readdress": {"readdress": True}, "split": {"split": True, "readdress": False},
        "split_readdress": {"split": True, "readdress": True}},
    8: {"split": {"split": True, "block": 32}, "masked_b64": {"block": 64},
        "split_b64": {"split": True, "block": 64}, "split_b64_w8": {"split": True, "block": 64, "num_warps": 8}},
    16: {"split": {"split": True}, "split_w8": {"split": True, "num_warps": 8}},
}
# odd sides of 1- and 2-byte elements (transpose_square_funnel, rows read through 4-byte words): with --sweep
FUNNEL_SWEEP = {"funnel_w4": {"num_warps": 4}, "funnel_w8": {"num_warps": 8},
                "funnel_b128_w4": {"block": 128, "num_warps": 4}, "funnel_b128_w8": {"block": 128, "num_warps": 8},
                "funnel_b32": {"block": 32}}


def variants(n: int, itemsize: int, sweep: bool) -> dict[str, dict]:
    """'before' (the settings before SPLIT_PAIRS) and 'now' (the defaults), and with `sweep` the SWEEP variants."""
    if square_funnel(n, itemsize, 16):
        found = {"before": {"funnel": 4}, "now": {"funnel": 4}}
        found.update({name: {"funnel": 4, **kw} for name, kw in FUNNEL_SWEEP.items()} if sweep else {})
        return found
    block, warps = BEFORE[itemsize] if n % 16 else (None, None)
    found = {"before": {"split": False, "block": block, "num_warps": warps,
                        "readdress": (n * itemsize) % 16 != 0}, "now": {}}
    if n % 16 and sweep:
        found.update({name: {"split": False, "readdress": (n * itemsize) % 16 != 0, **kw}
                      for name, kw in SWEEP[itemsize].items()})
    return found


def measure(n: int, dtype: str, seed: int, repeats: int, sweep: bool, only: set[str]) -> dict:
    """Every variant of one square: checked bit-exact, then timed with the copy in interleaved rounds."""
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    if square_funnel(n, itemsize, 16) and not sweep:
        return {"seed": seed, "case": f"{dtype} {n}x{n}", "funnel": True}
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    word = 4 if square_funnel(n, itemsize, 16) else square_word(itemsize, x.data_ptr())
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact = {}, {}
    for name, kw in variants(n, itemsize, sweep).items():
        if only and name not in only | {"before", "now"}:
            continue
        launches[name] = square_launch(1, n, itemsize, word, **kw)
        x.copy_(original)
        launches[name].run_pointers(x.data_ptr(), x.data_ptr(), stream, 0)
        exact[name] = bool(torch.equal(x, want))
    fns = {name: (lambda launch=launch: launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0))
           for name, launch in launches.items()}
    fns["copy"] = lambda: target.copy_(x)
    timings = time_cuda_rounds(fns, repeats=repeats)
    copy_ms = timings["copy"].median
    return {"seed": seed, "case": f"{dtype} {n}x{n}", "n": n, "itemsize": itemsize, "copy_ms": copy_ms,
            "align": max(launch.constexprs.get("ALIGN", 1) for launch in launches.values()),
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", default="2411")
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sweep", action="store_true", help="the SWEEP variants too")
    parser.add_argument("--sizes", default="1,2,4,8,16", help="element sizes to keep, in bytes")
    parser.add_argument("--only", default="", help="with --sweep, only the variants named (and before, now)")
    parser.add_argument("--squares", default="", help="dtype:side,... instead of the random draw")
    args = parser.parse_args()
    sizes = {int(size) for size in args.sizes.split(",")}
    cases = [(n, dtype, seed) for seed in map(int, args.seeds.split(","))
             for _, n, _, dtype in random_squares(seed, args.cases) if getattr(torch, dtype).itemsize in sizes]
    if args.squares:
        cases = [(int(side), dtype, 0) for dtype, side in (spec.split(":") for spec in args.squares.split(","))]
    rows = []
    for n, dtype, seed in cases:
        row = measure(n, dtype, seed, args.repeats, args.sweep, set(filter(None, args.only.split(","))))
        rows.append(row)
        torch.cuda.empty_cache()
        if "pct" in row:
            print(row["case"], "align", row["align"], {k: round(v, 1) for k, v in row["pct"].items()},
                  "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    command = f"--seeds {args.seeds} --cases {args.cases} --repeats {args.repeats} --sizes {args.sizes}"
    command += (" --sweep" if args.sweep else "") + (f" --only {args.only}" if args.only else "")
    command += f" --squares {args.squares}" if args.squares else ""
    with open(f"{args.out}/square-split-probe.json", "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/square_split_probe.py --out $OUT " + command,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
