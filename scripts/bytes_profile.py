"""Probe: the engine on odd-pitch byte matrices, timed against torch's copy, one case a process (for ncu)."""

from __future__ import annotations

import json
import sys

import torch

import cornerturn

CASES = {
    "a": ((771864, 905), torch.uint8), "b": ((437757, 759), torch.uint8), "c": ((182314, 1673), torch.uint8),
    "d": ((14318, 6834), torch.uint8), "e": ((4342, 110413), torch.uint8), "f": ((16384, 16384), torch.uint8),
    "g": ((477055, 508), torch.int16), "h": ((301997, 401), torch.float32), "i": ((16383, 16385), torch.uint8),
}


def timed(fn, reps=15):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        fn()
        start.record()
        fn()
        end.record()
        end.synchronize()
        ts.append(start.elapsed_time(end) / 1e3)
    return sorted(ts)[len(ts) // 2]


def main() -> None:
    keys, mode = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "time"
    rows = []
    for key in keys:
        shape, dtype = CASES[key]
        x = torch.randint(0, 255, shape, dtype=torch.uint8, device="cuda").view(torch.uint8)
        if dtype != torch.uint8:
            x = torch.randint(0, 255, (shape[0], shape[1] * torch.empty(0, dtype=dtype).element_size()),
                              dtype=torch.uint8, device="cuda").view(dtype)
        out = torch.empty(shape[::-1], dtype=dtype, device="cuda")
        plan = cornerturn.plan(tuple(shape), str(dtype).split(".")[1], device="cuda")
        if mode == "ncu":
            for _ in range(4):
                cornerturn.transpose(x, out=out)
            torch.cuda.synchronize()
            continue
        cornerturn.transpose(x, out=out)
        ok = torch.equal(out, x.t().contiguous())
        copy_dst = torch.empty_like(x)
        t_copy = timed(lambda d=copy_dst, s=x: d.copy_(s))
        t_eng = timed(lambda s=x, d=out: cornerturn.transpose(s, out=d))
        row = {"case": f"{dtype} {shape}", "plan": repr(plan), "reason": plan.reason, "ok": ok,
               "copy_s": t_copy, "engine_s": t_eng, "pct": 100 * t_copy / t_eng}
        print(json.dumps(row), flush=True)
        rows.append(row)
    if rows and len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
