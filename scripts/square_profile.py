"""Probe: one in-place square transpose per case (the default launch), for Nsight Compute's DRAM and L2 counters:

    ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum \\
        -k regex:transpose_square python3 scripts/square_profile.py float32:26817 float32:4399
"""

from __future__ import annotations

import sys

import torch

from cornerturn.engine.inplace import square_default

for spec in sys.argv[1:]:
    dtype, side = spec.split(":")
    n, tdtype = int(side), getattr(torch, dtype)
    x = torch.randint(0, 256, (n * n * tdtype.itemsize,), dtype=torch.uint8, device="cuda")
    launch = square_default(1, n, tdtype.itemsize, 16)
    launch.run_pointers(x.data_ptr(), x.data_ptr(), torch.cuda.current_stream().cuda_stream, 0)
    torch.cuda.synchronize()
    print(spec, n * n * tdtype.itemsize, "bytes", launch.constexprs, flush=True)
