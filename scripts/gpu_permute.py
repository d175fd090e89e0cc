"""permute_dims on the GPU: random ranks, sizes, strides, offsets and permutations, every element size, each checked
bit-exact against torch's permute().contiguous(), in 32- and 64-bit offsets; prints the plan of each kind once.

    python scripts/gpu_permute.py [--seed S] [--cases N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import torch

import cornerturn
from cornerturn.engine import plan as engine_plan

DTYPES = (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128)


def bits(t: torch.Tensor) -> torch.Tensor:
    t = torch.empty(t.shape, dtype=t.dtype, device=t.device).copy_(t)  # strides of size-1 axes made plain
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.reshape(-1).view(torch.int8)


def draw(rng: np.random.Generator):
    rank = int(rng.integers(1, 7))
    total = math.exp(rng.uniform(math.log(8), math.log(4 << 20)))
    weights = rng.random(rank) + 0.05
    shape = [max(1, round(math.exp(v))) for v in math.log(total) * weights / weights.sum()]
    if rng.random() < 0.15:
        shape[int(rng.integers(rank))] = 1
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    axes = tuple(int(a) for a in rng.permutation(rank))
    steps = [int(rng.choice([1, 1, 1, 2, 3])) for _ in range(rank)]
    offset = int(rng.choice([0, 0, 1, 3]))
    return shape, dtype, axes, steps, offset


def make(shape, dtype, steps, offset, gen):
    full = [s * k for s, k in zip(shape, steps)]
    n = math.prod(full) + offset
    raw = torch.randint(-128, 127, (n * torch.tensor([], dtype=dtype).element_size(),), dtype=torch.int8,
                        device="cuda", generator=gen)
    base = raw.view(dtype)[offset:].view(full) if full else raw.view(dtype)[offset:offset + 1].view(())
    return base[tuple(slice(None, None, k) for k in steps)] if full else base


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    draws = [draw(rng) for _ in range(args.cases)]
    bad, kinds, checked = [], {}, 0
    for wide in (False, True):
        engine_plan.WIDE_FROM = 0 if wide else 2**31
        cornerturn.api._backend_plan.cache_clear()
        cornerturn.api._cached_plan.cache_clear()
        cornerturn.engine.choose.cache_clear()
        for shape, dtype, axes, steps, offset in (draws if not wide else draws[::4]):
            x = make(shape, dtype, steps, offset, gen)
            got = cornerturn.permute_dims(x, axes)
            want = x.permute(axes).contiguous()
            checked += 1
            p = cornerturn.plan(tuple(x.shape), x.dtype, device="cuda", strides=x.stride(), axes=axes)
            kinds.setdefault(p.problem.kind, repr(p))
            if got.shape != want.shape or not torch.equal(bits(got), bits(want)):
                bad.append({"shape": shape, "dtype": str(dtype), "axes": axes, "steps": steps, "offset": offset,
                            "wide": wide, "plan": repr(p)})
                print("WRONG", bad[-1], flush=True)
    engine_plan.WIDE_FROM = 2**31
    for kind, plan in kinds.items():
        print(f"{kind}: {plan}")
    print(f"permute_dims: {checked} checks, {len(bad)} wrong")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "checks": checked, "wrong": bad, "device": torch.cuda.get_device_name(),
                       "plans": kinds}, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
