# ruff: noqa: B023, E501, SIM115
"""Probe: permute-plane with vector blocks against element by element (plane_run forced to 0), on the random
permutations of the CPU permute suite that take vector blocks, each checked bit for bit, timed in interleaved rounds
with np.copyto of the same bytes and torch's permute(...).contiguous() (median of 5).

    python3 scripts/cpu_plane_vector_probe.py SEED[,SEED...] COUNT OUT.json [named]
"""

import json
import sys
import time

import numpy as np
import torch

import cornerturn
from cornerturn.bench.suites import PERMUTE, SUITES, random_permutations
from cornerturn.cpu import permute as CP
from cornerturn.cpu.vectors import block_side
from cornerturn.problem import canonical_permutation

torch.set_num_threads(2)
seeds = [int(s) for s in sys.argv[1].split(",")]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 16
orig = CP.plane_run
rows = []
cases = [c for s in seeds for c in random_permutations(s, count, "cpu")]
if "named" in sys.argv:
    cases = list(SUITES[PERMUTE]) + cases
for case in cases:
    dt = (
        np.dtype(case.dtype)
        if case.dtype not in ("bfloat16", "float8_e4m3fn")
        else np.dtype({"bfloat16": "u2", "float8_e4m3fn": "u1"}[case.dtype])
    )
    shape, axes = case.shape, case.axes
    strides = tuple(dt.itemsize * int(v) for v in np.cumprod((1,) + shape[::-1][:-1])[::-1])
    perm = canonical_permutation(shape, strides, dt.itemsize, axes)
    if type(perm).__name__ != "Permutation":
        continue
    p = CP.plan(perm)
    if p.name != "permute-plane":
        continue
    run = orig(p.sides)
    if not run or run < block_side(p.sides.word):
        continue
    rng = np.random.default_rng(1)
    x = rng.integers(0, 256, size=case.nbytes, dtype=np.uint8).view(dt).reshape(shape)
    want = np.ascontiguousarray(np.transpose(x, axes))
    out = np.empty_like(want)
    src = np.empty_like(x)
    pl = cornerturn.plan(shape, dt, axes=axes)
    tx = torch.from_numpy(x.view({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[dt.itemsize]))

    def new():
        CP.plane_run = orig
        pl.execute(x, out)

    def old():
        CP.plane_run = lambda s: 0
        pl.execute(x, out)

    def cp():
        np.copyto(src, x)

    def th():
        tx.permute(axes).contiguous()

    fns = {"new": new, "old": old, "copy": cp, "torch": th}
    for k in ("new", "old"):
        out.view(np.uint8).fill(0xAB)
        fns[k]()
        assert out.tobytes() == want.tobytes(), (case.name, k)
    ts = {k: [] for k in fns}
    for _ in range(5):
        for k, f in fns.items():
            f()
            t = time.perf_counter()
            f()
            ts[k].append(time.perf_counter() - t)
    CP.plane_run = orig
    med = {k: float(np.median(v)) for k, v in ts.items()}
    r = dict(case=case.name, word=p.sides.word, a=p.sides.a.extent, run=run, **med)
    rows.append(r)
    print(
        f"{case.name:48s} w{p.sides.word} a={p.sides.a.extent:5d} run={run:6d}  new {med['copy'] / med['new'] * 100:4.0f}%  old {med['copy'] / med['old'] * 100:4.0f}%  new/old x{med['old'] / med['new']:.2f}  torch/new x{med['torch'] / med['new']:.2f}",
        flush=True,
    )
json.dump(rows, open(sys.argv[3], "w"), indent=1)
g = np.exp(np.mean([np.log(r["old"] / r["new"]) for r in rows]))
print(f"{len(rows)} cases, new/old geomean x{g:.2f}, min x{min(r['old'] / r['new'] for r in rows):.2f}")
