"""Probe (not kept): the in-place square kernel with and without the side's alignment told to the compiler.

    python3 scripts/probe_square_align.py --out $OUT [--seed 2411 --cases 20]

Random squares (bench.inplace.random_squares) plus named sides; each plan checked bit for bit, then both timed in
interleaved rounds against torch's copy of the same bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def main() -> int:
    import torch

    from cornerturn.bench.inplace import random_squares
    from cornerturn.engine.inplace import square_default, square_launch, square_word
    from cornerturn.engine.timing import time_cuda

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--seed", type=int, default=2411)
    ap.add_argument("--cases", type=int, default=20)
    args = ap.parse_args()
    cases = [(n, d) for _, n, _, d in random_squares(args.seed, args.cases)]
    cases += [(21332, "float64"), (15590, "float32"), (16382, "float32"), (8190, "complex128"), (12284, "float16")]
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for n, dtype in cases:
        itemsize = torch.empty(0, dtype=getattr(torch, dtype)).element_size()
        x = torch.randint(-128, 127, (n * n * itemsize,), dtype=torch.int8, device="cuda")
        want = x.view(n, n, itemsize).transpose(0, 1).contiguous().view(-1)
        copied = torch.empty_like(x)
        default = square_default(1, n, itemsize, x.data_ptr())
        row = {"case": f"{dtype} {n}x{n}", "kernel": default.kernel.fn.__name__}
        for name, align in (("plain", False), ("hinted", True)):
            if default.kernel.fn.__name__ != "transpose_square_inplace":
                launch = default
            else:
                launch = square_launch(1, n, itemsize, square_word(itemsize, x.data_ptr()), align=align)
            y = x.clone()
            launch.run_pointers(y.data_ptr(), y.data_ptr(), stream, 0)
            torch.cuda.synchronize()
            row[f"{name}_exact"] = bool(torch.equal(y, want))
            row[f"{name}_align"] = launch.constexprs.get("ALIGN")
            del y
        t = {"plain": [], "hinted": [], "copy": []}
        for _ in range(3):  # interleaved rounds
            t["copy"].append(time_cuda(lambda c=copied, x=x: c.copy_(x), repeats=5).median)
            for name, align in (("plain", False), ("hinted", True)):
                launch = default if default.kernel.fn.__name__ != "transpose_square_inplace" else \
                    square_launch(1, n, itemsize, square_word(itemsize, x.data_ptr()), align=align)
                p = x.data_ptr()
                t[name].append(time_cuda(lambda launch=launch, p=p: launch.run_pointers(p, p, stream, 0),
                                         repeats=5).median)
        copy = min(t["copy"])
        for name in ("plain", "hinted"):
            row[f"{name}_pct"] = round(100 * copy / min(t[name]), 1)
        print(row, flush=True)
        rows.append(row)
        del x, want, copied
        torch.cuda.empty_cache()
    Path(args.out, "square-align.json").write_text(json.dumps(
        {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": torch.cuda.get_device_name(),
         "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
