"""Measure the planner's table on this GPU (see cornerturn.engine.table): for every class of problem, five random
shapes of that class (64 MiB to 1 GiB, so that the choice holds for small and large matrices alike), every
candidate configuration checked bit for bit and timed against torch's copy of the same bytes; the candidate whose
worst shape runs fastest (% of copy; ties within a point broken by the geometric mean) becomes the class's entry.
A choice by the geometric mean of three shapes took, for 2-byte rows of odd pitch, a words kernel that ran 89% on
its shapes and 43% on float16 13624x24065 of the random suite (H200, 2026-11-24).

    python3 scripts/plan_table.py --out $OUT [--install] [--sizes 1,2,4,8,16] [--seed 20261124]

Writes $OUT/<GPU name>.json (with every candidate's figures); --install also writes it to
src/cornerturn/engine/tables/, where the planner reads it. Compiling the candidates dominates the run, so they are
compiled first by a pool of processes (Triton's cache then serves the timing process).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BYTES = (64 << 20, 1 << 30)
SHAPES_PER_CLASS = 5
SIDES = (300, 10**6)
RATIOS = {"tall": (4, 1000), "square": (0.25, 4), "wide": (0.001, 0.25)}


def _meets(n: int, size: int, cls: str) -> bool:
    """Whether rows of n elements of `size` bytes (contiguous) fall in alignment class `cls`."""
    from cornerturn.engine.table import alignment_class

    return alignment_class(n * size, size) == cls


def _nearest(n: int, size: int, cls: str) -> int:
    while not _meets(n, size, cls):
        n += 1
    return n


def shapes_of(key: str, count: int, seed: int) -> list[tuple[int, int]]:
    """`count` random (rows, cols) of class `key`: 64 MiB to 1 GiB (log-uniform, the k-th of `count` in the k-th
    part of that range), sides of 300 and more, the class's aspect ratio."""
    import numpy as np

    size, in_cls, out_cls, shape = key.split("/")
    size = int(size)
    rng = np.random.default_rng([seed, *map(ord, key)])
    found = []
    low, high = map(math.log, BYTES)
    step = (high - low) / count
    while len(found) < count:
        k = len(found)
        elements = math.exp(rng.uniform(low + step * k, low + step * (k + 1))) / size
        ratio = math.exp(rng.uniform(*map(math.log, RATIOS[shape])))  # rows / cols
        rows = int(math.sqrt(elements * ratio))
        cols = int(elements / max(rows, 1))
        if not (SIDES[0] <= min(rows, cols) and max(rows, cols) <= SIDES[1]):
            continue
        rows, cols = _nearest(rows, size, out_cls), _nearest(cols, size, in_cls)
        from cornerturn.engine.table import shape_class

        if shape_class(rows, cols) == shape:
            found.append((rows, cols))
    return found


def tasks(sizes: list[int], seed: int) -> list[dict]:
    from cornerturn.engine.table import every_class

    out = []
    for key in every_class():
        if int(key.split("/")[0]) in sizes:
            out.append({"class": key, "shapes": shapes_of(key, SHAPES_PER_CLASS, seed)})
    return out


def _problem(rows: int, cols: int, size: int):
    from cornerturn.problem import canonical

    return canonical((rows, cols), (cols * size, size), size)


def _compile_one(job: tuple) -> str | None:
    """In a pool process: compile one (shape, candidate) into Triton's cache."""
    rows, cols, size, out_class, index = job
    try:
        from cornerturn.engine import plan as engine_plan
        from cornerturn.engine.table import candidates

        word, config = candidates(size, out_class)[index]
        p = engine_plan.build(_problem(rows, cols, size), word, config)
        for _, _, launch in p.pieces:
            launch._compile((True, True), 1 << 30, 1 << 31, 0)
        return None
    except Exception as exc:  # noqa: BLE001 - reported by the timing process, which tries again
        return f"{rows}x{cols} {size}: {type(exc).__name__}: {exc}"[:300]


def precompile(work: list[dict], workers: int) -> list[str]:
    from cornerturn.engine.table import candidates

    jobs = []
    for t in work:
        size, _, out_class, _ = t["class"].split("/")
        count = len(candidates(int(size), out_class))
        jobs += [(r, c, int(size), out_class, k) for r, c in t["shapes"] for k in range(count)]
    with mp.get_context("spawn").Pool(workers) as pool:
        errors = [e for e in pool.imap_unordered(_compile_one, jobs, chunksize=4) if e]
    return errors


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def choose(figures: dict[str, list[float]]) -> str:
    """The candidate whose slowest shape is fastest; among those within a point of it, the best geometric mean."""
    worst = {n: min(v) for n, v in figures.items()}
    top = max(worst.values())
    near = [n for n in figures if worst[n] >= top - 1.0]
    return max(near, key=lambda n: geomean(figures[n]))


