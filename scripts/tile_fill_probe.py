"""Probe: 8- and 16-byte permutations that the planner moves in general tiles of 8-byte words, against the tile of the
same size class (2,048 to 4,096 words, sides of 32 words or more) whose blocks waste the fewest lanes on the two sides
(the padding to whole blocks), on the permute suite's random permutations of the given seeds; every plan checked bit
for bit against torch's permute, timed with torch and a copy of the same bytes in interleaved rounds.

    python3 scripts/tile_fill_probe.py OUT.json SEEDS DRAWS [--dry] [--fill-below=F] [--rule] [CASE ...]
    (SEEDS: 7401,7402)
"""

import json
import math
import sys
import time

from cornerturn.bench.suites import parse_case, random_permutations
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation

DRY = "--dry" in sys.argv  # plan only: which cases the fuller tile would change
# --rule: only B narrowed, a tile of 64 x 64 words or more along A takes 32 along B where that pads B by 5% fewer lanes
RULE = "--rule" in sys.argv
FILL_BELOW = float(next((a.split("=")[1] for a in sys.argv if a.startswith("--fill-below=")), "1.01"))


def fill(size_a: int, size_b: int, block_a: int, block_b: int) -> float:
    return size_a * size_b / (math.ceil(size_a / block_a) * block_a * math.ceil(size_b / block_b) * block_b)


def fuller(sides, config):
    """The tile of 2,048-4,096 words whose blocks fill the sides best; the plan's where none fills them better."""
    best, best_fill = config, fill(sides.size_a, sides.size_b, config.block_a, config.block_b)
    if RULE:
        narrowed = permute.PermuteConfig(config.block_a, 32, config.num_warps)
        f = fill(sides.size_a, sides.size_b, config.block_a, 32)
        ok = config.block_a >= 64 and config.block_b == 64 and f > best_fill * 1.05
        return (narrowed, f) if ok else (best, best_fill)
    for block_a in (32, 64, 128):
        for block_b in (32, 64, 128):
            if not 2048 <= block_a * block_b <= 4096:
                continue
            f = fill(sides.size_a, sides.size_b, block_a, block_b)
            if f > best_fill * 1.05:
                best, best_fill = permute.PermuteConfig(block_a, block_b, config.num_warps), f
    return best, best_fill


def plans(case):
    strides, step = [], case.itemsize
    for n in reversed(case.shape):
        strides.insert(0, step)
        step *= n
    perm = canonical_permutation(case.shape, tuple(strides), case.itemsize, case.axes)
    if case.itemsize < 8 or getattr(perm, "kind", None) != "permute":
        return None
    plan = permute.build(perm, permute.natural_word(perm))
    if not isinstance(plan.config, permute.PermuteConfig) or plan.word != 8 or plan.config.packed:
        return None
    sides = permute.split(perm, 8, max(16, permute.SIDE_BYTES // 8), 0, fill_block=permute.tile_base(8)[0],
                          fill=permute.FILL_A if permute.EXTEND_A else 0.0)
    other, other_fill = fuller(sides, plan.config)
    if other == plan.config:
        return None
    return plan, permute.build(perm, 8, other), (sides.size_a, sides.size_b,
                                                 fill(sides.size_a, sides.size_b, plan.config.block_a,
                                                      plan.config.block_b), other_fill)


def run_case(case, plan, other) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(getattr(torch, case.dtype)).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in (("plan", plan), ("fuller", other)):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{case.name} {name}: wrong result")
        fns[name] = call
    copy_to = torch.empty_like(x)
    fns["torch"] = lambda: x.permute(case.axes).contiguous()
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    return {"case": case.name, "plan": plan.config.name, "other": other.config.name,
            "pct": {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}}


def main() -> None:
    path, seeds, draws = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
    cases = [parse_case(text) for text in sys.argv[4:] if not text.startswith("--")]
    for seed in seeds:
        cases += [c for c in random_permutations(seed, draws, "cuda") if c.itemsize >= 8]
    rows = []
    for case in cases:
        found = plans(case)
        if found is None:
            continue
        plan, other, (size_a, size_b, plan_fill, other_fill) = found
        if plan_fill >= FILL_BELOW:  # only the plans whose blocks leave more than this share of lanes idle
            continue
        if DRY:
            print(f"{case.name:48s} sides {size_a} x {size_b} {plan.config.name} {plan_fill:.2f} -> "
                  f"{other.config.name} {other_fill:.2f}")
            continue
        r = run_case(case, plan, other)
        r.update(sides=[size_a, size_b], fill=[round(plan_fill, 3), round(other_fill, 3)])
        rows.append(r)
        p = r["pct"]
        print(f"{r['case']:48s} {size_a}x{size_b} {r['plan']:18s} {p['plan']:5.1f}% {r['other']:18s} "
              f"{p['fuller']:5.1f}% torch {p['torch']:5.1f}%", flush=True)
    if not DRY:
        import torch

        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime()),
                       "command": "python3 scripts/tile_fill_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
