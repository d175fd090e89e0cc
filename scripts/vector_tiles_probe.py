"""Probe: the general element tiles where every load and store is a 16-byte vector (permute.tiles_in_vectors), with
the word size's tile (permute.TILES; "plan": the planner's) four or two times larger,
on random permutations whose input and output fastest axes hold whole 16-byte runs (rank 3-5, 1- to 8-byte
elements, 64-256 MiB), drawn from the seeds given. Every plan bit-exact into a poisoned output, then timed with torch
and the copy in interleaved CUDA-event rounds (shuffled, L2 flushed before each sample).

    python scripts/vector_tiles_probe.py OUT.json CASES SEED [SEED ...] [--bytes-one-run]

--bytes-one-run: 1-byte elements only, side B one run in the input (the kernel's NB_IN == 1), and int8
256x256x64x64 by (3,2,1,0) first.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time

import torch

from cornerturn.engine import permute
from cornerturn.problem import Permutation

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tile_sweep_probe import canon, measure  # noqa: E402

VARIANTS = {1: ((256, 256, 4), (256, 256, 8), (128, 256, 8), (256, 128, 8)),
            2: ((256, 128, 4), (256, 128, 8), (128, 256, 8)),
            4: ((128, 128, 4), (128, 128, 8), (64, 128, 8)), 8: ((64, 128, 8), (128, 64, 8), (64, 64, 8))}
DTYPES = {1: torch.int8, 2: torch.float16, 4: torch.float32, 8: torch.float64}


def planned(p, word, tile):
    """The plan with the word size's tile (`tile` in its place where given)."""
    saved = dict(permute.TILES)
    if tile:
        permute.TILES[word] = tile
    try:
        return permute.build(p, word)
    finally:
        permute.TILES.clear()
        permute.TILES.update(saved)


def draw(rng, sizes):
    size = rng.choice(sizes)
    rank = rng.randint(3, 5)
    while True:
        axes = list(range(rank))
        rng.shuffle(axes)
        if axes[-1] != rank - 1:
            break
    quantum = 16 // size
    ext = [max(2, round(math.exp(rng.uniform(math.log(2), math.log(300))))) for _ in range(rank)]
    for a in (rank - 1, axes[-1]):
        ext[a] = quantum * max(1, round(ext[a] / quantum))
    target = math.exp(rng.uniform(math.log(64 << 20), math.log(256 << 20))) / size
    free = [i for i in range(rank) if i not in (rank - 1, axes[-1])]
    k = rng.choice(free)
    ext[k] = max(2, round(target / math.prod(e for i, e in enumerate(ext) if i != k)))
    return size, tuple(ext), tuple(axes)


def main() -> None:
    one_run = "--bytes-one-run" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path, most, seeds = args[0], int(args[1]), [int(s) for s in args[2:]]
    rows = []
    named = [(0, (1, (256, 256, 64, 64), (3, 2, 1, 0)))] if one_run else []
    for seed in [0] * len(named) + seeds:
        rng = random.Random(seed)
        found = 0
        while found < (1 if seed == 0 else most):
            size, shape, axes = named.pop()[1] if seed == 0 else draw(rng, (1,) if one_run else (1, 2, 4, 8))
            if math.prod(shape) * size > (320 << 20):
                continue
            p = canon(shape, DTYPES[size], axes)
            if not isinstance(p, Permutation):
                continue
            if permute.natural_word(p) != size:
                continue
            base = planned(p, size, None)
            if not isinstance(base.config, permute.PermuteConfig) or not permute.tiles_in_vectors(p):
                continue
            if one_run and base.pieces[0][2].constexprs["NB_IN"] != 1:
                continue
            plans = {"plan": base}
            for tile in VARIANTS[size]:
                plan = planned(p, size, tile)
                if plan.config != base.config:
                    plans[plan.config.name] = plan
            if len(plans) < 2:
                continue
            found += 1
            name = f"{DTYPES[size]} {'x'.join(map(str, shape))} {axes} [{base.config.name}]".replace("torch.", "")
            rows.append(dict(measure(name, shape, DTYPES[size], axes, plans), seed=seed))
            with open(path, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(),
                           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
