"""Probe: the CPU runs kernel (runs contiguous on both sides, each copied whole by one memcpy call) against the same
kernel copying each run with a loop the compiler vectorises, on permutations whose runs are short (64-128 bytes),
with torch and NumPy's copy of the same bytes timed in the same rounds; every result checked bit-exact.

    python3 scripts/cpu_runs_loop_probe.py --out DIR [--torch-led]
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np
from numba import prange, uint64

import cornerturn
from cornerturn.cpu import permute as cpu_permute
from cornerturn.timing import time_host_rounds

CASES = [((57, 61, 17, 5, 17), "float32", (1, 2, 3, 0, 4)), ((616, 4, 67, 51), "float16", (2, 0, 1, 3)),
         ((7, 1118, 87, 45), "float16", (2, 0, 1, 3)), ((300, 40, 400, 20), "float32", (2, 1, 0, 3)),
         ((64, 3000, 24), "float32", (1, 0, 2)), ((2000, 300, 40), "float16", (1, 0, 2)),
         ((500, 500, 16), "float64", (1, 0, 2)), ((900, 90, 100), "int8", (1, 0, 2)),
         ((123, 777, 33), "float32", (1, 0, 2)), ((50, 60, 70, 30), "float64", (0, 2, 1, 3))]

# the cases torch led in CPU suite runs of 2026-11-25 (docs/results/permute-cpu-*.json, bench-cpu-random-*.json)
TORCH_LED = [((57, 61, 17, 5, 17), "float32", (1, 2, 3, 0, 4)), ((26, 950, 101), "complex128", (2, 1, 0)),
             ((616, 4, 67, 51), "float16", (2, 0, 1, 3)), ((7, 1118, 87, 45), "float16", (2, 0, 1, 3)),
             ((1680, 98, 53), "int64", (1, 2, 0)), ((17, 134, 34, 57, 3), "float16", (2, 1, 4, 0, 3)),
             ((48, 323, 306), "float32", (0, 2, 1)), ((33, 350, 421), "int64", (0, 2, 1))]


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def runs_loop(x, out, run, in_b, out_b, in_r, out_r, n1, tile, pieces):
    """cpu.permute._runs with each run copied by a loop instead of one memcpy call."""
    nb = in_b.size
    tiles_b = (nb + tile - 1) // tile
    tiles_r = (n1 + tile - 1) // tile
    per = tiles_b * tiles_r
    for t in prange(in_r.size // n1 * per * pieces):
        piece = t % pieces
        u = t // pieces
        o = u // per
        u = u - o * per
        ib = u // tiles_r
        r0 = o * n1 + (u - ib * tiles_r) * tile
        r1 = min(r0 + tile, o * n1 + n1)
        k0 = uint64(run * piece // pieces)
        count = uint64(run * (piece + 1) // pieces) - k0
        for b in range(ib * tile, min(ib * tile + tile, nb)):
            src_b = uint64(in_b[b]) + k0
            dst_b = uint64(out_b[b]) + k0
            for r in range(r0, r1):
                s = uint64(in_r[r]) + src_b
                d = uint64(out_r[r]) + dst_b
                for k in range(count):
                    out[d + k] = x[s + k]


TORCH_WORDS = {1: "int8", 2: "int16", 4: "int32", 8: "int64", 16: "complex128"}


def measure(shape: tuple[int, ...], dtype: str, axes: tuple[int, ...], repeats: int, rng) -> dict:
    """Both kernels checked bit-exact, then timed with torch and the copy in interleaved rounds."""
    import torch

    memcpy_runs = cpu_permute._runs
    x = rng.integers(0, 256, int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)
    x = x.reshape(shape)
    want = np.ascontiguousarray(np.transpose(x, axes))
    plan = cornerturn.plan(shape, dtype, axes=axes, device="cpu")
    out, target = np.empty_like(want), np.empty_like(x)
    words = x.view(np.uint8).reshape(-1).view(np.complex128 if x.itemsize == 16 else np.uint8)
    tx = torch.from_numpy(words).view(getattr(torch, TORCH_WORDS[x.itemsize])).view(shape)

    def ours(kernel):
        cpu_permute._runs = kernel
        try:
            cornerturn.permute_dims(x, axes, out=out)
        finally:
            cpu_permute._runs = memcpy_runs

    exact = {}
    for name, kernel in (("memcpy", memcpy_runs), ("loop", runs_loop)):
        out[...] = 0
        ours(kernel)
        exact[name] = bool(np.array_equal(out.view(np.uint8), want.view(np.uint8)))
    fns = {"memcpy": lambda: ours(memcpy_runs), "loop": lambda: ours(runs_loop),
           "torch": lambda: tx.permute(axes).contiguous(), "copy": lambda: np.copyto(target, x)}
    t = time_host_rounds(fns, repeats=repeats)
    return {"case": f"{dtype} {'x'.join(map(str, shape))} {axes}", "plan": str(plan.method), "exact": exact,
            "bytes": 2 * x.nbytes, "ms": {k: v.median * 1e3 for k, v in t.items()},
            "pct_of_copy": {k: 100 * t["copy"].median / v.median for k, v in t.items() if k != "copy"}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--torch-led", action="store_true", help="the cases torch led in suite runs, twice each")
    args = parser.parse_args()
    rows = []
    rng = np.random.default_rng(0)
    for shape, dtype, axes in (TORCH_LED * 2 if args.torch_led else CASES):
        row = measure(shape, dtype, axes, args.repeats, rng)
        rows.append(row)
        print(row["case"], row["plan"], {k: round(v, 1) for k, v in row["pct_of_copy"].items()},
              "" if all(row["exact"].values()) else f"NOT EXACT {row['exact']}", flush=True)
    with open(f"{args.out}/cpu-runs-loop-probe{'-torch-led' if args.torch_led else ''}.json", "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "threads": numba.get_num_threads(),
                   "command": "python3 scripts/cpu_runs_loop_probe.py --out DIR" + (" --torch-led" if args.torch_led
                                                                                     else ""),
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
