"""Probe: the order in which programs take tiles. Today they go down whole columns of tiles; in a tall matrix such
a column reads more than the L2 holds before the next column's tiles read the sectors the two share. Here the
engine's own plan for each case is rebuilt with tiles taken in bands (engine.plan: where a column of tiles reads
more than BAND_FROM bytes, bands whose columns read BAND_BYTES) and timed against whole columns. Each output
poisoned and checked bit for bit; CUDA-event medians (L2 flushed), variants interleaved round by round, torch's
copy of the same bytes in the same rounds as the ceiling. JSON to --out.

    python3 scripts/band_probe.py --out $OUT/bands.json --seed S --cases N [--named K] [--bands 0:0,8:2,8:4]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import torch

import cornerturn
from cornerturn.bench.suites import Case, random_cases
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import TileConfig
from cornerturn.engine.runtime import run_pointers
from cornerturn.engine.timing import flush_l2

NAMED = [((825737, 545), "int8"), ((771864, 905), "int8"), ((549731, 367), "int8"), ((110991, 2236), "uint8"),
         ((163056, 4299), "uint8"), ((477055, 508), "int16"), ((727684, 425), "float16"), ((240101, 420), "bfloat16"),
         ((301997, 401), "float32"), ((187311, 506), "float32"), ((89863, 1318), "float32"),
         ((85706, 709), "complex64"), ((16384, 16384), "int8"), ((32768, 32768), "int8"),
         ((16384, 16384), "float32"), ((4342, 110413), "uint8"), ((8192, 8192), "complex128"),
         ((13624, 24065), "float16"), ((62414, 2530), "int32"), ((34610, 5748), "float32"), ((99282, 872), "int64"),
         ((16383, 16385), "int8"), ((16383, 16385), "float32"), ((60000, 3000), "float32"), ((150000, 5000), "int8"),
         ((100000, 4000), "int16"), ((40000, 1600), "float64"), ((300000, 1500), "uint8")]
WORD = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}


def event_time(fn) -> float:
    flush_l2(0)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3


def measure(case: Case, bands: list[tuple[float, float]], repeats: int) -> dict:
    defaults = engine_plan.BAND_FROM, engine_plan.BAND_BYTES
    size = case.itemsize
    count = math.prod(case.shape)
    x = torch.randint(0, 256, (count * size,), dtype=torch.uint8, device="cuda").view(WORD[size]).view(case.shape)
    ref = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(ref)
    src, dst = x.clone(), torch.empty_like(x)
    engine_plan.BAND_FROM = 1 << 60  # the plan's configuration as chosen; its band is rebuilt below
    planned = cornerturn.plan(tuple(case.shape), WORD[size], device="cuda")._backend
    if not isinstance(planned, engine_plan.EnginePlan) or len(planned.pieces) != 1:
        return {"case": case.name, "skipped": f"plan {planned.name}: not one launch of a tile kernel"}
    tiles_at = 5 if isinstance(planned.config, TileConfig) else 4  # tiles_r among the launch's ints
    entry = {"case": case.name, "shape": list(case.shape), "itemsize": size, "plan": planned.name,
             "reason": planned.reason, "variants": {}}
    fns = {"copy": lambda: dst.copy_(src)}
    for above, mib in bands:
        engine_plan.BAND_FROM, engine_plan.BAND_BYTES = int(above * 2**20), int(mib * 2**20)
        p = engine_plan.build(planned.problem, planned.word, planned.config, planned.reason, planned.out_row_stride,
                              planned.offsets)
        name = "columns" if mib == 0 else f"from{above:g}:band{mib:g}"
        launch = p.pieces[0][2]
        out.view(-1).view(torch.uint8).fill_(0xA5)
        run_pointers(p, x.data_ptr(), out.data_ptr(), 0)
        torch.cuda.synchronize()
        entry["variants"][name] = {"ok": bool(torch.equal(out.view(torch.uint8), ref.view(torch.uint8))),
                                   "band_tiles": launch.ints[-1], "tiles_r": launch.ints[tiles_at]}
        fns[name] = lambda p=p: run_pointers(p, x.data_ptr(), out.data_ptr(), 0)
    engine_plan.BAND_FROM, engine_plan.BAND_BYTES = defaults
    samples = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(repeats):
        for k, fn in fns.items():
            samples[k].append(event_time(fn))
    copy_s = statistics.median(samples["copy"])
    entry["copy_s"] = copy_s
    for k, v in entry["variants"].items():
        v["s"] = statistics.median(samples[k])
        v["pct"] = 100 * copy_s / v["s"]
    return entry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=5151)
    ap.add_argument("--named", type=int, default=len(NAMED))
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--bands", default="0:0,8:2,8:4,8:8,16:4",
                    help="FROM:BAND in MiB (engine.plan.BAND_FROM, BAND_BYTES); 0:0 takes whole columns")
    args = ap.parse_args()
    bands = [(1e9, 0) if b == "0:0" else tuple(map(float, b.split(":"))) for b in args.bands.split(",")]
    cases = [Case(s, d) for s, d in NAMED[: args.named]]
    cases += list(random_cases(args.seed, args.cases, "cuda")) if args.cases else []
    results = []
    for case in cases:
        e = measure(case, bands, args.repeats)
        results.append(e)
        if "skipped" in e:
            print(f"{case.name:34s} skipped: {e['skipped']}", flush=True)
            continue
        print(f"{case.name:34s} {e['plan']:26s} " + " ".join(
            f"{k}={v['pct']:.0f}{'' if v['ok'] else '!BAD'}({v['band_tiles']}/{v['tiles_r']})"
            for k, v in e["variants"].items()), flush=True)
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": torch.cuda.get_device_name(0),
                   "command": f"python3 scripts/band_probe.py --out $OUT/bands.json --seed {args.seed} --cases "
                              f"{args.cases} --named {args.named} --bands {args.bands}", "results": results},
                  f, indent=1)
    results = [e for e in results if "variants" in e]
    names = list(results[0]["variants"])
    for k in names:
        v = sorted(e["variants"][k]["pct"] if e["variants"][k]["ok"] else 0 for e in results)
        gain = [e["variants"][k]["pct"] / e["variants"]["columns"]["pct"] for e in results
                if "columns" in e["variants"]]
        print(f"{k:12s} n {len(v)} min {v[0]:.0f} tenth {v[len(v) // 10]:.0f} median {v[len(v) // 2]:.0f} "
              f"x columns: min {min(gain):.2f} geomean {math.exp(statistics.fmean(map(math.log, gain))):.3f} "
              f"max {max(gain):.2f}")


if __name__ == "__main__":
    main()
