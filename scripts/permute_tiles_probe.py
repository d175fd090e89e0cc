"""Probe: the general permutation tiles (permute_tiles) at other tile shapes, on the slowest cases of a permute suite,
against the planner's plan and its candidates; every plan checked bit-exact, timed with the copy in interleaved rounds.

    python3 scripts/permute_tiles_probe.py OUT.json
"""

import contextlib
import json
import sys
import time

import torch

from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation

CASES = [((106, 603, 61, 70), (3, 0, 2, 1), "int8"), ((83, 317, 33, 233), (2, 1, 0, 3), "uint8"),
         ((8345, 2432, 9), (1, 0, 2), "int8"), ((95, 15, 19, 94, 95), (3, 4, 1, 0, 2), "float16"),
         ((12, 22, 38, 38, 335), (1, 3, 2, 0, 4), "float8_e4m3fn"), ((110, 57, 383, 88), (2, 3, 1, 0), "uint8"),
         ((1485, 63, 991), (2, 1, 0), "float32"), ((41, 48, 28, 19, 4, 6), (5, 2, 1, 4, 0, 3), "int16"),
         ((2211, 5795, 9), (2, 1, 0), "int16"), ((8, 51, 44, 6, 37, 5), (5, 3, 1, 0, 4, 2), "float32"),
         ((24, 13, 29, 10, 11, 32), (5, 0, 1, 2, 4, 3), "float32")]
TILES = [(32, 128), (64, 64), (64, 128), (128, 32), (128, 64), (128, 128), (256, 32), (32, 256), (256, 64), (64, 256)]


def configs(word: int):
    for a, b in TILES:
        if a * b * word > 64 * 1024:
            continue
        yield permute.PermuteConfig(a, b, 8 if a * b * word >= 16 * 1024 else 4)


def measure(shape, axes, name) -> dict:
    dtype = getattr(torch, name)
    size = dtype.itemsize
    raw = torch.randint(0, 256, (*shape[:-1], shape[-1] * size), dtype=torch.uint8, device="cuda")
    x = raw.view(dtype)
    want = x.permute(*axes).contiguous().view(torch.uint8)
    out, copy = torch.empty_like(want), torch.empty_like(raw)
    strides = tuple(s * size for s in x.stride())
    perm = canonical_permutation(tuple(shape), strides, size, tuple(axes))
    word = permute.natural_word(perm)
    plans = {"plan": permute.build(perm, word)}
    for w, c in permute.candidates(perm):
        plans.setdefault(f"{c.name} ({w} B)", permute.build(perm, w, c))
    if word == size:  # element tiles: the sweep
        for c in configs(word):
            with contextlib.suppress(ValueError):  # a tile this permutation cannot take
                plans.setdefault(f"{c.name} ({word} B)", permute.build(perm, word, c))
    stream = torch.cuda.current_stream().cuda_stream
    calls, exact = {"copy": lambda: copy.copy_(raw)}, {}
    for key, plan in plans.items():
        def call(plan=plan):
            for xo, oo, launch in plan.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        try:
            out.fill_(0xA5)
            call()
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - a tile the compiler refuses
            exact[key] = str(exc)[:120]
            continue
        exact[key] = bool(torch.equal(out, want))
        if exact[key]:
            calls[key] = call
    t = time_cuda_rounds(calls, repeats=7)
    pct = {k: round(100 * t["copy"].median / v.median, 1) for k, v in t.items() if k != "copy"}
    return {"case": f"{name} {'x'.join(map(str, shape))} {axes}", "plan": plans["plan"].name,
            "reason": plans["plan"].reason, "pct": pct, "exact": exact}


def main() -> None:
    rows = []
    for shape, axes, name in CASES:
        rows.append(measure(shape, axes, name))
        best = max(rows[-1]["pct"].items(), key=lambda kv: kv[1])
        print(rows[-1]["case"], "plan", rows[-1]["pct"]["plan"], "best", best, flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
