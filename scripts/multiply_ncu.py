"""Probe: one launch each of a 2-byte permutation's planner plan dividing its sides' indices, multiplying on side B
only, and multiplying on both sides (MAGIC_A, MAGIC_B), bit-exact, for Nsight Compute to profile:

    ncu --kernel-name permute_tiles --section SpeedOfLight --section Occupancy --section SchedulerStats \
        --metrics lts__t_sectors_srcunit_tex_op_write.sum,... \
        python3 scripts/multiply_ncu.py "float16 19x314x92x90 3,2,0,1" "int16 233x81x196x19 2,0,3,1"
"""

import sys

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.problem import canonical_permutation

sys.path.insert(0, "scripts")
from magic_probe import dividing  # noqa: E402

for spec in sys.argv[1:]:
    dt, sh, ax = spec.split()
    shape = tuple(int(v) for v in sh.split("x"))
    axes = tuple(int(v) for v in ax.split(","))
    dtype = getattr(torch, dt)
    x = torch.randint(-30000, 30000, shape, dtype=torch.int16, device="cuda").view(dtype)
    o = torch.empty(tuple(shape[a] for a in axes), dtype=dtype, device="cuda")
    strides = [x.stride(i) * 2 for i in range(len(shape))]
    p = canonical_permutation(shape, tuple(strides), 2, axes)
    plan = engine.choose(p, "cuda:0")
    for name, pl in (("divide", dividing(plan)), ("magic_b", dividing(plan, b=True)), ("both", plan)):
        print(spec, name, plan.config.name, flush=True)
        engine.run(pl, view_of(x), view_of(o))
        torch.cuda.synchronize()
        assert torch.equal(o.view(torch.int16), x.permute(*axes).contiguous().view(torch.int16))
