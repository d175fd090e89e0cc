"""Bytes on the CPU: the 8x8-block kernel (bytes as 64-bit words) against the element kernel it replaced, and
np.copyto of the same bytes, timed in the same run (median of REPEATS after a warm-up), every output checked.

    python3 scripts/cpu_bytes.py [16384x16384 8192x8192 8x1024x1024 ...]   (JSON on stdout)
"""

import json
import os
import sys
import time
from datetime import datetime, timezone

import numpy as np

from cornerturn.cpu.planner import CPU_VARIANTS

REPEATS = int(os.environ.get("REPEATS", "5"))
SHAPES = [tuple(int(v) for v in a.split("x")) for a in sys.argv[1:]] or [(16384, 16384), (8192, 8192),
                                                                          (4096, 16384), (16384, 4096),
                                                                          (8, 1024, 1024)]


def median_seconds(fn) -> float:
    fn()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return sorted(samples)[len(samples) // 2]


def case(shape: tuple[int, ...], packed, element, rng: np.random.Generator) -> dict:
    x = rng.integers(0, 256, (1,) * (3 - len(shape)) + shape, dtype=np.uint8)
    want = np.ascontiguousarray(x.swapaxes(1, 2))
    out = np.empty_like(want)
    copied = np.empty_like(x)
    row = {"shape": "x".join(map(str, shape)),
           "copy_gbs": 2 * x.nbytes / median_seconds(lambda: np.copyto(copied, x)) / 1e9}
    for name, run in [("words", lambda: packed(x.view(np.uint64), out.view(np.uint64))),
                      ("elements", lambda: element(x, out))]:
        out.fill(0xA5)
        run()
        row[f"{name}_exact"] = bool(np.array_equal(out, want))
        row[f"{name}_gbs"] = 2 * x.nbytes / median_seconds(run) / 1e9
    return row


def main() -> None:
    packed = next(v for v in CPU_VARIANTS if v.packed and v.parallel).kernel()
    element = next(v for v in CPU_VARIANTS if not v.packed and v.parallel and 1 in v.itemsizes).kernel()
    rng = np.random.default_rng(0)
    rows = []
    for shape in SHAPES:
        rows.append(case(shape, packed, element, rng))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "cpus": os.cpu_count(),
                      "command": "python3 scripts/cpu_bytes.py " + " ".join(sys.argv[1:]), "cases": rows}, indent=1))

main()
