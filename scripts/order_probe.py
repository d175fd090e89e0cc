"""Probe: does a sector that two programs write cost less when the two run far apart in time, or when one program
writes both? Part A, a synthetic copy: a contiguous array written as row pieces at a pitch (programs of 128 rows x L
words), its programs ordered with the pieces of the same rows consecutive (the engine's order), the row blocks
consecutive, the even pieces first and the odd ones after, or K consecutive pieces a program one after another.
Part B, the engine: 1- and 2-byte matrices whose output rows do not start at 32 bytes, the plan against the same plan
with its tiles taken along rows of tiles first (band 1) and in bands of 2 and 8 tile rows. Every result checked bit
for bit, timed in interleaved rounds with a device copy of the same bytes.

    python3 scripts/order_probe.py OUT.json SEED CASES [--bands=B,...] [--banded] [--no-synthetic]

--bands: the band sizes of part B (tile rows; "columns" for whole columns; by default 1,2,8,columns); a size that
ends in K is the input bytes of a band's column in KiB (the plan's rule, plan.band_of, with that for BAND_BYTES).
--banded: only matrices whose plan takes its tiles in bands; any element size.
"""

import copy
import json
import math
import sys
import time

import triton
import triton.language as tl


@triton.jit
def pieces_copy(src, dst, NI, NJ, W, P, ORDER: tl.constexpr, K: tl.constexpr, L: tl.constexpr,
                ROWS: tl.constexpr):
    pid = tl.program_id(0)
    per = NJ // K
    if ORDER == 0:  # the pieces of the same rows consecutive, as the engine takes its tiles
        pi = pid // per
        pj = pid - pi * per
    elif ORDER == 1:  # the row blocks consecutive
        pj = pid // NI
        pi = pid - pj * NI
    else:  # the even pieces of every row block first, then the odd ones
        h = per // 2
        second = pid >= NI * h
        q = tl.where(second, pid - NI * h, pid)
        pi = q // h
        pj = 2 * (q - pi * h) + second.to(tl.int32)
    rows = pi * ROWS + tl.arange(0, ROWS)[:, None]
    for k in tl.static_range(K):
        cols = (pj * K + k) * L + tl.arange(0, L)[None, :]
        v = tl.load(src + rows.to(tl.int64) * W + cols)
        tl.store(dst + rows.to(tl.int64) * P + cols, v)


def synthetic(rows_out: list) -> None:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    m, w = 16384, 4096  # 256 MiB of 4-byte words
    src = torch.randint(-2**31, 2**31 - 1, (m * w,), dtype=torch.int32, device="cuda")
    copy_to = torch.empty_like(src)
    for pitch in (4096, 4097, 4100, 4104):
        dst = torch.empty(m * pitch, dtype=torch.int32, device="cuda")
        want = torch.full((m, pitch), 0x5A5A5A5A, dtype=torch.int32, device="cuda")
        want[:, :w] = src.view(m, w)
        fns = {"copy": lambda: copy_to.copy_(src)}
        for length in (32, 64):
            nj = w // length
            for order, k in ((0, 1), (1, 1), (2, 1), (0, 2), (0, 4), (0, 8)):
                grid = (m // 128) * (nj // k)

                def call(order=order, k=k, length=length, nj=nj, grid=grid, dst=dst, pitch=pitch):
                    pieces_copy[(grid,)](src, dst, m // 128, nj, w, pitch, ORDER=order, K=k, L=length, ROWS=128,
                                         num_warps=4)

                dst.fill_(0x5A5A5A5A)
                call()
                torch.cuda.synchronize()
                if not torch.equal(dst.view(m, pitch), want):
                    raise AssertionError(f"pitch {pitch} L {length} order {order} K {k}: wrong result")
                fns[f"L{length}-o{order}-k{k}"] = call
        t = time_cuda_rounds(fns, repeats=7)
        pct = {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}
        rows_out.append({"pitch_bytes": 4 * pitch, "pct": pct})
        print(f"pitch {4 * pitch} B: " + " ".join(f"{n} {v}" for n, v in pct.items()), flush=True)
        del dst, want
        torch.cuda.empty_cache()


OPTIONS = dict(a.split("=", 1) if "=" in a else (a, "") for a in sys.argv[4:])
BANDS = OPTIONS.get("--bands", "1,2,8,columns").split(",")
BANDED = "--banded" in OPTIONS
SIZES = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "bool": 1, "float16": 2, "bfloat16": 2,
         "int16": 2, **({"float32": 4, "int32": 4, "float64": 8, "int64": 8, "complex64": 8, "complex128": 16}
                        if BANDED else {})}
