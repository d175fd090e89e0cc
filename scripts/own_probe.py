"""Probe: every 32-byte sector of an output row written by one program (OWN of transpose_tiles and transpose_words),
against the plan as it is, on random matrices of the random suite's kind whose plan is the tile kernel with
one-word elements or the words kernel writing words, output rows at a pitch that is not a multiple of 32 bytes; a
device copy of the same bytes in interleaved rounds; each plan checked bit for bit against torch's transpose into
a poisoned output. Matrices drawn from SEED (cornerturn.bench.suites.random_cases), CASES of each element size of
1, 2, 4 and 8 bytes.

    python3 scripts/own_probe.py OUT.json SEED CASES
"""

import copy
import json
import math
import sys
import time

SIZES = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "bool": 1, "float16": 2, "bfloat16": 2,
         "int16": 2, "float32": 4, "int32": 4, "float64": 8, "int64": 8, "complex64": 8}


def cases(seed: int):
    from cornerturn.bench.suites import random_cases

    for draw in range(50):
        for c in random_cases(seed * 1000 + draw, 64, "cuda"):
            if c.dtype in SIZES:
                yield c.dtype, SIZES[c.dtype], c.shape if len(c.shape) == 3 else (1, *c.shape)


def owned(plan, on: bool = True):
    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        bare = copy.copy(launch)
        words = launch.kernel.fn.__name__ == "transpose_words"
        bare.constexprs = dict(launch.constexprs, OWN=(True if words else 32 // launch.word) if on else 0)
        bare._compiled = {}
        other.pieces.append((xo, oo, bare))
    return other


def affected(plan, size: int, shape) -> bool:
    if not plan.pieces or (shape[1] * size) % 32 == 0:
        return False
    launch = plan.pieces[0][2]
    ce, name = launch.constexprs, launch.kernel.fn.__name__
    if name == "transpose_words":
        return ce["OUT"] < 2 and ce["BLOCK_R"] * ce["E"] // 4 >= 8
    return name == "transpose_tiles" and ce.get("WORDS") == 1 and ce["BLOCK_R"] >= 32 // launch.word


def run_case(dtype, size, shape, planned, stream) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = shape[0] * shape[1] * shape[2] * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    fns = {}
    for label, p in (("plan", owned(planned, False)), ("own", owned(planned))):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
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
            "pct": pct, "speedup": pct["own"] / pct["plan"]}


def main() -> None:
    import torch

    from cornerturn import engine
    from cornerturn.problem import canonical

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    stream = torch.cuda.current_stream().cuda_stream
    rows, taken = [], {1: 0, 2: 0, 4: 0, 8: 0}
    for dtype, size, shape in cases(seed):
        if min(taken.values()) >= count:
            break
        if taken.get(size, count) >= count:
            continue
        strides = (shape[1] * shape[2] * size, shape[2] * size, size)
        planned = engine.choose(canonical(shape, strides, size), "cuda:0")
        if not affected(planned, size, shape):
            continue
        taken[size] += 1
        row = run_case(dtype, size, shape, planned, stream)
        torch.cuda.empty_cache()
        rows.append(row)
        print(f"{row['case']:36s} {row['plan']:22s} plan {row['pct']['plan']:6.2f} own {row['pct']['own']:6.2f} "
              f"x{row['speedup']:.3f}", flush=True)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/own_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f, indent=1)
    s = [r["speedup"] for r in rows]
    print(f"{len(s)} cases: x{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({min(s):.3f}-{max(s):.3f}), "
          f"{sum(v < 0.98 for v in s)} behind by more than 2%")


if __name__ == "__main__":
    main()
