"""Probe: 2-byte transposes as 4x4 blocks of 64-bit words (cpu.kernels.block_kernel) against the 8x8 element micro
tiles and torch, on named shapes and the 2-byte cases of `--suite random --seed SEED` (CPU sizes), bit for bit.

    python3 scripts/cpu_halves_probe.py SEED
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from cornerturn.arrays import view_of
from cornerturn.bench import suites
from cornerturn.bench.host import numpy_dtype
from cornerturn.cpu.kernels import block_kernel, tile_kernel
from cornerturn.cpu.planner import Geometry
from cornerturn.problem import canonical

NAMED = [(1, 8192, 8192), (64, 256, 3136), (64, 3136, 256), (1, 19059, 890), (9, 5898, 1947), (11, 1217, 1108)]


def cases(seed: int):
    yield from NAMED
    for case in suites.random_cases(seed, 60, "cpu"):
        if numpy_dtype(case.dtype).itemsize == 2:
            yield case.shape if len(case.shape) == 3 else (1, *case.shape)


def blocks(x, out, tile_blocks):
    """The packed plan's pieces: whole 4x4 blocks, then the rows and columns past them by the element kernel."""
    g = Geometry.of(canonical(x.shape, x.strides, 2), packed=True)
    xv, ov = view_of(x), view_of(out)
    kernel, edge = block_kernel(2, tile_blocks, True), tile_kernel(128, 8, 8, True)

    def run():
        for x_off, o_off in g.offsets:
            for ins, ist, iat, os_, ost, oat in g.edges:
                edge(xv.host_words(ins, ist, x_off + iat, 2), ov.host_words(os_, ost, o_off + oat, 2))
            kernel(xv.host_words(g.in_shape, g.in_strides, x_off, 8),
                   ov.host_words(g.out_shape, g.out_strides, o_off, 8))

    return run


def measure(shape):
    b, m, n = shape
    x = np.random.default_rng(1).integers(0, 65536, shape, dtype=np.uint16)
    out = np.empty((b, n, m), np.uint16)
    ref = np.ascontiguousarray(x.swapaxes(1, 2))
    fns = {f"halves{4 * t}": blocks(x, out, t) for t in (16, 32, 64)}
    element = tile_kernel(128, 8, 8, True)
    fns["micro8x8"] = lambda: element(x, out)
    for name, fn in fns.items():
        out[...] = 0
        fn()
        assert (out == ref).all(), name
    src = torch.from_numpy(x.view(np.int16)).transpose(1, 2)
    dst = torch.from_numpy(np.empty_like(ref).view(np.int16))
    copy_out = np.empty_like(x)
    fns["torch"] = lambda: dst.copy_(src)
    fns["copy"] = lambda: np.copyto(copy_out, x)
    times = {k: [] for k in fns}
    for _ in range(5):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    gbs = {k: 2 * x.nbytes / 1e9 / float(np.median(v)) for k, v in times.items()}
    print(f"{b}x{m}x{n}: " + " ".join(f"{k} {v:.1f}" for k, v in gbs.items()), flush=True)
    return gbs


def main():
    rows = [measure(shape) for shape in cases(int(sys.argv[1]))]
    for name in rows[0]:
        if name != "copy":
            share = [r[name] / r["copy"] for r in rows]
            print(f"{name}: median {100 * float(np.median(share)):.0f}% of the copy, minimum {100 * min(share):.0f}%")


if __name__ == "__main__":
    main()
