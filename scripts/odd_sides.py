"""Out-of-place transposes of odd-sided matrices (rows not whole 16-byte runs) with the heuristic's tiles, with
and without configs.UNALIGNED_TILES: each plan checked bit for bit, timed against torch's copy of the same bytes.

    python3 scripts/odd_sides.py   (writes $OUT/odd_sides.json; needs a GPU)
    TOGGLE=funnel_ok DTYPES=int8 python3 scripts/odd_sides.py   (bytes without and with the funnel kernel)

TOGGLE names the rule of cornerturn.engine.configs that "before" runs without (unaligned_tiles by default,
or funnel_ok); DTYPES (comma-separated torch dtypes) narrows the element types.
"""

import json
import os

import torch

import cornerturn
from cornerturn import engine
from cornerturn.engine import configs
from cornerturn.engine.timing import time_cuda

SHAPES = [(16383, 16385), (16385, 16384), (16384, 16383), (32767, 16383), (4097, 4095), (8191, 8193),
          (4, 4097, 4095), (100000, 1001), (1001, 100000), (16384, 16384)]
DTYPES = tuple(getattr(torch, d) for d in os.environ.get("DTYPES", "int8,float16,float32,float64").split(","))
TOGGLE = os.environ.get("TOGGLE", "unaligned_tiles")
OFF = {"unaligned_tiles": lambda *_: None, "funnel_ok": lambda *_: False}[TOGGLE]


def fresh_plan(x):
    """cornerturn's plan for x, chosen again (the plan caches cleared)."""
    engine.choose.cache_clear()
    cornerturn.api._cached_plan.cache_clear()
    cornerturn.api._backend_plan.cache_clear()
    return cornerturn.plan(x.shape, x.dtype, device="cuda")


def measure(dtype, shape: tuple[int, ...]) -> dict:
    """One case: the plan without and with the odd-side tiles, each checked and timed against the copy."""
    item = torch.empty((), dtype=dtype).element_size()
    n = 1
    for s in shape:
        n *= s
    x = torch.randint(0, 256, (n * item,), dtype=torch.uint8, device="cuda").view(dtype).view(shape)
    out = torch.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=dtype, device="cuda")
    want = x.transpose(-1, -2).contiguous().view(torch.uint8)
    copied = torch.empty_like(x)
    t_copy = min(time_cuda(lambda: copied.copy_(x), repeats=10).median for _ in range(2))
    row = {"dtype": str(dtype).removeprefix("torch."), "shape": shape}
    rule = getattr(configs, TOGGLE)
    try:
        for label, choice in (("before", OFF), ("after", rule)):
            setattr(configs, TOGGLE, choice)
            p = fresh_plan(x)
            out.view(torch.uint8).fill_(0xA5)
            p.execute(x, out)
            exact = bool(torch.equal(out.view(torch.uint8), want))
            t = time_cuda(lambda p=p: p.execute(x, out), repeats=10).median
            row[label] = {"method": p.method, "exact": exact, "ms": round(t * 1e3, 4),
                          "pct": round(t_copy / t * 100, 1)}
    finally:
        setattr(configs, TOGGLE, rule)
    return row


def main() -> None:
    res = []
    for dtype in DTYPES:
        for shape in SHAPES:
            res.append(measure(dtype, shape))
            print(json.dumps(res[-1]), flush=True)
            torch.cuda.empty_cache()
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    name = "odd_sides.json" if TOGGLE == "unaligned_tiles" else f"odd_sides_{TOGGLE}.json"
    with open(os.path.join(os.environ.get("OUT", "."), name), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "toggle": TOGGLE, "results": res}, f, indent=1)


if __name__ == "__main__":
    main()
