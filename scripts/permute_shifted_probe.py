"""Probe: units contiguous on both sides that no 4-byte word divides, moved in funnel-shifted 32-bit words
(permute_runs_words) against the plan in the widest word that divides them (the element tiles under 128 bytes,
permute_runs above).

Cases: the permute suite's random 1- and 2-byte permutations of the given seeds that permute_runs_words can take
(units of 4 bytes or more that no 4-byte word divides; with --planner, those the planner gives it). Every plan's
output is checked bit for bit against torch, then both plans, torch's permute
and a torch copy of the same bytes are timed in interleaved rounds (engine.timing.time_cuda_rounds).

    python3 scripts/permute_shifted_probe.py --seeds 100-199 --out $OUT/shifted.json
"""

from __future__ import annotations

import argparse
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
from cornerturn.tiling import element_bytes, widest_word

ITEMSIZE = {"int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float16": 2, "bfloat16": 2, "int16": 2}
INT = {1: torch.int8, 2: torch.int16}


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="100-199")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--max-cases", type=int, default=20)
    ap.add_argument("--planner", action="store_true", help="only cases the planner moves in shifted words")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for seed in seeds_of(args.seeds):
        for case in random_permutations(seed, 32, "cuda"):
            itemsize = ITEMSIZE.get(case.dtype)
            if itemsize is None or len(rows) >= args.max_cases:
                continue
            strides = [itemsize]
            for extent in reversed(case.shape[1:]):
                strides.insert(0, strides[0] * extent)
            perm = problem.canonical_permutation(tuple(case.shape), tuple(strides), itemsize, tuple(case.axes))
            if not (isinstance(perm, problem.Permutation) and ep.shifted_runs_fit(perm, 1024)
                    and widest_word(perm) < 4) or (args.planner and not ep.shifted_runs_ok(perm)):
                continue
            t0 = time.time()
            n = math.prod(case.shape)
            x = torch.randint(-128, 127, (n * itemsize,), dtype=torch.int8, device="cuda").view(INT[itemsize])
            x = x.view(case.shape)
            ref = x.permute(case.axes).contiguous()
            out = torch.empty_like(ref)
            copy = torch.empty_like(x)
            xv, ov = view_of(x), view_of(out)
            word = widest_word(perm)
            plans = [("before", ep.build(perm, word)), ("shifted", ep.build(perm, 4, ep.ShiftedRunsConfig()))]
            fns, names, ok = {}, {}, {}
            for key, plan in plans:
                names[key] = plan.config.name
                out.view(torch.int8).fill_(0x5A)
                run_views(plan, xv, ov)
                torch.cuda.synchronize()
                ok[key] = bool(torch.equal(out, ref))
                fns[key] = (lambda p=plan, a=xv, b=ov: run_views(p, a, b))
            fns["torch"] = lambda o=out, s=x, a=case.axes: o.copy_(s.permute(a))
            fns["copy"] = lambda c=copy, s=x: c.copy_(s)
            timed = time_cuda_rounds(fns, repeats=args.repeats)
            med = {k: t.median for k, t in timed.items()}
            pct = {k: 100 * med["copy"] / med[k] for k in fns if k != "copy"}
            unit = element_bytes(perm)
            rows.append({"seed": seed, "shape": list(case.shape), "dtype": case.dtype, "axes": list(case.axes),
                         "unit_bytes": unit, "word_before": word, "plans": names, "ok": ok, "median_s": med,
                         "pct_of_copy": pct, "copy_gbps": 2 * n * itemsize / med["copy"] / 1e9})
            print(f"{seed} {case.dtype} {case.shape} {case.axes} unit={unit} word={word} {names['before']} "
                  f"ok={all(ok.values())} " + " ".join(f"{k}:{v:.0f}" for k, v in pct.items())
                  + f" ({time.time() - t0:.0f}s)", flush=True)
    info = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": f"python3 scripts/permute_shifted_probe.py --seeds {args.seeds} --max-cases {args.max_cases}"
                       + (" --planner" if args.planner else ""),
            "rows": rows}
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
