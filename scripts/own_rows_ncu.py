"""Launch the probe kernels on two byte matrices, for Nsight Compute: python3 scripts/own_rows_ncu.py"""
import own_rows_probe as p
import torch

p.SMS = torch.cuda.get_device_properties(0).multi_processor_count
ks = p.kernels()
gen = torch.Generator(device="cuda").manual_seed(5)
for shape in ((16384, 16384), (16389, 16387)):
    x = p.random_tensor(shape, 1, gen)
    out = torch.empty(shape[::-1], dtype=torch.int8, device="cuda")
    for kind in p.KINDS:
        p.launcher(ks, kind, x, out)()
    torch.cuda.synchronize()
