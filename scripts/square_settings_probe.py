"""Probe: the in-place square kernels' tile and warp settings on large squares, now that their tile pairs are
numbered in blocks (inplace.pair_group); each variant checked bit-exact, timed against a device copy of the same
bytes in interleaved rounds.

    python3 scripts/square_settings_probe.py --out $OUT --squares float32:24407,int8:35549
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from cornerturn.engine.inplace import square_funnel, square_launch, square_word
from cornerturn.engine.timing import time_cuda_rounds

# square_launch keywords; "now" is the default
VARIANTS = {"now": {}, "w8": {"num_warps": 8}, "w2": {"num_warps": 2}, "b32": {"block": 32},
            "b128_w8": {"block": 128, "num_warps": 8}, "b64_w4": {"block": 64, "num_warps": 4}}


def measure(n: int, dtype: str, repeats: int) -> dict:
    tdtype = getattr(torch, dtype)
    itemsize = tdtype.itemsize
    original = torch.randint(0, 256, (n * n * itemsize,), dtype=torch.uint8, device="cuda")
    want = original.view(tdtype).view(n, n).transpose(0, 1).contiguous().view(-1).view(torch.uint8)
    x, target = torch.empty_like(original), torch.empty_like(original)
    funnel = square_funnel(n, itemsize, 16)
    word = 1 if funnel else square_word(itemsize, x.data_ptr())
    stream = torch.cuda.current_stream().cuda_stream
    launches, exact, settings = {}, {}, {}
    for name, kw in VARIANTS.items():
        launch = square_launch(1, n, itemsize, word, funnel=funnel, **kw)
        key = (launch.constexprs["BLOCK"], launch.num_warps)
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
    return {"case": f"{dtype} {n}x{n}", "n": n, "itemsize": itemsize, "copy_ms": copy_ms, "settings": settings,
            "group": next(iter(launches.values())).constexprs["GROUP"],
            "pct": {k: 100 * copy_ms / t.median for k, t in timings.items() if k != "copy"}, "exact": exact}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--squares", required=True, help="dtype:side,...")
    args = parser.parse_args()
    rows = []
    for dtype, side in (spec.split(":") for spec in args.squares.split(",")):
        row = measure(int(side), dtype, args.repeats)
        rows.append(row)
        torch.cuda.empty_cache()
        print(row["case"], "group", row["group"], {k: (row["settings"][k], round(v, 1)) for k, v in row["pct"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    with open(f"{args.out}/square-settings-probe.json", "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": f"python3 scripts/square_settings_probe.py --out $OUT --squares {args.squares}",
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
