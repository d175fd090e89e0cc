"""Probe: the CPU runs kernel (units contiguous on both sides, each run copied by one memcpy call) against the same
kernel with the run's length a compile-time constant (a loop, or one memcpy of constant length), so that each run is a
few inline moves, on random permutations whose runs hold 16 to 512 bytes; torch's copy of the permuted view and
NumPy's copy of the same bytes in the same interleaved rounds; every result bit-exact into a poisoned output.

    python3 scripts/cpu_runs_inline_probe.py SEED CASES OUT.json [--runs=LO,HI] [--rule | --tiles=BxR,...]
"""

from __future__ import annotations

import functools
import json
import math
import sys
import time

import numba
import numpy as np
from numba import prange, types, uint64
from numba.core import cgutils
from numba.extending import intrinsic

import cornerturn
from cornerturn.cpu import permute as cpu_permute
from cornerturn.timing import time_host_rounds

RULE = "--rule" in sys.argv  # the planner's plan against one memcpy a run
TILES = [tuple(int(v) for v in t.split("x")) for t in next(
    (a.split("=")[1].split(",") for a in sys.argv if a.startswith("--tiles=")), [])]  # b's x r's a task
RUNS = tuple(int(v) for v in next((a.split("=")[1] for a in sys.argv if a.startswith("--runs=")), "16,512").split(","))
DTYPES = ["int8", "float16", "float32", "float64", "complex128"]


