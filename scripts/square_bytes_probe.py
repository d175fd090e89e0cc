"""Probe: 1- and 2-byte squares in place, the funnel kernel (rows read through aligned 4-byte words, stored an
element at a time) against the split kernel (rows in words as wide as the side's alignment allows, both ways), on
random sides of each residue class; each variant checked bit-exact, timed against a device copy in interleaved rounds.

    python3 scripts/square_bytes_probe.py OUT.json SEED PER_CLASS [--classes int8:2,int8:1,float16:1] [--variants ...]
        [--sides LO,HI] [--squares dtype:side,...]

A class `dtype:r` draws sides log-uniform over LO-HI (by default 3000-40000, the in-place random suite's range) and
moves each to the nearest side above whose residue modulo 4 is r (1 stands for the odd residues: 1 and 3 in turn).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import torch

from cornerturn.engine.inplace import square_default, square_launch, square_word
from cornerturn.engine.timing import time_cuda_rounds

# square_launch keywords beside the funnel word; "now" is the default (square_default's kernel)
VARIANTS = {"now": {}, "split": {"funnel": 0}, "split_b64": {"funnel": 0, "block": 64},
            "split_b128": {"funnel": 0, "block": 128}, "split_w8": {"funnel": 0, "num_warps": 8},
            "split_b128_w8": {"funnel": 0, "block": 128, "num_warps": 8},
            "split_w2": {"funnel": 0, "num_warps": 2}, "split_g1": {"funnel": 0, "group": 1},
            "split_g8": {"funnel": 0, "group": 8}, "funnel": {"funnel": 4}, "funnel_w2": {"funnel": 4, "num_warps": 2},
            "funnel_w4": {"funnel": 4, "num_warps": 4}, "funnel_w8": {"funnel": 4, "num_warps": 8},
            "split_b64_w4": {"funnel": 0, "block": 64, "num_warps": 4}}
SIDES = (3000, 40000)


def sides(seed: int, per_class: int, classes: list[tuple[str, int]], limits: tuple[int, int] = SIDES
          ) -> list[tuple[int, str]]:
    """per_class squares of each class, drawn from `seed` in turn, sides log-uniform between `limits`."""
    rng = np.random.default_rng(seed)
    lo, hi = np.log(limits[0]), np.log(limits[1])
    chosen = []
    for k in range(per_class):
        for dtype, residue in classes:
            n = int(np.exp(rng.uniform(lo, hi)))
            want = residue if residue != 1 else (1, 3)[k % 2]
            n += (want - n) % 4
            chosen.append((n, dtype))
    return chosen


def measure(n: int, dtype: str, variants: list[str], repeats: int) -> dict:
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact, settings = {}, {}, {}
    default_funnel = 4 if square_default(1, n, itemsize, 16).kernel.fn.__name__ == "transpose_square_funnel" else 0
    for name in variants:
        keywords = {"funnel": default_funnel, **VARIANTS[name]}
        word = 1 if keywords["funnel"] else square_word(itemsize, x.data_ptr())
        launch = square_launch(1, n, itemsize, word, **keywords)
        key = (launch.kernel.__name__, launch.constexprs["BLOCK"], launch.num_warps, launch.constexprs["GROUP"])
        if key in [s[:4] for s in settings.values()]:  # the default under another name
            continue
        x.copy_(original)
        try:
            launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0)
        except Exception as error:  # noqa: BLE001 - a setting that does not fit the GPU (shared memory) is skipped
            print(dtype, n, name, "skipped:", str(error)[:80])
            continue
        compiled = next(iter(launch._compiled.values()))[1]
        settings[name] = (*key, getattr(compiled, "n_regs", None), getattr(compiled, "n_spills", None))
        launches[name] = launch
        exact[name] = bool(torch.equal(x, want))
    del want
    fns = {name: (lambda launch=launch: launch.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0))
           for name, launch in launches.items()}
    fns["copy"] = lambda: target.copy_(x)
    timings = time_cuda_rounds(fns, repeats=repeats)
    copy_ms = timings["copy"].median
    return {"case": f"{dtype} {n}x{n}", "n": n, "residue": n % 4, "itemsize": itemsize, "mib": n * n * itemsize / 2**20,
            "copy_ms": copy_ms, "settings": settings,
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def summary(rows: list[dict]) -> dict:
    """Per class (dtype, residue modulo 4, odd residues together) and variant: geometric mean of time now / time
    variant (above 1: the variant is faster), range, and how many squares it leads or trails by more than 2%."""
    out = {}
    keys = sorted({(r["case"].split()[0], r["residue"] % 2 or 1) for r in rows})
    for dtype, residue in keys:
        group = [r for r in rows if r["case"].split()[0] == dtype and (r["residue"] % 2 or 1) == residue]
        label = f"{dtype} n%4={'odd' if residue == 1 else residue}"
        out[label] = {"squares": len(group), "now_median_pct": float(np.median([r["pct"]["now"] for r in group]))}
        for name in sorted({k for r in group for k in r["pct"] if k != "now"}):
            ratios = [r["pct"][name] / r["pct"]["now"] for r in group if name in r["pct"]]
            out[label][name] = {"geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
                                "min": min(ratios), "max": max(ratios), "ahead": sum(q > 1.02 for q in ratios),
                                "behind": sum(q < 0.98 for q in ratios), "squares": len(ratios),
                                "median_pct": float(np.median([r["pct"][name] for r in group if name in r["pct"]]))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("seed", type=int)
    parser.add_argument("per_class", type=int)
    parser.add_argument("--classes", default="int8:2,int8:1,float16:1")
    parser.add_argument("--variants", default="split,split_b64,split_b128,split_w8")
    parser.add_argument("--sides", default=f"{SIDES[0]},{SIDES[1]}", help="LO,HI: the sides' range")
    parser.add_argument("--squares", default="", help="dtype:side,...: these squares too, before the drawn ones")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    limits = tuple(int(s) for s in args.sides.split(","))
    classes = [(c.split(":")[0], int(c.split(":")[1])) for c in args.classes.split(",")]
    variants = ["now", *args.variants.split(",")]
    rows = []
    named = [(int(c.split(":")[1]), c.split(":")[0]) for c in args.squares.split(",") if c]
    for n, dtype in named + sides(args.seed, args.per_class, classes, limits):
        row = measure(n, dtype, variants, args.repeats)
        rows.append(row)
        torch.cuda.empty_cache()
        print(row["case"], {k: (row["settings"][k][1:], round(v, 1)) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    result = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "command": f"python3 scripts/square_bytes_probe.py OUT.json {args.seed} {args.per_class} --classes "
                         f"{args.classes} --variants {args.variants} --sides {args.sides} --repeats {args.repeats}"
                         + (f" --squares {args.squares}" if args.squares else ""),
              "summary": summary(rows), "rows": rows}
    print(json.dumps(result["summary"], indent=1))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
