"""Probe: CPU transposes moved in the output's order, each output row read down an input column with one strided
load (the loop torch's TensorIterator runs), the output's rows shared out in one contiguous part a thread, against
the planner's plan and torch, on random shapes; every result checked bit for bit, methods timed in interleaved rounds.

    python3 scripts/cpu_output_order_probe.py SEED CASES OUT.json [--sizes=4,8,16] [--rows=16:2048]
"""

import json
import math
import sys
import time

import numba
import numpy as np
from numba import prange, uint64

import cornerturn
from cornerturn.dtypes import host_word_dtype


@numba.njit(cache=True, boundscheck=False, nogil=True)
def _rows_down_columns(xf, of, o, s, rows, count, x_row, one):
    """`count` output rows of `rows` elements from element o of `of`, output row k read down input column s + k of
    `xf` (rows x_row elements apart): flat views and unsigned offsets (no wraparound code), and `one` (1, known only
    at run time) as the step, so that LLVM keeps the inner loop one strided load (a loop whose trip count it cannot
    compute is not unrolled; unrolled by 8, the same loop in C ran at 0.65x)."""
    for _ in range(count):
        end = o + rows
        i = s
        while o < end:
            of[o] = xf[i]
            o += one
            i += x_row
        s += one


@numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
def _output_order(xf, of, batch, rows, cols, x_batch, x_row, one):
    """Each thread one contiguous part of all the output rows (matrix after matrix); in tasks of 64 output rows
    (prange over many tasks) the same loops ran at half torch's speed."""
    total = batch * cols
    n = numba.get_num_threads()
    for w in prange(n):
        k = total * w // n
        hi = total * (w + 1) // n
        while k < hi:
            b = k // cols
            j = k - b * cols
            count = min(hi - k, cols - j)
            _rows_down_columns(xf, of, uint64(b * rows * cols + j * rows), uint64(b * x_batch + j), uint64(rows),
                               count, uint64(x_row), uint64(one))
            k += count


def output_order(x, out):
    batch, rows, cols = x.shape
    _output_order(x.reshape(-1), out.reshape(-1), batch, rows, cols, rows * cols, cols, 1)


def draw(rng, sizes, rows_range):
    size = int(rng.choice(sizes))
    rows = int(math.exp(rng.uniform(*map(math.log, rows_range))))
    nbytes = math.exp(rng.uniform(math.log(16 << 20), math.log(256 << 20)))
    batch = int(math.exp(rng.uniform(0, math.log(512)))) if rng.random() < 0.5 else 1
    cols = max(16, int(nbytes / (rows * size * batch)))
    return size, (batch, rows, cols)


def timed(fs: dict, rounds: int = 9) -> dict:
    samples = {n: [] for n in fs}
    for f in fs.values():
        f()
    for _ in range(rounds):
        for n, f in fs.items():
            t = time.perf_counter()
            f()
            samples[n].append(time.perf_counter() - t)
    return {n: float(np.median(v)) for n, v in samples.items()}


def one_case(rng, size, shape) -> dict:
    import torch

    word = host_word_dtype(size)
    count = math.prod(shape)
    x = rng.integers(0, 2**63, size=(count * size + 7) // 8, dtype=np.uint64)
    x = x.view(np.uint8)[: count * size].view(word).reshape(shape)
    out = np.empty((shape[0], shape[2], shape[1]), word)
    want = np.ascontiguousarray(x.swapaxes(1, 2))
    plan = cornerturn.plan(x.shape, x.dtype)
    as_int = {2: np.int16, 4: np.int32, 8: np.int64, 16: np.int64}[size]
    tx, to = torch.from_numpy(x.view(as_int)), torch.from_numpy(out.view(as_int))
    if size == 16:
        tx, to = tx.view(*shape, 2), to.view(shape[0], shape[2], shape[1], 2)
    copy_to = np.empty_like(x)
    fs = {"plan": lambda: plan.execute(x, out), "output_order": lambda: output_order(x, out),
          "torch": lambda: to.copy_(tx.transpose(1, 2))}
    for name, f in fs.items():
        out.view(np.uint8)[...] = 0xA5
        f()
        if not np.array_equal(out.view(np.uint8), want.view(np.uint8)):
            raise AssertionError(f"{shape} {name}: wrong result")
    fs["copy"] = lambda: np.copyto(copy_to, x)
    t = timed(fs, int(__import__("os").environ.get("ROUNDS", "9")))
    return {"shape": shape, "itemsize": size, "method": plan.method, **{k: round(v * 1e3, 3) for k, v in t.items()},
            "gain": round(t["plan"] / t["output_order"], 3), "torch_gain": round(t["plan"] / t["torch"], 3)}


def main() -> None:
    import torch

    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    opts = dict(a.lstrip("-").split("=") for a in sys.argv[4:])
    sizes = [int(s) for s in opts.get("sizes", "4,8,16").split(",")]
    rows_range = tuple(int(v) for v in opts.get("rows", "16:2048").split(":"))
    torch.set_num_threads(numba.get_num_threads())
    rng = np.random.default_rng(seed)
    found = []
    only = opts.get("only")
    while len(found) < cases:
        size, shape = draw(rng, sizes, rows_range)
        if only and not cornerturn.plan(shape, host_word_dtype(size)).method.startswith(only):
            continue
        row = one_case(rng, size, shape)
        found.append(row)
        print(f"{size:2d} B {str(shape):22s} {row['method']:36s} plan {row['plan']:8.2f} oo {row['output_order']:8.2f} "
              f"torch {row['torch']:8.2f} ms  oo/plan {row['gain']:.2f} torch/plan {row['torch_gain']:.2f}", flush=True)
    gains = [r["gain"] for r in found]
    print(f"geomean output order / plan {math.exp(np.mean(np.log(gains))):.3f} over {len(gains)}")
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": " ".join(sys.argv),
                   "threads": numba.get_num_threads(), "rows": found}, f, indent=1)


if __name__ == "__main__":
    main()