FIXED = [("uint8", 1, (1, 16388, 16384)), ("uint8", 1, (1, 16389, 16387)), ("int16", 1, (1, 8194, 16384))]


def cases(seed: int):
    from cornerturn.bench.suites import random_cases

    yield from ((d, SIZES[d], s) for d, _, s in FIXED)
    for draw in range(50):
        for c in random_cases(seed * 1000 + draw, 64, "cuda"):
            size = SIZES.get(c.dtype)
            if size is not None:
                yield c.dtype, size, c.shape if len(c.shape) == 3 else (1, *c.shape)


def banded(plan, band: int):
    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        bare = copy.copy(launch)
        names = list(launch.named_ints())
        ints = list(launch.ints)
        ints[names.index("band")] = band
        bare.ints = tuple(ints)
        bare._compiled = {}
        other.pieces.append((xo, oo, bare))
    return other


def band_size(label: str, launch) -> int:
    """Tile rows a band of `label` holds: a number, "columns", or KiB of input a band's column reads (from the plan's
    band, which plan.band_of sized for BAND_BYTES)."""
    from cornerturn.engine.plan import BAND_BYTES

    ints = launch.named_ints()
    if label == "columns":
        return ints["tiles_r"]
    if label.endswith("K"):
        return max(1, min(ints["tiles_r"], ints["band"] * (int(label[:-1]) << 10) // BAND_BYTES))
    return min(int(label), ints["tiles_r"])


def engine_case(dtype, size, shape, planned, stream) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = shape[0] * shape[1] * shape[2] * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    launch = planned.pieces[0][2]
    tiles_r = launch.named_ints()["tiles_r"]
    fns = {}
    for label in ("plan", *BANDS):
        p = planned if label == "plan" else banded(planned, band_size(label, launch))

        def call(p=p):
            for xo, oo, lau in p.pieces:
                lau.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{dtype} {shape} {label}: wrong result")
        fns[label] = call
    copy_to = torch.empty_like(x)
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    pct = {n: round(100 * t["copy"].median / v.median, 2) for n, v in t.items() if n != "copy"}
    return {"case": f"{dtype} {shape[0]} x ({shape[1]}x{shape[2]})", "shape": list(shape), "plan": planned.config.name,
            "band": launch.named_ints()["band"], "tiles_r": tiles_r, "tiles_c": launch.named_ints()["tiles_c"],
            "pct": pct}


def main() -> None:
    import torch

    from cornerturn import engine
    from cornerturn.problem import canonical

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    result = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "command": "python3 scripts/order_probe.py " + " ".join(sys.argv[1:]), "synthetic": [], "engine": []}

    def save():
        with open(path, "w") as f:
            json.dump(result, f, indent=1)

    if "--no-synthetic" not in OPTIONS:
        synthetic(result["synthetic"])
        save()
    stream = torch.cuda.current_stream().cuda_stream
    for dtype, size, shape in cases(seed):
        if len(result["engine"]) >= count:
            break
        if shape[1] * size % 32 == 0 and not BANDED:  # output rows at whole sectors share none
            continue
        strides = (shape[1] * shape[2] * size, shape[2] * size, size)
        planned = engine.choose(canonical(shape, strides, size), "cuda:0")
        if len(planned.pieces) != 1 or "band" not in planned.pieces[0][2].named_ints():
            continue
        ints = planned.pieces[0][2].named_ints()
        if BANDED and ints["band"] >= ints["tiles_r"]:
            continue
        row = engine_case(dtype, size, shape, planned, stream)
        torch.cuda.empty_cache()
        result["engine"].append(row)
        print(f"{row['case']:36s} {row['plan']:22s} tiles {row['tiles_r']}x{row['tiles_c']} band {row['band']} "
              + " ".join(f"{n} {v:6.2f}" for n, v in row["pct"].items()), flush=True)
        save()
    for label in BANDS:
        s = [r["pct"][label] / r["pct"]["plan"] for r in result["engine"]]
        if s:
            print(f"{label}: x{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({min(s):.3f}-{max(s):.3f}) over {len(s)}")


if __name__ == "__main__":
    main()
