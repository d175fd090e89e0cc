"""Probe: skinny matrices (a side of 2 to 7 elements) in 16-byte vectors (cpu/interleave.py) against the element
kernel (cpu/kernels.skinny_kernel), torch and np.copyto, interleaved rounds, median of 5, each output checked
bit for bit. One random shape per element size (1, 2, 4, 8 bytes), short side (2-7) and orientation: 4-32 MB,
batches of 1-4.

    python3 scripts/cpu_skinny_probe.py SEED OUT.json
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time

import numpy as np
import torch

from cornerturn.cpu.interleave import skinny_vector_kernel
from cornerturn.cpu.kernels import skinny_kernel
from cornerturn.timing import time_host_rounds


def case(rng, itemsize: int, short: int, short_rows: bool) -> dict:
    word = np.dtype(f"u{itemsize}")
    elements = int(math.exp(rng.uniform(math.log(4e6), math.log(32e6)))) // itemsize
    batch = int(rng.integers(1, 5))
    long = elements // (batch * short)
    shape = (batch, short, long) if short_rows else (batch, long, short)
    x = rng.integers(0, 2 ** (8 * itemsize) - 1, size=shape, dtype=word)
    out = np.empty((batch, shape[2], shape[1]), word)
    copy = np.empty_like(x)
    vector = skinny_vector_kernel(short, short_rows, itemsize, True)
    scalar = skinny_kernel(short, short_rows, True)
    for kernel in (vector, scalar):
        out.fill(0xA5)
        kernel(x, out)
        assert np.array_equal(out, x.swapaxes(-1, -2))
    signed = np.dtype(f"i{itemsize}")
    tx, tout = torch.from_numpy(x.view(signed)), torch.from_numpy(out.view(signed).copy())
    timings = time_host_rounds({"copy": lambda: np.copyto(copy, x), "torch": lambda: tout.copy_(tx.transpose(-1, -2)),
                                "scalar": lambda: scalar(x, out), "vector": lambda: vector(x, out)}, repeats=5)
    gbps = {k: 2 * x.nbytes / v.median / 1e9 for k, v in timings.items()}
    return {"itemsize": itemsize, "short": short, "short_rows": short_rows, "shape": list(shape), **gbps}


def main() -> None:
    seed, path = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(seed)
    rows = []
    for itemsize in (1, 2, 4, 8):
        for short in range(2, 8):
            for short_rows in (True, False):
                r = case(rng, itemsize, short, short_rows)
                rows.append(r)
                print(itemsize, short, "rows" if short_rows else "cols", r["shape"],
                      " ".join(f"{k}={r[k]:.1f}" for k in ("copy", "torch", "scalar", "vector")), flush=True)

    def geomean(v):
        return math.exp(statistics.fmean(map(math.log, v)))

    over_scalar = [r["vector"] / r["scalar"] for r in rows]
    over_torch = [r["vector"] / r["torch"] for r in rows]
    print(f"vector/scalar geomean {geomean(over_scalar):.2f} min {min(over_scalar):.2f} max {max(over_scalar):.2f}; "
          f"vector/torch geomean {geomean(over_torch):.2f} min {min(over_torch):.2f}")
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": f"python3 scripts/cpu_skinny_probe.py {seed} OUT.json", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
