"""Probe: this host's vector tiles measured among the plain candidates only (as before 2026-12-01) against those
measured among plain and staged ones (host_tiles.CANDIDATES), on the CPU random suite's matrices of a seed and the
named CPU suite: every vector plan the two choices give, bit for bit against NumPy into a poisoned output, timed with
a single-threaded np.copyto of the same bytes in interleaved rounds (each method once a round, after an untimed
call). For 8-byte matrices that the rule of all the rows takes (planner.vector_variant), also that plan with the new
tiles' staging left out, and the staged tile instead of the rule.

    python3 scripts/cpu_staged_probe.py OUT.json SEED CASES [--named] [--rounds=5] [--mib=LO:HI]

With --mib, matrices drawn here instead of the random suite's: 1- to 8-byte elements, LO to HI MiB log-uniform, sides
log-uniform from 64 up, a quarter batched.
"""

import json
import math
import sys
import time

import numpy as np

from cornerturn.bench import suites
from cornerturn.cpu import host_tiles, planner
from cornerturn.problem import canonical

ROUNDS = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--rounds=")), "5"))
NAMED = "--named" in sys.argv
MIB = next((tuple(float(v) for v in a.split("=")[1].split(":")) for a in sys.argv if a.startswith("--mib=")), None)


def drawn(seed: int, count: int) -> list:
    """`count` matrices of MIB[0] to MIB[1] MiB (see --mib) as suite cases."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        itemsize = int(rng.choice([1, 2, 4, 8]))
        elements = int(math.exp(rng.uniform(math.log(MIB[0] * 2**20), math.log(MIB[1] * 2**20)))) // itemsize
        batch = int(math.exp(rng.uniform(0, math.log(64)))) if rng.random() < 0.25 else 1
        per = max(64 * 64, elements // batch)
        rows = int(math.exp(rng.uniform(math.log(64), math.log(per / 64))))
        shape = (batch, rows, per // rows) if batch > 1 else (rows, per // rows)
        cases.append(suites.Case(shape, {1: "uint8", 2: "int16", 4: "float32", 8: "float64"}[itemsize]))
    return cases


def measured(candidates) -> dict:
    """The host tile of each element size measured among `candidates` (not written to the host's file)."""
    out = {}
    for size in (1, 2, 4, 8):
        (rows, cols, staged), score = host_tiles.measure(size, candidates=candidates)
        plain = host_tiles.best_plain(score) if staged else None
        out[size, False] = host_tiles.HostTile((rows, cols), "measured now", staged, plain)
        print(f"{size}-byte elements: {host_tiles.label((rows, cols, staged))} of "
              + ", ".join(f"{host_tiles.label(t)} {v:.3f}" for t, v in score.items()), flush=True)
    return out


def variants(problem, tiles: dict[str, dict]) -> dict:
    """The vector plan that each set of host tiles gives (planner.vector_variant, STAGED_MIN_BYTES applied)."""
    found = {}
    for name, known in tiles.items():
        host_tiles._known.clear()
        host_tiles._known.update(known)
        found[name] = planner.vector_variant(problem, True)
    if found["staged"].staged and problem.itemsize in planner.FULL_ROWS_ITEMSIZES:
        full = found["plain"]
        if full.tile_cols == planner.FULL_ROWS_COLS:
            found["all rows"] = full
    host_tiles._known.clear()
    return found


def main() -> None:
    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    plain = tuple(c for c in host_tiles.CANDIDATES if not c[2])
    tiles = {"plain": measured(plain), "staged": measured(host_tiles.CANDIDATES)}
    drawn_cases = drawn(seed, count) if MIB else list(suites.random_cases(seed, count, "cpu"))
    cases = [c for c in [*(suites.suite("cpu") if NAMED else ()), *drawn_cases]
             if c.axes is None and c.itemsize in (1, 2, 4, 8)]
    rng = np.random.default_rng(seed)
    rows = []
    for case in cases:
        word = np.dtype(f"u{case.itemsize}")
        shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
        x = rng.integers(0, 2**63, size=shape, dtype=np.uint64).astype(word)
        problem = canonical(x.shape, x.strides, case.itemsize)
        if not planner.vectorizable(problem) and not problem.batch:
            continue
        try:
            found = variants(problem, tiles)
        except ValueError:
            continue
        if len({(v.tile, v.tile_cols, v.staged) for v in found.values()}) == 1:
            print(f"{case.name:28s} same plan: {found['plain'].name}", flush=True)
            continue
        out = np.empty((shape[0], shape[2], shape[1]), word)
        want = np.ascontiguousarray(x.transpose(0, 2, 1))
        kernels = {n: v.kernel() for n, v in found.items()}
        for n, k in kernels.items():
            out.fill(0xA5)
            k(x, out)
            if not np.array_equal(out, want):
                raise AssertionError(f"{case.name} {n}: wrong result")
        fns = {n: (lambda k=k, x=x, out=out: k(x, out)) for n, k in kernels.items()}
        copy_to = np.empty_like(x)
        fns["copy"] = lambda x=x, copy_to=copy_to: np.copyto(copy_to, x)
        times = {n: [] for n in fns}
        for _ in range(ROUNDS):
            for n, f in fns.items():
                f()
                start = time.perf_counter()
                f()
                times[n].append(time.perf_counter() - start)
        med = {n: float(np.median(v)) for n, v in times.items()}
        gbs = {n: 2 * x.nbytes / t / 1e9 for n, t in med.items()}
        row = {"case": case.name, "mib": round(x.nbytes / 2**20, 2), "plans": {n: v.name for n, v in found.items()},
               "gbs": {n: round(v, 2) for n, v in gbs.items()},
               "pct_of_copy": {n: round(100 * med["copy"] / t, 1) for n, t in med.items() if n != "copy"},
               "staged_over_plain": round(med["plain"] / med["staged"], 3)}
        rows.append(row)
        print(f"{case.name:28s} {row['mib']:7.2f} MiB {found['plain'].name:40s} {gbs['plain']:5.1f} -> "
              f"{found['staged'].name:44s} {gbs['staged']:5.1f} GB/s  x{row['staged_over_plain']:.2f}  "
              f"(copy {gbs['copy']:.1f}"
              + (f", all rows {gbs['all rows']:.1f}" if "all rows" in gbs else "") + ")", flush=True)
    ratios = [r["staged_over_plain"] for r in rows]
    if ratios:
        print(f"{len(ratios)} changed plans: x{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} in geometric "
              f"mean, {min(ratios):.2f}-{max(ratios):.2f}, {sum(r < 0.98 for r in ratios)} behind by more than 2%")
    with open(path, "w") as f:
        json.dump({"host": host_tiles.host_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/cpu_staged_probe.py " + " ".join(sys.argv[1:]),
                   "tiles": {n: {str(k[0]): [*v.tile, v.staged] for k, v in t.items()} for n, t in tiles.items()},
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
