"""Probe: skinny matrices with short rows (S = 2 to 7 rows, interleaved into rows of S elements) on the CPU, the
16-byte vector kernel against the element kernel and a single-threaded np.copyto of the same bytes, in interleaved
rounds (median of 5), each output checked bit for bit. Shapes: 4 matrices of S x long, `MIB` MiB in all.

    python3 scripts/cpu_skinny_rows_probe.py MIB[,MIB...] OUT.json
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from cornerturn.cpu.interleave import skinny_vector_kernel
from cornerturn.cpu.kernels import skinny_kernel

WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def main() -> int:
    sizes = [int(v) for v in sys.argv[1].split(",")]
    rows = []
    for mib in sizes:
        for size, word in WORDS.items():
            for short in range(2, 8):
                long = (mib << 20) // (short * size) // 4
                x = np.random.default_rng(short * size).integers(0, 2**8, (4, short, long)).astype(word)
                out = np.empty((4, long, short), word)
                copy = np.empty_like(x)
                want = x.transpose(0, 2, 1)
                fns = {"vector": skinny_vector_kernel(short, True, size, True),
                       "elements": skinny_kernel(short, True, True)}
                for name, kernel in fns.items():
                    out.fill(0xA5)
                    kernel(x, out)
                    assert np.array_equal(out, want), (mib, size, short, name)
                calls = {**{k: (lambda f=f, a=x, b=out: f(a, b)) for k, f in fns.items()},
                         "copy": lambda a=x, b=copy: np.copyto(b, a)}
                times = {k: [] for k in calls}
                for _ in range(5):
                    for k, call in calls.items():
                        call()
                        t = time.perf_counter()
                        call()
                        times[k].append(time.perf_counter() - t)
                gbps = {k: 2 * x.nbytes / float(np.median(v)) / 1e9 for k, v in times.items()}
                rows.append({"mib": mib, "itemsize": size, "short": short, "shape": list(x.shape), "gbps": gbps})
                print(f"{mib} MiB {size} B S={short}: vector {gbps['vector']:5.1f} elements {gbps['elements']:5.1f} "
                      f"copy {gbps['copy']:5.1f} GB/s  vector/elements x{gbps['vector'] / gbps['elements']:.2f}",
                      flush=True)
    info = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python3 scripts/cpu_skinny_rows_probe.py " + sys.argv[1], "rows": rows}
    with open(sys.argv[2], "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
