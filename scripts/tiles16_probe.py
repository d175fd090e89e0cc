"""Probe: 16-byte permutations that the planner moves in general tiles of 8-byte words (a base of 32 x 64 words),
against the same heuristic from a base of 64 x 64 words (what unaligned 8-byte words take), on the permute suite's
random permutations of the given seeds; every plan checked bit for bit against torch's permute, timed with torch and a
copy of the same bytes in interleaved rounds.

    python3 scripts/tiles16_probe.py OUT.json SEEDS DRAWS [CASE ...]     (SEEDS: 7301,7302)
"""

import json
import sys
import time

import torch

from cornerturn.bench.suites import parse_case, random_permutations
from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation

BASE = (64, 64, 0)


def tiles_plan(case):
    strides, step = [], case.itemsize
    for n in reversed(case.shape):
        strides.insert(0, step)
        step *= n
    perm = canonical_permutation(case.shape, tuple(strides), case.itemsize, case.axes)
    if case.itemsize != 16 or getattr(perm, "kind", None) != "permute":
        return None, None, None
    plan = permute.build(perm, permute.natural_word(perm))
    if not isinstance(plan.config, permute.PermuteConfig) or plan.word != 8:
        return None, None, None
    sides = permute.split(perm, 8, max(16, permute.SIDE_BYTES // 8), 0, fill_block=permute.tile_base(8)[0],
                          fill=permute.FILL_A if permute.EXTEND_A else 0.0)
    other = permute.heuristic(sides, BASE)
    if other == plan.config:
        return perm, plan, None
    return perm, plan, permute.build(perm, 8, other)


def run_case(case, plan, other) -> dict:
    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(getattr(torch, case.dtype)).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in (("plan", plan), ("base64x64", other)):
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
    cases = [parse_case(text) for text in sys.argv[4:]]
    for seed in seeds:
        cases += [c for c in random_permutations(seed, draws, "cuda") if c.itemsize == 16]
    rows = []
    for case in cases:
        perm, plan, other = tiles_plan(case)
        if other is None:
            continue
        r = run_case(case, plan, other)
        rows.append(r)
        p = r["pct"]
        print(f"{r['case']:48s} {r['plan']:18s} {p['plan']:5.1f}% {r['other']:18s} {p['base64x64']:5.1f}% torch "
              f"{p['torch']:5.1f}%", flush=True)
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/tiles16_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
