"""Probe: transpose_narrow on one matrix of bytes (rows x cols, C-contiguous), launched three times (warm-up, then
the two that Nsight Compute profiles with --launch-skip 1 --launch-count 1 -k transpose_narrow).

    python scripts/narrow_profile.py ROWS COLS [BLOCK_OW WARPS]
"""

from __future__ import annotations

import sys

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.engine.configs import NarrowConfig
from cornerturn.engine.plan import build
from cornerturn.problem import canonical


def main() -> None:
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    config = NarrowConfig(*(int(a) for a in sys.argv[3:5])) if len(sys.argv) > 3 else NarrowConfig()
    x = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, device="cuda")
    o = torch.empty((cols, rows), dtype=torch.uint8, device="cuda")
    plan = build(canonical((rows, cols), (cols, 1), 1), 4, config)
    print(plan.name, plan.pieces[0][2].constexprs, flush=True)
    for _ in range(3):
        engine.run(plan, view_of(x), view_of(o))
    torch.cuda.synchronize()
    assert torch.equal(o, x.t()), "not exact"


if __name__ == "__main__":
    main()
