"""Probe: 16-byte matrices of the random suite's kind (drawn from a seed, 64-768 MiB, a quarter batched) in the pairs
kernel told its strides' alignment (16-byte accesses at any pitch) against the same plan untold (8-byte accesses
where the pitch is not a multiple of 16 words), cuBLAS zgeam and a device copy of the same bytes, in interleaved
rounds; every plan checked bit for bit against torch's transpose into a poisoned output.

    python3 scripts/pairs_probe.py OUT.json SEED CASES
"""

import copy
import json
import sys
import time


def cases(seed: int, count: int):
    from cornerturn.bench.suites import random_cases

    found, draw = [], 0
    while len(found) < count:
        found += [c for c in random_cases(seed * 1000 + draw, 64, "cuda") if c.dtype == "complex128"]
        draw += 1
    return found[:count]


def untold(plan):
    """`plan` with its pairs launches told nothing of their strides' alignment."""
    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        bare = copy.copy(launch)
        bare.constexprs = dict(launch.constexprs, IN_ALIGN=1, OUT_ALIGN=1)
        bare._compiled = {}
        other.pieces.append((xo, oo, bare))
    return other


def run_case(case, stream) -> dict:
    import torch

    from cornerturn import engine
    from cornerturn.bench.cuda_peers import _geam
    from cornerturn.engine.timing import time_cuda_rounds
    from cornerturn.problem import canonical

    shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
    x = torch.randn(shape, dtype=torch.complex128, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    problem = canonical(shape, tuple(s * 16 for s in x.stride()), 16)
    planned = engine.choose(problem, "cuda:0")
    fns = {}
    for label, p in (("told", planned), ("untold", untold(planned))):
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(torch.view_as_real(out), torch.view_as_real(want)):
            raise AssertionError(f"{case.name} {label}: wrong result")
        fns[label] = call
    if shape[0] == 1:
        geam_out = torch.empty_like(want[0])
        fns["geam"] = _geam(x[0], geam_out)
        fns["geam"]()
        torch.cuda.synchronize()
        assert torch.equal(torch.view_as_real(geam_out), torch.view_as_real(want[0])), "geam"
    copy_to = torch.empty_like(x)
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=9)
    launch = planned.pieces[0][2]
    return {"case": case.name, "shape": list(case.shape), "plan": planned.config.name,
            "in_align": launch.constexprs.get("IN_ALIGN"), "out_align": launch.constexprs.get("OUT_ALIGN"),
            "pct": {n: round(100 * t["copy"].median / v.median, 2) for n, v in t.items() if n != "copy"}}


def main() -> None:
    import torch

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = []
    stream = torch.cuda.current_stream().cuda_stream
    for case in cases(seed, count):
        row = run_case(case, stream)
        torch.cuda.empty_cache()
        rows.append(row)
        print(f"{row['case']:34s} {row['plan']:16s} " + " ".join(f"{k} {v:6.2f}" for k, v in row["pct"].items()),
              flush=True)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/pairs_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
