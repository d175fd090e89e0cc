"""Probe check: the realign kernel under numba-cuda's simulator, bit for bit against NumPy on ragged shapes, every
pitch residue and base shift, into a poisoned output (bytes outside the matrix must stay poisoned).
Usage: NUMBA_ENABLE_CUDASIM=1 python3 scripts/realign_sim_check.py SEED"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

from cornerturn.engine import realign as R  # noqa: E402

POISON = 0xAB


def check(rng, size: int, batch: int, rows: int, cols: int, x_pad: int, x_shift: int, out_shift: int, out_pad: int,
          config: R.RealignConfig) -> bool:
    dtype = np.uint8 if size == 1 else np.uint16
    x_row = (cols + x_pad) * size
    x_batch = rows * x_row + int(rng.integers(0, 3)) * size
    buf = rng.integers(0, 256, x_shift + batch * x_batch + 16, dtype=np.uint8)
    x = np.lib.stride_tricks.as_strided(buf[x_shift:], shape=(batch, rows, cols * size), strides=(x_batch, x_row, 1))
    out_row = (rows + out_pad) * size
    out_batch = cols * out_row
    ob = np.full((out_shift + batch * out_batch + 8) // 4 * 4 + 4, POISON, np.uint8)
    g = R.Geometry(size, batch, rows, cols, x_row, x_batch, out_row, out_batch)
    device = cuda.to_device(ob)  # one buffer seen as words and bytes
    R.run_arrays(config, g, buf[: len(buf) // 4 * 4].view(np.uint32), x_shift, device.view(np.uint32), device,
                 out_shift)
    ob = device.copy_to_host()
    got = np.lib.stride_tricks.as_strided(ob[out_shift:], shape=(batch, cols, rows * size),
                                          strides=(out_batch, out_row, 1)).copy().view(dtype)
    want = x.copy().view(dtype).reshape(batch, rows, cols).transpose(0, 2, 1)
    untouched = np.ones(len(ob), bool)
    for b in range(batch):
        for c in range(cols):
            first = out_shift + b * out_batch + c * out_row
            untouched[first:first + rows * size] = False
    return bool(np.array_equal(got, want) and np.all(ob[untouched] == POISON))


def main() -> None:
    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for config in (R.RealignConfig(124, 4), R.RealignConfig(248, 4)):
        for size in (1, 2):
            for _ in range(2):
                shifts = [int(rng.integers(0, 4)) // size * size for _ in range(2)]
                args = (size, int(rng.integers(1, 3)), int(rng.integers(1, 300 // size)),
                        int(rng.integers(1, 200 // size)), int(rng.integers(0, 5)), *shifts, int(rng.integers(0, 3)))
                print(config.name, args, check(rng, *args, config), flush=True)


if __name__ == "__main__":
    main()
