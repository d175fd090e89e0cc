"""Probe: one realign launch per config on one matrix, for Nsight Compute."""
import sys

import torch

from cornerturn.engine import realign as R

m, n, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
x = torch.randint(0, 255, (m, n * size), device="cuda", dtype=torch.uint8)
out = torch.empty(n * m * size, device="cuda", dtype=torch.uint8)
g = R.Geometry(size, 1, m, n, n * size, m * n * size, m * size, m * n * size)
for cfg in (R.RealignConfig(124, 4),):
    R.run_pointers(cfg, g, x.data_ptr(), out.data_ptr(), torch.cuda.current_stream().cuda_stream)
torch.cuda.synchronize()
