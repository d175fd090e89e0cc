"""Probe: one realign16 launch (config and order from argv) on one matrix, for Nsight Compute."""
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, "scripts")
from realign16_probe import launch  # noqa: E402

m, n, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
config, order = tuple(int(v) for v in sys.argv[4].split(",")), sys.argv[5]
dtype = np.uint8 if size == 1 else np.int16
x = cp.random.randint(0, 256, m * n * size, dtype=np.uint8).view(dtype).reshape(m, n)
out = cp.empty((n, m), dtype)
launch(size, config, x, out, 1, m, n, order)
cp.cuda.Device().synchronize()
