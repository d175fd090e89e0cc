"""Probe (temporary): the skinny kernel against the tile kernel, torch and np.copyto on matrices with a side of
a few elements (32 MiB, batches of 1 to 4, both orientations); python3 scripts/skinny_sweep.py SEED 2,3,4,6"""

import sys
import time

import numpy as np
import torch

from cornerturn.cpu.kernels import skinny_kernel
from cornerturn.cpu.planner import _variant


def median_s(run, repeats=5):
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(seed: int, shorts: list[int]) -> None:
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    print(f"{'case':<34} {'copy':>5} {'tile':>5} {'skinny':>6} {'torch':>5}  GB/s")
    for short in shorts:
        for short_rows in (True, False):
            for dtype in (np.uint8, np.uint16, np.float32, np.float64):
                size = np.dtype(dtype).itemsize
                batch = int(rng.integers(1, 5))
                long = (32 << 20) // (short * size) // batch
                shape = (batch, short, long) if short_rows else (batch, long, short)
                x = rng.integers(1, 200, size=shape).astype(dtype)
                out, y = np.empty(shape[:1] + shape[:0:-1], dtype), np.empty_like(x)
                tile, skinny = _variant(True, size, packed=False).kernel(), skinny_kernel(short, short_rows, True)
                tx, tout = torch.from_numpy(x), torch.from_numpy(out)
                copy_s = median_s(lambda x=x, y=y: np.copyto(y, x))
                tile_s = median_s(lambda k=tile, x=x, out=out: k(x, out))
                skinny_s = median_s(lambda k=skinny, x=x, out=out: k(x, out))
                assert np.array_equal(out, x.swapaxes(-1, -2))
                torch_s = median_s(lambda tx=tx, tout=tout: tout.copy_(tx.transpose(-1, -2)))
                gb = 2 * x.nbytes / 1e9
                print(f"{np.dtype(dtype).name + ' ' + str(shape):<34} {gb / copy_s:5.1f} {gb / tile_s:5.1f} "
                      f"{gb / skinny_s:6.1f} {gb / torch_s:5.1f}  skinny/tile {tile_s / skinny_s:4.2f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",")])
