"""Probe smoke test: each realign16 config once on a small ragged matrix, checked; run under compute-sanitizer."""
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, "scripts")
from realign16_probe import CONFIGS, launch  # noqa: E402

for size in (1, 2):
    for config in CONFIGS:
        dtype = np.uint8 if size == 1 else np.int16
        m, n = 300, 333
        x = cp.random.randint(0, 256, m * n * size + 2 * size, dtype=np.uint8).view(dtype)[1:1 + m * n].reshape(m, n)
        ob = cp.full(m * n * size + 2 * size, 0xA5, np.uint8)
        out = ob.view(dtype)[1:1 + m * n].reshape(n, m)
        launch(size, config, x, out, 1, m, n)
        cp.cuda.Device().synchronize()
        print(size, config, bool(cp.array_equal(out, x.T)), flush=True)
