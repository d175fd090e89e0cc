"""Probe: one launch each of byte permutations' planner plans, bit-exact, for Nsight Compute to profile:

    ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables ... \
        python3 scripts/words_ncu.py "int8 98x11x9x87x79 1,4,0,3,2" ...
"""

import sys

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.problem import canonical_permutation

for spec in sys.argv[1:]:
    dt, sh, ax = spec.split()
    shape = tuple(int(v) for v in sh.split("x"))
    axes = tuple(int(v) for v in ax.split(","))
    x = torch.randint(-128, 128, shape, dtype=torch.int8, device="cuda")
    o = torch.full(tuple(shape[a] for a in axes), 77, dtype=torch.int8, device="cuda")
    p = canonical_permutation(shape, tuple(x.stride(i) for i in range(len(shape))), 1, axes)
    plan = engine.choose(p, "cuda:0")
    print(spec, plan.config.name, flush=True)
    engine.run(plan, view_of(x), view_of(o))
    torch.cuda.synchronize()
    assert torch.equal(o, x.permute(*axes).contiguous())
