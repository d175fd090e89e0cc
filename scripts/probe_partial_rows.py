"""Probe (lab, issue of the speed model): partial-sector stores in naive-1d's pattern. Warps that run side by side
write 32 rows further down the output each (the sectors left half full at a moment lie in many rows), and the 8 warps
that fill one sector are F warps apart in launch order; reads are contiguous, no index division. F = side / 32 is
naive-1d's store pattern exactly; smaller F keeps the spread over rows but brings a sector's parts closer in time.
naive-1d and naive-rows are timed in the same run.

    python3 scripts/probe_partial_rows.py --out $OUT/partial-rows.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from numba import cuda, uint32

from cornerturn.lab.calibrate import time_launch
from cornerturn.lab.registry import _build, get, launch_shape
from cornerturn.lab.runner import make_flush


def make_rows(spread: int, bands: int):
    F, B = uint32(spread), uint32(bands)

    @cuda.jit
    def rows(out, x, warps):
        lane = uint32(cuda.threadIdx.x % uint32(32))
        w = uint32((uint32(cuda.blockIdx.x) * uint32(cuda.blockDim.x) + uint32(cuda.threadIdx.x)) // uint32(32))
        if w < warps:
            sector = uint32(uint32(w // uint32(F * uint32(8))) * F + w % F)
            band, group = uint32(sector % B), uint32(sector // B)
            col = uint32(group * uint32(8) + uint32(w // F) % uint32(8))
            out[uint32(band * uint32(32) + lane), col] = x[uint32(w * uint32(32) + lane)]

    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    flush = make_flush()
    rows = []
    for side in (8192, 16384):
        x = cuda.to_device(np.random.default_rng(3).random((side, side), dtype=np.float32) + 1)
        y = cuda.device_array_like(x)
        flat = x.reshape(x.size)
        warps = x.size // 32
        elements = x.size
        for name in ("naive-rows", "naive-1d"):
            k = get(name)
            fn = _build(name, "float32")
            grid, block = launch_shape(k, side, side)
            t = time_launch(lambda f=fn, g=grid, b=block, o=y, i=x: f[g, b](o, i), flush, args.repeats)
            rows.append({"side": side, "kernel": name, "s": t, "elements_per_ns": elements / t / 1e9})
        for spread in (1, 16, 64, 256, 512):
            if warps % (8 * spread):
                continue
            kern = make_rows(spread, side // 32)
            t = time_launch(lambda k=kern, o=y, i=flat, n=warps: k[n // 8, 256](o, i, np.uint32(n)), flush,
                            args.repeats)
            host = y.copy_to_host()
            ok = bool(np.array_equal(np.sort(host.ravel()), np.sort(x.copy_to_host().ravel())))
            rows.append({"side": side, "kernel": f"rows-spread{spread}", "s": t, "elements_per_ns": elements / t / 1e9,
                         "every_element_once": ok})
        for r in rows[-7:]:
            print(r, flush=True)
    info = {"device": cuda.get_current_device().name.decode() if isinstance(cuda.get_current_device().name, bytes)
            else cuda.get_current_device().name, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/probe_partial_rows.py", "rows": rows,
            "median_check": statistics.median(r["elements_per_ns"] for r in rows)}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
