"""Probe: the CPU runs kernel (permutations whose unit is a run contiguous on both sides) with its output streamed
(cpu.permute.STREAM_RUNS: aligned non-temporal stores) against plain stores and torch, on the torch-led runs cases
of seed 12291 and random permutations of the permute suite's kind drawn from SEED (16 MiB of output or more, runs
of whole 16-byte vectors); every result checked bit for bit against NumPy into a poisoned output; medians of 3 in
3 interleaved rounds, the middle round's kept.

    python3 scripts/cpu_runs_stream_probe.py OUT.json SEED CASES
"""

import json
import math
import sys
import time

import numpy as np

NAMED = [((8, 32, 4096, 128), "bfloat16", (0, 2, 1, 3)), ((354, 538, 7), "complex128", (1, 0, 2))]
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}


def median_time(f, n=3):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[n // 2]


def run_case(shape, dtype, axes, rng):
    """The case's row, or None where the runs kernel does not stream it."""
    import torch

    import cornerturn
    from cornerturn.cpu import permute
    from cornerturn.dtypes import itemsize_of

    size = itemsize_of(dtype)
    word = np.dtype(WORDS[size])
    x = rng.integers(0, 256, math.prod(shape) * size, dtype=np.uint8).view(word).reshape(shape)
    out = np.empty(tuple(shape[a] for a in axes), word)
    if out.nbytes < 16 << 20 or "runs of" not in str(cornerturn.plan(shape, word, axes=axes)):
        return None
    want = np.ascontiguousarray(np.permute_dims(x, axes))
    streamed, chosen = [], permute.streamed_runs_kernel
    permute.streamed_runs_kernel = lambda *a: streamed.append(a) or chosen(*a)
    try:
        for flag in (False, True):
            permute.STREAM_RUNS = flag
            out.view(np.uint8).fill(0xA5)
            cornerturn.permute_dims(x, axes, out=out)
            if not np.array_equal(out.view(np.uint8), want.view(np.uint8)):
                raise AssertionError(f"{dtype} {shape} {axes} streamed={flag}: wrong result")
    finally:
        permute.streamed_runs_kernel = chosen
    if not streamed:
        return None
    copy_to = np.empty_like(x)
    src, dst = torch.from_numpy(x).permute(*axes), torch.from_numpy(np.empty_like(out))

    def ours(flag):
        permute.STREAM_RUNS = flag
        return median_time(lambda: cornerturn.permute_dims(x, axes, out=out))

    times = {}
    for _ in range(3):
        times.setdefault("copy", []).append(median_time(lambda: np.copyto(copy_to, x)))
        times.setdefault("plain", []).append(ours(False))
        times.setdefault("streamed", []).append(ours(True))
        times.setdefault("torch", []).append(median_time(lambda: dst.copy_(src)))
    permute.STREAM_RUNS = True
    mid = {k: sorted(v)[1] for k, v in times.items()}
    pct = {k: round(100 * mid["copy"] / mid[k], 1) for k in ("plain", "streamed", "torch")}
    return {"case": f"{dtype} {'x'.join(map(str, shape))} {axes}", "kernel": list(streamed[0]), "pct": pct,
            "speedup": round(mid["plain"] / mid["streamed"], 3), "vs_torch": round(mid["torch"] / mid["streamed"], 3)}


def main() -> None:
    import torch

    from cornerturn.bench.suites import random_permutations

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    drawn = [(c.shape, c.dtype, c.axes) for d in range(40) for c in random_permutations(seed * 100 + d, 64, "cpu")]
    rows = []
    for shape, dtype, axes in NAMED + drawn:
        if len(rows) >= count:
            break
        row = run_case(shape, dtype, axes, rng)
        if row is None:
            continue
        rows.append(row)
        pct = row["pct"]
        print(f"{row['case']:48s} plain {pct['plain']:6.1f} streamed {pct['streamed']:6.1f} torch {pct['torch']:6.1f} "
              f"x{row['speedup']:.3f} (torch x{row['vs_torch']:.3f})", flush=True)
        with open(path, "w") as f:
            json.dump({"device": "cpu", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/cpu_runs_stream_probe.py " + " ".join(sys.argv[1:]),
                       "rows": rows}, f, indent=1)
    s = [r["speedup"] for r in rows]
    print(f"{len(s)} cases: x{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({min(s):.3f}-{max(s):.3f}); torch ahead "
          f"of streamed on {sum(r['vs_torch'] < 1 for r in rows)}")


if __name__ == "__main__":
    main()
