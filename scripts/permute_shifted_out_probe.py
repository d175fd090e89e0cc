"""Probe: byte permutations in permute_words whose output runs along A do not span whole words (A not a multiple
of 4 bytes), written as words shifted into place against element by element (the code before it), the element tiles
and torch; the planner's choice between the first two is recorded.

Cases: the permute suite's random 1-byte permutations of the given seeds that the planner moves in permute_words with
such runs. Every plan's output is checked bit for bit against torch; then the plans, torch's permute and a torch copy
of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds). JSON is rewritten after each case.

    python3 scripts/permute_shifted_out_probe.py --seeds 3000-3999 --max-cases 24 --out $OUT/shifted-out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

import torch

from cornerturn import problem
from cornerturn.arrays import view_of
from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute as ep
from cornerturn.engine.runtime import run_views
from cornerturn.engine.timing import time_cuda_rounds

BYTES = ("int8", "uint8", "float8_e4m3fn")


def canonical(shape, axes):
    strides = [1]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return problem.canonical_permutation(tuple(shape), tuple(strides), 1, tuple(axes))


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="3000-3999")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--max-cases", type=int, default=24)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": f"python3 scripts/permute_shifted_out_probe.py --seeds {args.seeds} --max-cases "
                       f"{args.max_cases}", "rows": []}
    for seed in seeds_of(args.seeds):
        if len(info["rows"]) >= args.max_cases:
            break
        for case in random_permutations(seed, 32, "cuda"):
            perm = canonical(case.shape, case.axes) if case.dtype in BYTES else None
            if not isinstance(perm, problem.Permutation) or not ep.words_ok(perm):
                continue
            planned = ep.build(perm, 4)
            if planned.pieces[0][2].constexprs["OUT"] == 0 or len(info["rows"]) >= args.max_cases:
                continue
            t0 = time.time()
            n = math.prod(case.shape)
            x = torch.randint(-128, 127, case.shape, dtype=torch.int8, device="cuda")
            ref = x.permute(case.axes).contiguous()
            out = torch.empty_like(ref)
            copy = torch.empty_like(x)
            xv, ov = view_of(x), view_of(out)
            plans = [(mode, ep.build(perm, 4, dataclasses.replace(planned.config, out=mode)))
                     for mode in ("shifted", "items")] + [("tile", ep.build(perm, 1))]
            fns, names, ok = {}, {}, {}
            for key, plan in plans:
                names[key] = plan.config.name
                out.fill_(0x5A)
                run_views(plan, xv, ov)
                torch.cuda.synchronize()
                ok[key] = bool(torch.equal(out, ref))
                fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
            fns["torch"] = lambda o=out, s=x, a=case.axes: o.copy_(s.permute(a))
            fns["copy"] = lambda c=copy, s=x: c.copy_(s)
            timed = time_cuda_rounds(fns, repeats=args.repeats)
            med = {k: t.median for k, t in timed.items()}
            pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
            sides = ep.words_sides(perm)
            info["rows"].append({"seed": seed, "shape": list(case.shape), "dtype": case.dtype,
                                 "axes": list(case.axes), "size_a": sides.size_a, "size_b": sides.size_b,
                                 "b_axes": len(sides.b), "planner": planned.config.out,
                                 "plans": names, "ok": ok, "median_s": med, "pct_of_copy": pct,
                                 "copy_gbps": 2 * n / med["copy"] / 1e9})
            print(f"{seed} {case.dtype} {case.shape} {case.axes} A={sides.size_a} B axes={len(sides.b)} "
                  f"planner={planned.config.out} ok={all(ok.values())} "
                  + " ".join(f"{k}:{v:.0f}" for k, v in pct.items()) + f" ({time.time() - t0:.0f}s)", flush=True)
            with open(args.out, "w") as f:
                json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
