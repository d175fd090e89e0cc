"""Probe (temporary): DRAM rate of tile-copy patterns: copy order, transposed tile placement, diagonal order."""
import json
import os

import numpy as np
from numba import cuda

from cornerturn.lab import probes
from cornerturn.lab.calibrate import time_launch
from cornerturn.lab.runner import device_copy_gbps, make_flush

out_dir = os.environ.get("OUT", "/tmp")
flush = make_flush()
res = {"device": str(cuda.get_current_device().name), "runs": []}
for side in (8192, 16384):
    host = np.random.default_rng(1).random((side, side), dtype=np.float32) + 1
    x = cuda.to_device(host)
    y = cuda.device_array_like(x)
    nbytes = 2 * x.nbytes
    copy = device_copy_gbps(x, y, repeats=9, flush=flush)
    print(f"side {side}: device copy {copy:,.0f}", flush=True)
    res["runs"].append({"side": side, "what": "memcpy", "gbps": copy})
    for w, h in ((32, 32), (64, 16), (128, 8), (16, 64), (32, 16), (16, 32), (16, 16), (64, 64), (8, 128),
                 (32, 64), (64, 32), (8, 32), (32, 8)):
        for order in ("copy", "transpose", "diagonal"):
            if order == "diagonal" and w != h:
                continue
            k = probes.make_segments(w, h, order)
            grid = (side // w) * (side // h)
            k[grid, 256](y, x)
            if side == 8192:
                got = y.copy_to_host()
                if order == "copy":
                    ok = np.array_equal(got, host)
                else:  # each tile's bytes land, in the same order, in the transposed tile's place
                    ok = np.array_equal(np.sort(got.ravel()), np.sort(host.ravel()))
            else:
                ok = None
            t = time_launch(lambda k=k, grid=grid, y=y, x=x: k[grid, 256](y, x), flush, repeats=9)
            g = nbytes / t / 1e9
            print(f"  {h:>3}x{w:<3} {order:<9} {g:7,.0f} GB/s  {100 * g / copy:5.1f}% of copy  ok={ok}", flush=True)
            res["runs"].append({"side": side, "what": order, "w": w, "h": h, "gbps": g, "pct": 100 * g / copy,
                                "ok": ok})
with open(os.path.join(out_dir, "dram-pattern.json"), "w") as f:
    json.dump(res, f, indent=1)
