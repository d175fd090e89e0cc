"""Probe: permute_words (the planner's plan for most byte permutations) against the element tiles (the widest word's
heuristic tile on 8 and 4 warps) on the permute suite's random 1-byte permutations that take permute_words, drawn
from the seeds given; every plan bit-exact into a poisoned output, then timed with torch and the copy in interleaved
rounds (L2 flushed before each sample).

    python3 scripts/words_or_tiles_probe.py OUT.json CASES SEED [SEED ...] [--short-a]

--short-a: only those whose output runs are not whole words (the words kernel's OUT 1 or 2) with under 512 bytes along
A (the candidate rule that the first run suggested).
"""

import dataclasses
import json
import sys
import time

import torch

from cornerturn import engine
from cornerturn.arrays import view_of
from cornerturn.bench.suites import suite
from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import Permutation, canonical_permutation


def canon(shape, size, axes):
    strides, step = [], size
    for e in reversed(shape):
        strides.insert(0, step)
        step *= e
    return canonical_permutation(tuple(shape), tuple(strides), size, tuple(axes))


def measure(case, p, plans) -> dict:
    dtype = getattr(torch, case.dtype)
    x = torch.randint(0, 256, tuple(case.shape), dtype=torch.uint8, device="cuda").view(dtype)
    want = x.permute(*case.axes).contiguous()
    out, copy = torch.empty_like(want), torch.empty_like(x)
    xv, ov = view_of(x), view_of(out)
    exact = {}
    for key, plan in plans.items():
        out.view(torch.uint8).fill_(0xA5)
        engine.run(plan, xv, ov)
        exact[key] = bool(torch.equal(out.view(torch.uint8), want.view(torch.uint8)))
    fns = {"copy": lambda: copy.copy_(x), "torch": lambda: out.copy_(x.permute(*case.axes))}
    fns.update({key: (lambda plan=plan: engine.run(plan, xv, ov)) for key, plan in plans.items()})
    t = time_cuda_rounds(fns, repeats=9)
    pct = {k: round(100 * t["copy"].median / v.median, 1) for k, v in t.items() if k != "copy"}
    return {"case": case.name, "pct": pct, "exact": exact, "plans": {k: p.config.name for k, p in plans.items()}}


def main() -> None:
    short_a = "--short-a" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path, most, seeds = args[0], int(args[1]), [int(s) for s in args[2:]]
    rows = []
    for seed in seeds:
        for case in suite("permute", seed=seed, count=32, device="cuda")[-32:]:
            p = canon(case.shape, torch.empty(0, dtype=getattr(torch, case.dtype)).element_size(), case.axes)
            if not isinstance(p, Permutation) or p.itemsize != 1:
                continue
            words = permute.build(p, permute.natural_word(p))
            if not isinstance(words.config, permute.PermuteWordsConfig):
                continue
            if short_a and (words.pieces[0][2].constexprs["OUT"] == 0 or permute.words_sides(p).size_a >= 512):
                continue
            word = permute.widest_word(p)
            tiles = permute.build(p, word)
            if not isinstance(tiles.config, permute.PermuteConfig):
                continue
            other = dataclasses.replace(tiles.config, num_warps=12 - tiles.config.num_warps)
            plans = {"words": words, "tiles": tiles, "tiles other warps": permute.build(p, word, other)}
            rows.append(dict(measure(case, p, plans), seed=seed))
            print(rows[-1], flush=True)
            with open(path, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(),
                           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)
            if len(rows) >= most:
                return


if __name__ == "__main__":
    main()
