"""Probe: complex128 matrices of the random suite's kind (16-256 MiB, sides from 300, a quarter batched) that the
planner gives column walks, timed against the element tiles (tiles of 64, micro tiles of 4x4), torch and a copy of
the same bytes in interleaved rounds (median of 5), each bit-exact into a cleared output.

    python3 scripts/walk_probe.py SEED CASES OUT.json
"""

import json
import math
import sys
import time

import numpy as np
import torch

import cornerturn
from cornerturn.cpu.kernels import tile_kernel


def draw(rng: np.random.Generator) -> tuple[int, ...]:
    elements = int(math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20))) / 16)
    batch = round(math.exp(rng.uniform(math.log(2), math.log(64)))) if rng.random() < 0.25 else 1
    per = elements // batch
    rows = int(math.exp(rng.uniform(math.log(300), math.log(min(10**6, per / 300)))))
    return (batch, rows, per // rows) if batch > 1 else (rows, per // rows)


def measure(shape: tuple[int, ...], rng: np.random.Generator, tiles) -> dict:
    *_, rows, cols = shape
    x = rng.integers(0, 2**62, size=math.prod(shape) * 2, dtype=np.int64).view(np.complex128).reshape(shape)
    x3 = x if x.ndim == 3 else x[None]
    want = np.ascontiguousarray(np.swapaxes(x3, -1, -2))
    out = np.empty_like(want)
    out_shaped = out.reshape((*shape[:-2], cols, rows))
    tx, to, copy = torch.from_numpy(x), torch.from_numpy(out_shaped), np.empty_like(x)
    calls = {"copy": lambda: np.copyto(copy, x), "plan": lambda: cornerturn.transpose(x, out=out_shaped),
             "tiles": lambda: tiles(x3, out), "torch": lambda: to.copy_(tx.transpose(-1, -2))}
    for name, call in calls.items():
        out.fill(0)
        call()
        assert name == "copy" or np.array_equal(out.view(np.int64), want.view(np.int64)), name
    seconds = {name: [] for name in calls}
    for _ in range(5):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - start)
    return {"shape": shape, **{name: 2 * x.nbytes / sorted(s)[2] / 1e9 for name, s in seconds.items()}}


def main() -> None:
    torch.set_num_threads(2)
    tiles = tile_kernel(64, 4, 4, True)
    rng = np.random.default_rng(int(sys.argv[1]))
    rows = []
    while len(rows) < int(sys.argv[2]):
        shape = draw(rng)
        if shape[-1] < 300 or not cornerturn.plan(shape, "complex128").method.startswith("walk"):
            continue
        rows.append(measure(shape, rng, tiles))
        r = rows[-1]
        print(shape, " ".join(f"{k} {v:.1f}" for k, v in r.items() if k != "shape"),
              f"plan/tiles {r['plan'] / r['tiles']:.2f} plan/torch {r['plan'] / r['torch']:.2f}", flush=True)
    for peer in ("tiles", "torch"):
        q = [r["plan"] / r[peer] for r in rows]
        print(f"plan over {peer}: geometric mean {math.exp(sum(map(math.log, q)) / len(q)):.3f}, "
              f"{min(q):.2f}-{max(q):.2f}, behind by 2% or more on {sum(v < 0.98 for v in q)} of {len(q)}")
    with open(sys.argv[3], "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
