"""Probe: permutations whose innermost output axis is short (2-7 elements), the table kernel they took before
(cpu/permute.py at commit 6deadda) against permute-plane with its short axis, and torch.

    git show 6deadda:src/cornerturn/cpu/permute.py | sed 's/from \\.\\./from cornerturn./' > /tmp/permute_old.py
    python3 scripts/cpu_short_probe.py SEEDS COUNT OUT.json   (SEEDS comma-separated; COUNT cases at most)

Cases are drawn as `--suite permute --seed S` draws its random ones (CPU sizes), kept where the plan has a short axis;
each kernel's output is checked bit for bit into a poisoned buffer, then all three are timed interleaved (median of 5).
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import torch

import cornerturn
from cornerturn.arrays import view_of
from cornerturn.bench import suites
from cornerturn.bench.host import numpy_dtype
from cornerturn.cpu import permute as new_module

sys.path.insert(0, "/tmp")
import permute_old as old_module  # noqa: E402


def measure(case):
    p = cornerturn.plan(case.shape, case.dtype, axes=case.axes)
    perm = p._backend.perm
    old, new = old_module.plan(perm), new_module.plan(perm)
    assert old.name == "permute-tiles", old.name
    dt = numpy_dtype(case.dtype)
    x = np.random.default_rng(1).integers(0, 256, math.prod(case.shape) * dt.itemsize, dtype=np.uint8)
    x = x.view(dt).reshape(case.shape)
    ref = np.ascontiguousarray(np.transpose(x, case.axes))
    out = np.empty_like(ref)
    xv, ov = view_of(x), view_of(out)
    kind = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}[dt.itemsize]
    src = torch.from_numpy(x.view(kind)).permute(case.axes)
    dst = torch.from_numpy(np.empty_like(ref).view(kind))
    fns = {"tiles": lambda: old_module.run(old, xv, ov), "short": lambda: new_module.run(new, xv, ov),
           "torch": lambda: dst.copy_(src)}
    for name in ("tiles", "short"):
        out.view(np.uint8)[...] = 0xA5
        fns[name]()
        assert out.tobytes() == ref.tobytes(), name
    times = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(5):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    gbps = {k: 2 * x.nbytes / 1e9 / float(np.median(v)) for k, v in times.items()}
    print(f"{case.name:44s} short {new.sides.short.extent} a {new.sides.a.extent}: "
          + " ".join(f"{k} {v:.1f}" for k, v in gbps.items()), flush=True)
    return {"case": case.name, "short": new.sides.short.extent, "a": new.sides.a.extent, "gbps": gbps}


def main():
    seeds, limit, path = [int(s) for s in sys.argv[1].split(",")], int(sys.argv[2]), sys.argv[3]
    rows = []
    for seed in seeds:
        for case in suites.random_permutations(seed, 50, "cpu"):
            p = cornerturn.plan(case.shape, case.dtype, axes=case.axes)
            if len(rows) < limit and p.method == "permute-plane" and p._backend.sides.short is not None:
                rows.append(measure(case))
    for name in ("tiles", "short"):
        ratios = [r["gbps"][name] / r["gbps"]["torch"] for r in rows]
        print(f"{name}: x torch geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}, "
              f"min {min(ratios):.2f}, behind on {sum(r < 1 for r in ratios)} of {len(ratios)}")
    with open(path, "w") as f:
        json.dump({"seeds": seeds, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "machine": "2-core AMD EPYC", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
