"""Odd squares of 1- and 2-byte elements in place: transpose_square_inplace (element by element, its defaults)
against transpose_square_funnel (tiles read through aligned 4-byte words) at several tile sizes and warps; each
setting checked bit for bit first, then timed against torch's copy of the same bytes (about 1 GiB of squares).

    python3 scripts/square_funnel_sweep.py   (writes $OUT/square_funnel_sweep.json; needs a GPU)
"""

import json

import torch
from square_sweep import squares, sweep_all

from cornerturn.engine import inplace
from cornerturn.engine.timing import time_cuda

CASES = [(torch.int8, 16383), (torch.int8, 8191), (torch.float16, 16383), (torch.float16, 8191),
         (torch.float16, 4095)]
SETTINGS = [(None, None, 0)] + [(block, warps, 4) for block, warps in ((64, 1), (64, 2), (64, 4), (128, 4),
                                                                       (128, 8))]


def sweep(dtype, n: int, stream: int) -> dict:
    itemsize, batch, x, t_copy, want = squares(dtype, n)
    word = inplace.square_word(itemsize, x.data_ptr())
    out = {}
    for block, warps, funnel in SETTINGS:
        launch = inplace.square_launch(batch, n, itemsize, word, block, warps, funnel=funnel)
        y = x.clone()
        launch.run_pointers(y.data_ptr(), y.data_ptr(), stream, 0)
        exact = bool(torch.equal(y, want))
        del y
        t = time_cuda(lambda lc=launch: lc.run_pointers(x.data_ptr(), x.data_ptr(), stream, 0), repeats=6).median
        setting = f"funnel block={block} warps={warps}" if funnel else "element by element (defaults)"
        key = f"{str(dtype).removeprefix('torch.')} {batch}x{n}x{n} {setting}"
        out[key] = {"bit_exact": exact, "ms": t * 1e3, "pct_copy": 100 * t_copy / t}
        print(key, json.dumps(out[key]), flush=True)
    return out


def main() -> None:
    sweep_all(CASES, sweep, "square_funnel_sweep.json", {"device": torch.cuda.get_device_name()})


if __name__ == "__main__":
    main()
