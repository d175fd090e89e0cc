"""Probe: words tiles of 512 and 1,024 rows (output row pieces of 512 B to 2 KiB) against the plan, on 1- and
2-byte matrices of the random suite's kind drawn from SEED whose plan is the words kernel; every plan checked bit
for bit against torch's transpose into a poisoned output, timed with a device copy of the same bytes in
interleaved rounds. Writes of row pieces that do not start at 32 bytes cost a partial sector at each end (a
synthetic kernel writing 256-byte pieces at a pitch of 16,388 bytes ran at 73% of the copy, 512-byte ones 86%,
1 KiB 93%, aligned ones 96%; H200, 2026-12-02).

    python3 scripts/long_pieces_probe.py OUT.json SEED CASES
"""

import copy
import json
import math
import sys
import time

from cornerturn.engine.configs import WordsConfig

CONFIGS = [WordsConfig(512, 16, 8), WordsConfig(512, 16, 4), WordsConfig(512, 32, 8), WordsConfig(1024, 8, 8),
           WordsConfig(1024, 16, 8), WordsConfig(512, 8, 4)]
SIZES = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "bool": 1, "float16": 2, "bfloat16": 2,
         "int16": 2}


def cases(seed: int):
    from cornerturn.bench.suites import random_cases

    for draw in range(50):
        for c in random_cases(seed * 1000 + draw, 64, "cuda"):
            if c.dtype in SIZES:
                yield c.dtype, SIZES[c.dtype], c.shape if len(c.shape) == 3 else (1, *c.shape)


def with_out(config: WordsConfig, planned) -> WordsConfig:
    return copy.replace(config, out=planned.config.out) if hasattr(copy, "replace") else WordsConfig(
        config.block_r, config.block_cw, config.num_warps, planned.config.out)


def run_case(dtype, size, shape, planned, problem, stream) -> dict:
    import torch

    from cornerturn.engine.plan import build
    from cornerturn.engine.timing import time_cuda_rounds

    nbytes = shape[0] * shape[1] * shape[2] * size
    words = torch.randint(-2**31, 2**31 - 1, ((nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[:nbytes].view(getattr(torch, dtype)).view(shape)
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    plans = {"plan": planned}
    for config in CONFIGS:
        other = with_out(config, planned)
        if other != planned.config:
            plans[other.name] = build(problem, 4, other)
    fns = {}
    for label, p in plans.items():
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
            "out_row_bytes": shape[1] * size, "pct": pct}


def main() -> None:
    import torch

    from cornerturn import engine
    from cornerturn.problem import canonical

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for dtype, size, shape in cases(seed):
        if len(rows) >= count:
            break
        problem = canonical(shape, (shape[1] * shape[2] * size, shape[2] * size, size), size)
        planned = engine.choose(problem, "cuda:0")
        if not isinstance(planned.config, WordsConfig) or planned.config.out == "items" or len(planned.pieces) != 1:
            continue
        row = run_case(dtype, size, shape, planned, problem, stream)
        torch.cuda.empty_cache()
        rows.append(row)
        best = max((v, k) for k, v in row["pct"].items())
        print(f"{row['case']:36s} {row['plan']:22s} plan {row['pct']['plan']:6.2f} best {best[1]} {best[0]:6.2f} " +
              " ".join(f"{k.removeprefix('words')} {v:.1f}" for k, v in row["pct"].items() if k != "plan"), flush=True)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/long_pieces_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)
    for label in rows[0]["pct"]:
        s = [r["pct"][label] / r["pct"]["plan"] for r in rows if label in r["pct"]]
        print(f"{label:24s} x{math.exp(sum(map(math.log, s)) / len(s)):.3f} over {len(s)} "
              f"({min(s):.2f}-{max(s):.2f})")


if __name__ == "__main__":
    main()
