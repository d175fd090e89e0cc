"""Probe: 1- and 2-byte transposes of arrays that start past a whole word (slices), the words kernel told the
offsets (now) against the plan in narrower words that such addresses used to get (before). Each output poisoned
and checked bit for bit; CUDA-event medians against torch's copy of the same bytes in the same run. JSON to --out."""

from __future__ import annotations

import argparse
import json
import math
import time

import torch

import cornerturn
from cornerturn import engine
from cornerturn.bench.suites import Case, random_cases
from cornerturn.engine.runtime import narrowed_for, run_pointers
from cornerturn.engine.timing import time_cuda

NAMED = [((825737, 545), "int8"), ((771864, 905), "int8"), ((110991, 2236), "uint8"), ((4342, 110413), "uint8"),
         ((10171, 25381), "uint8"), ((477055, 508), "int16"), ((727684, 425), "float16"), ((16383, 16385), "int8"),
         ((8192, 8192), "int8"), ((6000, 6000), "bfloat16"), ((8192, 6000), "bfloat16"), ((12, 4096, 4096), "uint8")]


def measure(case: Case, x_off: int, out_off: int, repeats: int) -> dict:
    size = case.itemsize
    dtype = torch.uint8 if size == 1 else torch.int16
    count = math.prod(case.shape)
    base = torch.randint(0, 256, ((count + 4) * size,), dtype=torch.uint8, device="cuda").view(dtype)
    x = base[x_off:x_off + count].view(case.shape)
    ref = x.transpose(-1, -2).contiguous()
    out_base = torch.empty((count + 4) * size, dtype=torch.uint8, device="cuda").view(dtype)
    out = out_base[out_off:out_off + count].view(ref.shape)
    src, dst = torch.empty_like(x), torch.empty_like(x)  # the ceiling: a copy of as many bytes, from whole words
    src.copy_(x)
    copy_t = time_cuda(lambda: dst.copy_(src), repeats=repeats).median
    plan = cornerturn.plan(tuple(case.shape), dtype, device="cuda")
    backend = plan._backend
    narrow = engine.choose(backend.problem, "cuda:0", size)
    entry = {"case": case.name, "x_off": x_off * size, "out_off": out_off * size, "copy_s": copy_t, "methods": {}}

    def timed(name, fn):
        out_base.view(torch.uint8).fill_(0xA5)
        fn()
        torch.cuda.synchronize()
        ok = bool(torch.equal(out, ref))
        t = time_cuda(fn, repeats=repeats).median
        entry["methods"][name] = {"ok": ok, "s": t, "pct": 100 * copy_t / t}

    timed("now", lambda: plan.execute(x, out))
    now = narrowed_for(backend, x.data_ptr(), out.data_ptr(), 0)
    entry["plan_now"], entry["reason_now"] = now.name, now.reason
    timed("before", lambda: run_pointers(narrow, x.data_ptr(), out.data_ptr(), 0))
    entry["plan_before"] = narrow.name
    return entry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=8080)
    ap.add_argument("--named", type=int, default=len(NAMED))
    ap.add_argument("--cases", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    cases = [Case(s, d) for s, d in NAMED[: args.named]]
    cases += [c for c in random_cases(args.seed, 400, "cuda") if c.itemsize in (1, 2)][: args.cases]
    results = []
    for n, case in enumerate(cases):
        offsets = [(1, 0), (2, 0), (0, 1), (3, 3)] if case.itemsize == 1 else [(1, 0), (0, 1), (1, 1)]
        for x_off, out_off in offsets[n % len(offsets):] + offsets[:n % len(offsets)][:1]:
            e = measure(case, x_off, out_off, args.repeats)
            results.append(e)
            print(f"{case.name:32s} x+{e['x_off']} out+{e['out_off']} " + " ".join(
                f"{k}={v['pct']:.0f}{'' if v['ok'] else '!BAD'}" for k, v in e["methods"].items())
                + f"  {e.get('plan_before')} -> {e['plan_now']}", flush=True)
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": torch.cuda.get_device_name(0),
                   "command": f"python3 scripts/offsets_probe.py --out $OUT/offsets.json --seed {args.seed} "
                              f"--cases {args.cases} --named {args.named}", "results": results}, f, indent=1)
    for key in ("before", "now"):
        v = sorted(e["methods"][key]["pct"] if e["methods"][key]["ok"] else 0 for e in results if key in e["methods"])
        print(f"{key:8s} n {len(v)} min {v[0]:.0f} tenth {v[len(v) // 10]:.0f} median {v[len(v) // 2]:.0f}")


if __name__ == "__main__":
    main()
