"""Probe: the planner's plan against autotune's choice (cornerturn.plan(..., autotune=True), the tuning cache off) on
the permute suites' slowest cases, bit-exact, timed with torch and the copy in interleaved rounds (L2 flushed).

    CORNERTURN_CACHE_DIR=off python3 scripts/autotune_holdouts_probe.py OUT.json
"""

import json
import sys
import time

import torch

import cornerturn
from cornerturn.engine.timing import time_cuda_rounds

CASES = [((262, 164, 19, 27, 7), (1, 2, 4, 3, 0), "float8_e4m3fn"),
         ((53, 11, 113, 29, 24, 7), (5, 2, 0, 1, 4, 3), "uint8"), ((160, 7380, 212), (2, 1, 0), "float8_e4m3fn"),
         ((6, 8, 3, 93, 13, 451), (3, 4, 5, 2, 1, 0), "int16"), ((35, 11, 20, 40, 4, 11), (2, 4, 3, 0, 5, 1), "int32"),
         ((15, 143, 53, 38, 38), (1, 3, 0, 2, 4), "float16"), ((98, 11, 9, 87, 79), (1, 4, 0, 3, 2), "float8_e4m3fn"),
         ((249, 11, 2491, 6), (1, 0, 3, 2), "int64"), ((80, 4, 240, 20, 47), (4, 2, 0, 3, 1), "float8_e4m3fn"),
         ((33, 72, 47, 4, 27, 6), (5, 4, 0, 2, 1, 3), "int8")]


def measure(shape, axes, name) -> dict:
    dtype = getattr(torch, name)
    raw = torch.randint(0, 256, (*shape[:-1], shape[-1] * dtype.itemsize), dtype=torch.uint8, device="cuda")
    x = raw.view(dtype)
    want = x.permute(*axes).contiguous()
    out, copy = torch.empty_like(want), torch.empty_like(x)
    plain = cornerturn.plan(shape, dtype, axes=axes, device="cuda")
    tuned = cornerturn.plan(shape, dtype, axes=axes, device="cuda", autotune=True)
    exact = {}
    for key, plan in (("plan", plain), ("autotune", tuned)):
        out.view(torch.uint8).fill_(0xA5)
        plan.execute(x, out)
        exact[key] = bool(torch.equal(out.view(torch.uint8), want.view(torch.uint8)))
    t = time_cuda_rounds({"copy": lambda: copy.copy_(x), "plan": lambda: plain.execute(x, out),
                          "autotune": lambda: tuned.execute(x, out),
                          "torch": lambda: out.copy_(x.permute(*axes))}, repeats=9)
    pct = {k: round(100 * t["copy"].median / v.median, 1) for k, v in t.items() if k != "copy"}
    return {"case": f"{name} {'x'.join(map(str, shape))} {axes}", "pct": pct, "exact": exact,
            "plan": plain.method, "autotune": tuned.method}


def main() -> None:
    rows = []
    for shape, axes, name in CASES:
        rows.append(measure(shape, axes, name))
        print(rows[-1], flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
