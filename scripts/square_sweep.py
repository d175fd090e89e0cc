"""Block and warps of the in-place square kernel (transpose_square_inplace) per element size, on sides that are
and are not a multiple of 16; each setting checked bit for bit first, then timed against torch's copy of the same
bytes (about 1 GiB of squares per case). Each setting with the store pointers kept across the barrier and
computed after it (READDRESS).

    DTYPES=int8,float16 FLAT=0 [SIDES=4095,8191] python3 scripts/square_sweep.py   (writes $OUT/square_sweep.json;
    needs a GPU; FLAT=0 or 1 sweeps one form of the tiles only, default both)
"""

import json
import os

import torch

from cornerturn.engine import inplace
from cornerturn.engine.timing import time_cuda

CASES = [(torch.int8, (16384, 16383)), (torch.float16, (16384, 16383)), (torch.float32, (16384, 16383, 8191)),
         (torch.complex128, (8192, 8191, 4095))]
if os.environ.get("DTYPES"):  # e.g. DTYPES=complex128
    CASES = [c for c in CASES if str(c[0]).removeprefix("torch.") in os.environ["DTYPES"].split(",")]
if os.environ.get("SIDES"):  # e.g. SIDES=4095,8191: these sides for every element size
    CASES = [(dtype, tuple(int(v) for v in os.environ["SIDES"].split(","))) for dtype, _ in CASES]


def squares(dtype, n: int):
    """About 1 GiB of random n-squares as bytes: (itemsize, batch, the bytes, the time of their copy, their
    transpose)."""
    itemsize = torch.empty((), dtype=dtype).element_size()
    batch = max(1, (1 << 30) // (n * n * itemsize))
    x = torch.randint(0, 255, (batch * n * n * itemsize,), dtype=torch.uint8, device="cuda")
    copied = torch.empty_like(x)
    t_copy = time_cuda(lambda: copied.copy_(x), repeats=5).median
    want = x.view(batch, n, n * itemsize).view(dtype).transpose(1, 2).contiguous().view(-1).view(torch.uint8)
    return itemsize, batch, x, t_copy, want


def sweep(dtype, n: int, stream: int) -> dict:
    itemsize, batch, x, t_copy, want = squares(dtype, n)
    word = inplace.square_word(itemsize, x.data_ptr())
    out = {}
    flats = (False, True) if os.environ.get("FLAT", "both") == "both" else (os.environ["FLAT"] == "1",)
    readdress = (False, True)
    settings = [(b, w, f, r) for b in (16, 32, 64, 128) for w in (4, 8, 16) for f in flats for r in readdress]
    for block, warps, flat, again in settings:
        if block * block * itemsize > 64 * 1024 or block * block < 32 * warps or (warps == 16 and block < 64):
            continue
        launch = inplace.square_launch(batch, n, itemsize, word, block, warps, flat, again)
        y = x.clone()
        launch.run_pointers(y.data_ptr(), y.data_ptr(), stream, 0)
        exact = bool(torch.equal(y, want))
        del y
        t = time_cuda(lambda lc=launch: lc.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0), repeats=6).median
        key = (f"{str(dtype).removeprefix('torch.')} {batch}x{n}x{n} block={block} warps={warps}"
               + (" flat" if flat else "") + (" readdress" if again else ""))
        out[key] = {"bit_exact": exact, "ms": t * 1e3, "pct_copy": 100 * t_copy / t}
        print(key, json.dumps(out[key]), flush=True)
    return out


def sweep_all(cases, sweep_one, name: str, out: dict | None = None) -> None:
    """sweep_one(dtype, n, stream) for each (dtype, n) of `cases`, its results gathered into $OUT/`name`."""
    out = {} if out is None else out
    stream = torch.cuda.current_stream().cuda_stream
    for dtype, n in cases:
        out.update(sweep_one(dtype, n, stream))
        torch.cuda.empty_cache()
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    with open(os.path.join(os.environ.get("OUT", "."), name), "w") as f:
        json.dump(out, f, indent=1)


def main() -> None:
    sweep_all([(dtype, n) for dtype, sides in CASES for n in sides], sweep, "square_sweep.json")


if __name__ == "__main__":
    main()