def measure(work: list[dict], progress=print, on_class=None) -> dict:
    import torch

    from cornerturn.engine import plan as engine_plan
    from cornerturn.engine.table import candidates
    from cornerturn.engine.timing import time_cuda
    from cornerturn.engine.tune import config_to_dict

    stream = torch.cuda.current_stream().cuda_stream
    classes = {}
    for t in work:
        size, out_class = int(t["class"].split("/")[0]), t["class"].split("/")[2]
        figures = {}  # candidate name -> [pct per shape]
        shapes = []
        for rows, cols in t["shapes"]:
            x = torch.randint(-128, 127, (rows * cols * size,), dtype=torch.int8, device="cuda")
            out = torch.empty_like(x)
            want = x.view(rows, cols, size).transpose(0, 1).contiguous().view(-1)
            copied = torch.empty_like(x)
            copy_s = time_cuda(lambda copied=copied, x=x: copied.copy_(x), repeats=7).median
            del copied
            shapes.append({"rows": rows, "cols": cols, "copy_ms": copy_s * 1e3})
            problem = _problem(rows, cols, size)
            x_ptr, out_ptr = x.data_ptr(), out.data_ptr()
            for word, config in candidates(size, out_class):
                name = f"{config.name}/{word}"
                try:
                    p = engine_plan.build(problem, word, config)

                    def call(p=p, x_ptr=x_ptr, out_ptr=out_ptr):
                        for xo, oo, launch in p.pieces:
                            launch.run_pointers(x_ptr + xo, out_ptr + oo, stream, 0)

                    out.fill_(-91)
                    call()
                    torch.cuda.synchronize()
                    if not torch.equal(out, want):
                        figures.setdefault(name, []).append(None)
                        progress(f"WRONG: {t['class']} {rows}x{cols} {name}")
                        continue
                    figures.setdefault(name, []).append(100 * copy_s / time_cuda(call, repeats=5).median)
                except Exception as exc:  # noqa: BLE001 - a candidate the compiler or the device refuses
                    figures.setdefault(name, []).append(None)
                    progress(f"failed: {t['class']} {rows}x{cols} {name}: {str(exc)[:120]}")
            x = out = want = None
        scored = {n: geomean(v) for n, v in figures.items() if None not in v}
        best = choose({n: figures[n] for n in scored})
        word, config = next((w, c) for w, c in candidates(size, out_class) if f"{c.name}/{w}" == best)
        classes[t["class"]] = {"config": config_to_dict(config), "word": word, "pct": round(scored[best], 1),
                               "worst": round(min(figures[best]), 1),
                               "shapes": shapes,
                               "candidates": {n: [None if p is None else round(p, 1) for p in v]
                                              for n, v in figures.items()}}
        progress(f"{t['class']:18s} {best:28s} {scored[best]:5.1f}% (worst {min(figures[best]):5.1f}%, "
                 f"of {len(scored)})")
        if on_class is not None:
            on_class(classes)
    return classes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--install", action="store_true", help="also write the table where the planner reads it")
    ap.add_argument("--sizes", default="1,2,4,8,16")
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    args = ap.parse_args()
    import torch

    from cornerturn.engine.table import TABLES, _slug

    start = time.time()
    work = tasks([int(s) for s in args.sizes.split(",")], args.seed)
    errors = precompile(work, args.workers)
    print(f"compiled {sum(len(t['shapes']) for t in work)} shapes' candidates in {time.time() - start:.0f} s "
          f"({len(errors)} failed)", flush=True)
    device = torch.cuda.get_device_name()

    def table_of(classes: dict) -> dict:
        return {"schema": 1, "device": device, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "command": " ".join(["python3", *sys.argv]), "seed": args.seed, "classes": classes,
                "compile_errors": errors[:20], "seconds": round(time.time() - start)}

    def write(classes: dict) -> None:  # after every class, so that a run cut short keeps what it measured
        Path(args.out, f"{_slug(device)}.json").write_text(json.dumps(table_of(classes), indent=1))

    classes = measure(work, progress=lambda s: print(s, flush=True), on_class=write)
    table = table_of(classes)
    write(classes)
    if args.install:  # the planner's copy: each class's choice and its figures, without every candidate's
        TABLES.mkdir(exist_ok=True)
        compact = {**table, "classes": {k: {f: v for f, v in c.items() if f != "candidates"}
                                        for k, c in classes.items()}}
        (TABLES / f"{_slug(device)}.json").write_text(json.dumps(compact, indent=1))
    print(f"{len(classes)} classes in {time.time() - start:.0f} s; wrote {_slug(device)}.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
