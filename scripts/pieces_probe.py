"""Probe: 1- and 2-byte matrices of the random suite's kind whose plan is the words kernel writing output rows that
start at whole words but not at 32 bytes (OUT 0), the plan with each output row's pieces placed from its own sector
boundary (engine.plan.PIECES) against the plan as it is, with a device copy of the same bytes in interleaved
rounds; every plan checked bit for bit against torch's transpose into a poisoned output. Matrices drawn from SEED
(cornerturn.bench.suites.random_cases), 1- and 2-byte ones, their rows rounded to whole words of output where
--round.

    python3 scripts/pieces_probe.py OUT.json SEED CASES [--round]
"""

import json
import sys
import time

ROUND = "--round" in sys.argv


def cases(seed: int, count: int):
    from cornerturn.bench.suites import random_cases

    found, draw = [], 0
    while len(found) < count and draw < 50:
        for c in random_cases(seed * 1000 + draw, 64, "cuda"):
            size = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "bool": 1, "float16": 2,
                    "bfloat16": 2, "int16": 2}.get(c.dtype)
            if size is None:
                continue
            shape = c.shape if len(c.shape) == 3 else (1, *c.shape)
            if ROUND:
                pack = 4 // size
                rows = max(pack, shape[1] // pack * pack)
                shape = (shape[0], rows + (pack * 4 if rows % (16 // size) == 0 else 0), shape[2])
            found.append((c.dtype, size, shape))
        draw += 1
    return found


def with_pieces(problem, planned):
    from cornerturn.engine import plan as engine_plan

    engine_plan.PIECES = True
    try:
        return engine_plan.build(problem, 4, planned.config)
    finally:
        engine_plan.PIECES = False


def affected(plan) -> bool:
    return bool(plan.pieces) and plan.pieces[0][2].constexprs.get("PIECES", False)


def run_case(dtype, size, shape, planned, pieces, stream) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = shape[0] * shape[1] * shape[2] * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    fns = {}
    for label, p in (("pieces", pieces), ("plan", planned)):
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
            "out_align": planned.pieces[0][2].constexprs["OUT_ALIGN"], "pct": pct,
            "speedup": pct["pieces"] / pct["plan"]}


def main() -> None:
    import math

    import torch

    from cornerturn import engine
    from cornerturn.problem import canonical

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for dtype, size, shape in cases(seed, 400):
        if len(rows) >= count:
            break
        strides = (shape[1] * shape[2] * size, shape[2] * size, size)
        problem = canonical(shape, strides, size)
        planned = engine.choose(problem, "cuda:0")
        if len(planned.pieces) != 1:
            continue
        pieces = with_pieces(problem, planned)
        if not affected(pieces):
            continue
        row = run_case(dtype, size, shape, planned, pieces, stream)
        torch.cuda.empty_cache()
        rows.append(row)
        print(f"{row['case']:36s} {row['plan']:22s} align {row['out_align']} pieces {row['pct']['pieces']:6.2f} "
              f"plan {row['pct']['plan']:6.2f} x{row['speedup']:.3f}", flush=True)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/pieces_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)
    s = [r["speedup"] for r in rows]
    print(f"{len(s)} cases: x{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({min(s):.3f}-{max(s):.3f}), "
          f"{sum(v < 0.98 for v in s)} behind by more than 2%")


if __name__ == "__main__":
    main()
