"""Probe: the realign kernel (engine/realign.py) against the engine's current plan on 1- and 2-byte transposes
whose rows start anywhere. Every output checked bit for bit (poisoned first); CUDA-event medians against torch's
copy of the same bytes in the same run. Writes JSON to --out."""

from __future__ import annotations

import argparse
import json
import math
import time

import torch

import cornerturn
from cornerturn.bench.suites import Case, random_cases
from cornerturn.engine import realign as R
from cornerturn.engine.timing import time_cuda

NAMED = [((825737, 545), "int8"), ((771864, 905), "int8"), ((110991, 2236), "uint8"), ((4342, 110413), "uint8"),
         ((5, 1062, 59214), "int8"), ((10171, 25381), "uint8"), ((1635, 299470), "uint8"), ((477055, 508), "int16"),
         ((727684, 425), "float16"), ((240101, 420), "bfloat16"), ((983, 83501), "int16"),
         ((20, 4110, 4854), "bfloat16"), ((16383, 16385), "int8"), ((8192, 8192), "int8"), ((6000, 6000), "bfloat16")]
CONFIGS = [R.RealignConfig(124, 4), R.RealignConfig(124, 8), R.RealignConfig(124, 16), R.RealignConfig(248, 8),
           R.RealignConfig(248, 16)]


def poison(out) -> None:
    out.view(torch.uint8).fill_(0xA5) if out.element_size() == 1 else out.view(torch.int16).fill_(-23131)


def measure(case: Case, repeats: int) -> dict:
    size = case.itemsize
    wt = torch.uint8 if size == 1 else torch.int16
    lo, hi = (0, 256) if size == 1 else (-30000, 30000)
    x = torch.randint(lo, hi, case.shape, device="cuda").to(wt)
    *batch, m, n = case.shape
    ref = x.transpose(-1, -2).contiguous()
    out = torch.empty_like(ref)
    copy_dst = torch.empty_like(x)
    copy_t = time_cuda(lambda: copy_dst.copy_(x), repeats=repeats).median
    entry = {"case": case.name, "shape": list(case.shape), "itemsize": size, "copy_s": copy_t, "methods": {}}

    def timed(name, fn):
        poison(out)
        fn()
        torch.cuda.synchronize()
        ok = bool(torch.equal(out, ref))
        t = time_cuda(fn, repeats=repeats).median
        entry["methods"][name] = {"ok": ok, "s": t, "pct": 100 * copy_t / t}

    plan = cornerturn.plan(tuple(case.shape), x.dtype, device="cuda")
    timed("engine:" + plan.method, lambda: plan.execute(x, out))
    g = R.Geometry(size, batch[0] if batch else 1, m, n, n * size, m * n * size, m * size, m * n * size)
    stream = torch.cuda.current_stream().cuda_stream
    for cfg in CONFIGS:
        timed(cfg.name, lambda cfg=cfg: R.run_pointers(cfg, g, x.data_ptr(), out.data_ptr(), stream))
        entry["methods"][cfg.name]["s_back_to_back"] = back_to_back(cfg, g, x, out)
        entry["methods"][cfg.name]["pct_back_to_back"] = 100 * copy_t / entry["methods"][cfg.name]["s_back_to_back"]
    entry["engine_back_to_back"] = b2b(lambda: plan.execute(x, out))
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(50):
        R.run_pointers(CONFIGS[1], g, x.data_ptr(), out.data_ptr(), stream)
    entry["realign_host_call_s"] = (time.perf_counter() - t0) / 50
    torch.cuda.synchronize()
    return entry


def b2b(fn, calls: int = 20) -> float:
    """Seconds per call of `fn` launched back to back between two events (launch gaps hide behind the queue)."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / calls


def back_to_back(cfg, g, x, out) -> float:
    """The realign kernel alone: arrays and stream made once, then launched back to back."""
    from numba import cuda

    x0, o0 = x.data_ptr() & ~3, out.data_ptr() & ~3
    xw = R._device_words(x0, x.data_ptr() - x0 + g.x_span(), "<u4")
    ow = R._device_words(o0, out.data_ptr() - o0 + g.out_span(), "<u4")
    ob = R._device_words(o0, out.data_ptr() - o0 + g.out_span(), "|u1")
    programs, tiles_r, tiles_c = R.grid(cfg, g)
    k = R.kernel(cfg, g.itemsize)[programs, 32 * cfg.num_warps, cuda.external_stream(
        torch.cuda.current_stream().cuda_stream)]
    return b2b(lambda: k(xw, ow, ob, g.rows, g.cols, x.data_ptr() - x0, g.x_row, g.x_batch, out.data_ptr() - o0,
                         g.out_row, g.out_batch, tiles_r, tiles_c))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="4242,5151")
    ap.add_argument("--per-seed", type=int, default=12)
    ap.add_argument("--named", type=int, default=len(NAMED))
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    cases = [Case(s, d) for s, d in NAMED[: args.named]]
    for seed in map(int, args.seeds.split(",")):
        drawn = [c for c in random_cases(seed, 400, "cuda") if c.itemsize in (1, 2)]
        cases += drawn[: args.per_seed]
    rows_out = []
    for case in cases:
        entry = measure(case, args.repeats)
        rows_out.append(entry)
        print(f"{case.name:34s} " + " ".join(f"{k}={v['pct']:.0f}/{v.get('pct_back_to_back', 0):.0f}"
                                             f"{'' if v['ok'] else '!BAD'}" for k, v in entry["methods"].items())
              + f" engine_b2b={100 * entry['copy_s'] / entry['engine_back_to_back']:.0f}"
              + f" host={entry['realign_host_call_s'] * 1e6:.0f}us", flush=True)
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "device": torch.cuda.get_device_name(0),
                   "command": "python3 scripts/realign_probe.py --out $OUT/realign.json", "results": rows_out}, f,
                  indent=1)
    summary = {}
    for e in rows_out:
        for k, v in e["methods"].items():
            key = k if not k.startswith("engine") else "engine"
            summary.setdefault(key, []).append(v.get("pct_back_to_back", v["pct"]) if v["ok"] else 0)
    for k, v in summary.items():
        v = sorted(v)
        print(f"{k:16s} min {v[0]:.0f} tenth {v[len(v)//10]:.0f} median {v[len(v)//2]:.0f} "
              f"geomean {math.exp(sum(math.log(max(p, 1)) for p in v)/len(v)):.0f}")


if __name__ == "__main__":
    main()