@functools.cache
def runs_inline(run_words: int):
    """cpu.permute._runs for runs of `run_words` words (pieces 1): each run a loop of constant length."""
    R = run_words

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, run, in_b, out_b, in_r, out_r, n1, tile, pieces):
        nb = in_b.size
        tiles_b = (nb + tile - 1) // tile
        tiles_r = (n1 + tile - 1) // tile
        per = tiles_b * tiles_r
        for t in prange(in_r.size // n1 * per):
            o = t // per
            u = t - o * per
            ib = u // tiles_r
            r0 = o * n1 + (u - ib * tiles_r) * tile
            r1 = min(r0 + tile, o * n1 + n1)
            for b in range(ib * tile, min(ib * tile + tile, nb)):
                src_b = uint64(in_b[b])
                dst_b = uint64(out_b[b])
                for r in range(r0, r1):
                    s = uint64(in_r[r]) + src_b
                    d = uint64(out_r[r]) + dst_b
                    for k in range(R):
                        out[d + uint64(k)] = x[s + uint64(k)]

    return kernel


@functools.cache
def runs_const_memcpy(run_words: int):
    """cpu.permute._runs for runs of `run_words` words (pieces 1): each run one memcpy of constant length, which the
    compiler expands into vector moves (a memcpy's operands do not overlap, so loads may pass stores)."""
    R = run_words

    @intrinsic
    def copy_const(typingctx, x, src, out, dst):
        if not isinstance(x, types.Array) or x.dtype != out.dtype:
            return None

        def codegen(context, builder, signature, args):
            x_val, src, out_val, dst = args
            size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
            base_x = context.make_array(signature.args[0])(context, builder, x_val).data
            base_out = context.make_array(signature.args[2])(context, builder, out_val).data
            count = context.get_constant(types.uint64, R)
            cgutils.raw_memcpy(builder, builder.gep(base_out, [dst]), builder.gep(base_x, [src]), count, size)
            return context.get_dummy_value()

        return types.void(x, src, out, dst), codegen

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, run, in_b, out_b, in_r, out_r, n1, tile, pieces):
        nb = in_b.size
        tiles_b = (nb + tile - 1) // tile
        tiles_r = (n1 + tile - 1) // tile
        per = tiles_b * tiles_r
        for t in prange(in_r.size // n1 * per):
            o = t // per
            u = t - o * per
            ib = u // tiles_r
            r0 = o * n1 + (u - ib * tiles_r) * tile
            r1 = min(r0 + tile, o * n1 + n1)
            for b in range(ib * tile, min(ib * tile + tile, nb)):
                src_b = uint64(in_b[b])
                dst_b = uint64(out_b[b])
                for r in range(r0, r1):
                    copy_const(x, uint64(in_r[r]) + src_b, out, uint64(out_r[r]) + dst_b)

    return kernel


@functools.cache
def runs_tiles(tile_b: int, tile_r: int):
    """cpu.permute's runs kernel (one memcpy a run, pieces 1) with tasks of tile_b b's by tile_r r's."""
    copy = cpu_permute._copy_run(0)

    @numba.njit(parallel=True, cache=True, boundscheck=False, nogil=True)
    def kernel(x, out, run, in_b, out_b, in_r, out_r, n1, tile, pieces):
        nb = in_b.size
        tiles_b = (nb + tile_b - 1) // tile_b
        tiles_r = (n1 + tile_r - 1) // tile_r
        per = tiles_b * tiles_r
        count = uint64(run)
        for t in prange(in_r.size // n1 * per):
            o = t // per
            u = t - o * per
            ib = u // tiles_r
            r0 = o * n1 + (u - ib * tiles_r) * tile_r
            r1 = min(r0 + tile_r, o * n1 + n1)
            for b in range(ib * tile_b, min(ib * tile_b + tile_b, nb)):
                src_b = uint64(in_b[b])
                dst_b = uint64(out_b[b])
                for r in range(r0, r1):
                    copy(x, uint64(in_r[r]) + src_b, out, uint64(out_r[r]) + dst_b, count)

    return kernel


def draw(rng):
    """A random permutation whose innermost axis stays innermost with a run of RUNS bytes; 32-256 MiB."""
    dtype = str(rng.choice(DTYPES))
    size = np.dtype(dtype).itemsize
    run = int(math.exp(rng.uniform(math.log(RUNS[0]), math.log(RUNS[1] + 1))))
    inner = max(1, run // size)
    rank = int(rng.integers(2, 5))
    total = math.exp(rng.uniform(math.log(32 << 20), math.log(256 << 20))) / (inner * size)
    weights = rng.uniform(0.2, 1.0, rank)
    extents = [max(2, int(round(total ** (w / weights.sum())))) for w in weights]
    while True:
        axes = list(rng.permutation(rank))
        if axes != sorted(axes):
            break
    shape = (*extents, inner)
    return dtype, shape, (*(int(a) for a in axes), rank)


def measure(dtype: str, shape: tuple[int, ...], axes: tuple[int, ...], plan, run_words: int, rng) -> dict:
    """Each variant bit-exact into a poisoned output, then timed with torch and the copy in interleaved rounds.
    With --rule the variants are the plan (runs of up to RUN_INLINE_BYTES in copies of constant length) and the plan
    with RUN_INLINE_BYTES 0 (one memcpy call a run); else this probe's own kernels against the plan's memcpy."""
    import torch

    x = rng.integers(0, 256, int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)
    x = x.reshape(shape)
    want = np.ascontiguousarray(np.transpose(x, axes))
    out, copied = np.empty_like(want), np.empty_like(x)
    words = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}[x.itemsize]
    tx = torch.from_numpy(x.view(np.uint8).reshape(-1)).view(words).view(shape)
    tout = torch.empty(want.shape, dtype=tx.dtype)
    inline_bytes, factory = cpu_permute.RUN_INLINE_BYTES, cpu_permute.runs_kernel

    def ours(variant):
        cpu_permute.RUN_INLINE_BYTES = 0 if variant == "memcpy" else inline_bytes
        if variant in ("inline", "const"):
            cpu_permute.runs_kernel = lambda words=0: (runs_inline if variant == "inline" else runs_const_memcpy)(
                run_words)
        elif variant.startswith("t"):
            cpu_permute.runs_kernel = lambda words=0: runs_tiles(*(int(v) for v in variant[1:].split("x")))
        try:
            plan.execute(x, out)
        finally:
            cpu_permute.RUN_INLINE_BYTES, cpu_permute.runs_kernel = inline_bytes, factory

    variants = ("memcpy", "plan") if RULE else ("memcpy", *(f"t{b}x{r}" for b, r in TILES)) if TILES else (
        "memcpy", "inline", "const")
    exact = {}
    for name in variants:
        out.view(np.uint8)[...] = 0xA5
        ours(name)
        exact[name] = bool(np.array_equal(out.view(np.uint8), want.view(np.uint8)))
    fns = {"copy": lambda: np.copyto(copied, x), "torch": lambda: tout.copy_(tx.permute(axes))}
    fns.update({name: (lambda name=name: ours(name)) for name in variants})
    t = time_host_rounds(fns, repeats=7)
    pct = {k: round(100 * t["copy"].median / v.median, 1) for k, v in t.items() if k != "copy"}
    row = {"case": f"{dtype} {'x'.join(map(str, shape))} {axes}", "run_bytes": run_words * plan._backend.sides.word,
           "exact": exact, "pct": pct}
    row.update({f"{name}_x": round(t["memcpy"].median / t[name].median, 3) for name in variants[1:]})
    return row


def main() -> None:
    seed, cases, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < cases:
        dtype, shape, axes = draw(rng)
        plan = cornerturn.plan(shape, dtype, axes=axes, device="cpu")
        if plan.method != "runs":
            continue
        sides = plan._backend.sides
        run_words = sides.a[0].extent
        if not RUNS[0] <= run_words * sides.word <= RUNS[1]:
            continue
        row = measure(dtype, shape, axes, plan, run_words, rng)
        rows.append(row)
        ratios = " ".join(f"{k} x{v:.2f}" for k, v in row.items() if k.endswith("_x"))
        print(f"{row['case']:48s} run {row['run_bytes']:4d} B {row['pct']} {ratios} "
              f"{'' if all(row['exact'].values()) else 'NOT EXACT'}", flush=True)
        with open(path, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": seed,
                       "threads": numba.get_num_threads(), "command": " ".join(sys.argv), "rows": rows}, f, indent=1)
    for key in [k for k in rows[0] if k.endswith("_x")]:
        ratios = [r[key] for r in rows]
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{key[:-2]} / memcpy, geometric mean {mean:.3f} ({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
