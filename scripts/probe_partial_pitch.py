"""Probe (temporary): partial-sector stores against the rows' pitch, blocks looping or one pass each, beside
naive-rows and naive-1d at 8192 and 16384."""
import json
import os

import numpy as np
from numba import cuda

from cornerturn.lab import probes
from cornerturn.lab.calibrate import time_launch
from cornerturn.lab.registry import build, get, launch_shape
from cornerturn.lab.runner import make_flush

flush = make_flush()
sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
res = []
for side in (8192, 16384):
    x = cuda.to_device(np.random.default_rng(1).random(side * side, dtype=np.float32) + 1)
    y = cuda.device_array_like(x)
    warps = x.size // 32
    for pitch in (4096, 8192, 16384, 32768):
        k = probes.make_sectors(1, True, pitch)
        for label, grid in (("loop", sms * 8), ("one-pass", warps // 8)):
            t = time_launch(lambda k=k, g=grid: k[g, 256](y, x, np.uint32(warps)), flush)
            res.append({"side": side, "pitch": pitch, "grid": label, "sectors_per_ns": x.size / t / 1e9})
            print(f"side {side} pitch {pitch:>5} {label:<8} {x.size / t / 1e9:6.1f} partial sectors/ns", flush=True)
    a = x.reshape(side, side)
    b = y.reshape(side, side)
    for name in ("naive-rows", "naive-1d"):
        fn = build(name, "float32")
        grid, block = launch_shape(get(name), side, side)
        t = time_launch(lambda fn=fn, g=grid, bl=block: fn[g, bl](b, a), flush)
        res.append({"side": side, "kernel": name, "elements_per_ns": x.size / t / 1e9})
        print(f"side {side} {name:<10} {x.size / t / 1e9:6.1f} elements/ns", flush=True)
with open(os.path.join(os.environ.get("OUT", "/tmp"), "partial-pitch.json"), "w") as f:
    json.dump(res, f, indent=1)
