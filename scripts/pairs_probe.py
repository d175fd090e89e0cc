"""Probe: 16-byte matrices of the random suite's kind (drawn from a seed, 64-768 MiB, a quarter batched) in every
tile of the pairs kernel that autotune knows for them (4 to 32 KiB, 4 or 8 warps), and the plan's tile
taking tiles down whole columns instead of in bands, against cuBLAS zgeam and a device copy of the same bytes, in
interleaved rounds; every plan checked bit for bit against torch's transpose into a poisoned output.

    python3 scripts/pairs_probe.py OUT.json SEED CASES [--tall] [--bands=1,2,4]

With --tall only matrices at least four times taller than wide (where zgeam ran 1-2% ahead of the plan). With
--bands, instead of the other tiles: the plan's tile in bands of those tile rows (1: along rows of tiles), and three
other tiles along rows of tiles.
"""

import copy
import json
import sys
import time

TALL = "--tall" in sys.argv
HINTS = [tuple(map(int, h)) for h in next((a.split("=")[1] for a in sys.argv if a.startswith("--hints=")),
                                          "").split(",") if h]
BANDS = [int(b) for b in next((a.split("=")[1] for a in sys.argv if a.startswith("--bands=")), "").split(",") if b]


def cases(seed: int, count: int):
    from cornerturn.bench.suites import random_cases

    found, draw = [], 0
    while len(found) < count:
        found += [c for c in random_cases(seed * 1000 + draw, 64, "cuda") if c.dtype == "complex128" and
                  (not TALL or c.shape[-2] >= 4 * c.shape[-1])]
        draw += 1
    return found[:count]


def banded(plan, band: int | None):
    """`plan` with its tiles taken in bands of `band` tile rows (None: down whole columns, band = tiles_r; 1: along
    rows of tiles)."""
    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        bare = copy.copy(launch)
        named = launch.named_ints()
        bare.ints = tuple((band or named["tiles_r"]) if n == "band" else v for n, v in named.items())
        bare._compiled = {}
        other.pieces.append((xo, oo, bare))
    return other


def hinted(plan, load: int, store: int):
    """`plan` with the pairs kernel's cache hints LOAD_HINT and STORE_HINT."""
    other = copy.copy(plan)
    other.pieces = []
    for xo, oo, launch in plan.pieces:
        bare = copy.copy(launch)
        bare.constexprs = dict(launch.constexprs, LOAD_HINT=load, STORE_HINT=store)
        bare._compiled = {}
        other.pieces.append((xo, oo, bare))
    return other


def plans(problem):
    from cornerturn import engine
    from cornerturn.engine.configs import PairsConfig, candidates
    from cornerturn.engine.plan import build

    planned = engine.choose(problem, "cuda:0")
    if HINTS:  # the kernel's hints given as constexprs, their defaults too
        planned = hinted(planned, 0, 0)
    found = {"plan": planned, "plan-unbanded": banded(planned, None)}
    if HINTS:
        for load, store in HINTS:
            found[f"plan-hint{load}{store}"] = hinted(planned, load, store)
        return planned, found
    if BANDS:
        for band in BANDS:
            found[f"plan-band{band}"] = banded(planned, band)
        for config in (PairsConfig(32, 32, 8), PairsConfig(16, 32, 8), PairsConfig(32, 16, 8)):
            if config != planned.config:
                found[f"{config.name}-band1"] = banded(build(problem, 8, config), 1)
        return planned, found
    for config in candidates(problem):
        if isinstance(config, PairsConfig) and config != planned.config:
            found[config.name] = build(problem, 8, config)
    return planned, found


def run_case(case, stream) -> dict:
    import torch

    from cornerturn.bench.cuda_peers import _geam
    from cornerturn.engine.timing import time_cuda_rounds
    from cornerturn.problem import canonical

    shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
    x = torch.randn(shape, dtype=torch.complex128, device="cuda")
    want = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(want)
    planned, found = plans(canonical(shape, tuple(s * 16 for s in x.stride()), 16))
    fns = {}
    for label, p in found.items():
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
    t = time_cuda_rounds(fns, repeats=7)
    return {"case": case.name, "shape": list(case.shape), "plan": planned.config.name,
            "band": planned.pieces[0][2].named_ints()["band"],
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
        best = sorted(row["pct"].items(), key=lambda kv: -kv[1])[:4]
        print(f"{row['case']:30s} {row['plan']:14s} plan {row['pct']['plan']:6.2f} unbanded "
              f"{row['pct']['plan-unbanded']:6.2f} geam {row['pct'].get('geam', 0):6.2f} best " +
              " ".join(f"{k} {v:.2f}" for k, v in best), flush=True)
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/pairs_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
