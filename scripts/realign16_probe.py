"""Probe: realign16 (scripts/realign16_probe.cu, CUDA C through CuPy) against the engine's plan on 1- and 2-byte
transposes whose rows start anywhere. Each output poisoned first and checked bit for bit against CuPy's transpose;
CUDA-event medians against a copy of the same bytes in the same run. JSON to --out."""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time

import cupy as cp
import numpy as np

import cornerturn
from cornerturn.bench.suites import Case, random_cases

NAMED = [((825737, 545), "int8"), ((771864, 905), "int8"), ((110991, 2236), "uint8"), ((4342, 110413), "uint8"),
         ((5, 1062, 59214), "int8"), ((10171, 25381), "uint8"), ((1635, 299470), "uint8"), ((477055, 508), "int16"),
         ((727684, 425), "float16"), ((240101, 420), "bfloat16"), ((983, 83501), "int16"),
         ((20, 4110, 4854), "bfloat16"), ((16383, 16385), "int8"), ((8192, 8192), "int8"), ((6000, 6000), "bfloat16")]
# (output piece bytes, input piece bytes, threads)
CONFIGS = [(256, 64, 256), (256, 128, 256), (512, 64, 256), (512, 128, 512), (256, 128, 512)]
SOURCE = (pathlib.Path(__file__).parent / "realign16_probe.cu").read_text()
_MODULES: dict = {}


def _pitch(at: int, g: int, step: int) -> int:
    while not ((g * at) % 32 % step == 0 and (g * at) % 32 // step % 2 == 1):
        at += 1
    return at


def shared_bytes(size: int, tr: int, tcb: int) -> int:
    """Shape<E, TR, TCB>::SMEM of the .cu file."""
    g, lr, tc = 4 // size, tr + 2 * (16 // size), tcb // size
    return 4 * (lr * _pitch((tcb // 16 + 1) * 4 + 1, g, 8) + tc * _pitch(lr // g + 2, g, 4) + lr)


def kernel(size: int, config):
    trb, tcb, nt = config
    name = f"realign16<{size},{trb // size},{tcb},{nt}>"
    if name not in _MODULES:
        mod = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=[name])
        fn = mod.get_function(name)
        fn.max_dynamic_shared_size_bytes = shared_bytes(size, trb // size, tcb)
        _MODULES[name] = fn
    return _MODULES[name]


def launch(size: int, config, x, out, batch: int, m: int, n: int, order: str = "auto") -> None:
    trb, tcb, nt = config
    tr, tc = trb // size, tcb // size
    tiles_r, tiles_c = -(-m // tr), -(-n // tc)
    xp, op = x.data.ptr, out.data.ptr
    i64 = np.int64
    kernel(size, config)((batch * tiles_r * tiles_c,), (nt,),
                         (np.uint64(xp & ~15), np.uint64(op & ~15), i64(m), i64(n), i64(xp & 15), i64(n * size),
                          i64(m * n * size), i64(op & 15), i64(m * size), i64(m * n * size), i64(tiles_r),
                          i64(tiles_c), np.int32(tiles_r < tiles_c if order == "auto" else order == "rows")),
                         shared_mem=shared_bytes(size, tr, tcb))


def median_time(fn, repeats: int) -> float:
    for _ in range(2):
        fn()
    samples = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return sorted(samples)[len(samples) // 2]


def measure(case: Case, repeats: int, offset: int) -> dict:
    size = case.itemsize
    dtype = np.uint8 if size == 1 else np.int16
    *batch, m, n = case.shape
    count = math.prod(case.shape)
    # `offset` elements into a buffer: the matrix's base is not 16-byte aligned either
    base = cp.random.randint(0, 256, (count + offset) * size, dtype=np.uint8).view(dtype)
    x = base[offset:].reshape(case.shape)
    ref = cp.ascontiguousarray(x.swapaxes(-1, -2))
    out_base = cp.empty((count + offset) * size, np.uint8)
    out = out_base.view(dtype)[offset:].reshape(ref.shape)
    dst = cp.empty_like(x)
    copy_t = median_time(lambda: cp.copyto(dst, x), repeats)
    entry = {"case": case.name, "shape": list(case.shape), "itemsize": size, "offset": offset, "copy_s": copy_t,
             "methods": {}}

    def timed(name, fn):
        out_base.fill(0xA5)
        fn()
        cp.cuda.Device().synchronize()
        ok = bool(cp.array_equal(out.view(np.uint8), ref.view(np.uint8)))
        t = median_time(fn, repeats)
        entry["methods"][name] = {"ok": ok, "s": t, "pct": 100 * copy_t / t}

    plan = cornerturn.plan(tuple(case.shape), dtype, device="cuda")
    timed("engine:" + plan.method, lambda: plan.execute(x, out))
    for config in CONFIGS:
        for order in ("rows", "cols"):
            name = "r16-{}x{}-t{}".format(*config) + "-" + order
            timed(name, lambda config=config, order=order: launch(size, config, x, out, batch[0] if batch else 1,
                                                                   m, n, order))
    return entry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="4242,5151")
    ap.add_argument("--per-seed", type=int, default=6)
    ap.add_argument("--named", type=int, default=len(NAMED))
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    cases = [Case(s, d) for s, d in NAMED[: args.named]]
    for seed in map(int, args.seeds.split(",")):
        cases += [c for c in random_cases(seed, 400, "cuda") if c.itemsize in (1, 2)][: args.per_seed]
    results = []
    for n, case in enumerate(cases):
        entry = measure(case, args.repeats, offset=n % 3)
        results.append(entry)
        print(f"{case.name:34s} off{entry['offset']} " + " ".join(
            f"{k}={v['pct']:.0f}{'' if v['ok'] else '!BAD'}" for k, v in entry["methods"].items()), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    with open(args.out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                   "command": "python3 scripts/realign16_probe.py --out $OUT/realign16.json", "results": results}, f,
                  indent=1)
    summary: dict = {}
    for e in results:
        for k, v in e["methods"].items():
            summary.setdefault("engine" if k.startswith("engine") else k, []).append(v["pct"] if v["ok"] else 0)
    for k, v in summary.items():
        v = sorted(v)
        print(f"{k:18s} min {v[0]:.0f} tenth {v[len(v) // 10]:.0f} median {v[len(v) // 2]:.0f}")


if __name__ == "__main__":
    main()
