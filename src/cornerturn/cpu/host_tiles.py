"""The vector kernel's tile for this host: measured at the first plan that needs it, kept in a file per host.

The best tile differs between hosts by more than between shapes: on a 2-core AMD EPYC tiles of 1024 ran 8-byte
elements at 0.96 of each shape's best tile in geometric mean and tiles of 256 at 0.85; on a 2-core Intel Xeon
tiles of 1024 ran at 0.68 and 256 at 0.89 (docs/cpu.md). So each element size's tile is timed here once on three
probe matrices (square, tall, wide; odd sides, so no pitch is a multiple of 512 bytes), in interleaved rounds,
and the tile with the best geometric mean of speed against each matrix's best tile is kept in
`$CORNERTURN_CACHE_DIR/cpu-tiles-HOST.json`. `CORNERTURN_CPU_TILES=shipped` takes the shipped table instead
(`planner.VECTOR_TILE`), as does `CORNERTURN_CACHE_DIR=off`; `cornerturn tune --device cpu` measures again.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# (rows, columns) of input a tile covers: square tiles, and tiles of few rows and long columns (read down fewer
# rows at a time, each row's lines used for longer); on a 2-core Intel Xeon 256 x 1024 ran at 0.90 of each
# matrix's best of these in geometric mean over 14 matrices, 128 x 128 at 0.85, 1024 x 1024 at 0.71 (docs/cpu.md)
CANDIDATES = ((128, 128), (256, 256), (512, 512), (1024, 1024), (128, 1024), (256, 1024))
PROBE_BYTES = 24 << 20  # each probe matrix: far past L1 and L2, 3-15 ms a transpose on a 2-core machine
ASPECT = 8  # the tall and wide probes' rows / columns
ROUNDS = 3  # each round times every tile once on every probe; the median round counts
SCHEMA = 2


@dataclass(frozen=True)
class HostTile:
    tile: tuple[int, int]  # rows, columns
    source: str  # "the table" (shipped), or when it was measured on this host


_known: dict[int, HostTile] = {}


def host_name() -> str:
    """The CPU's model name and the threads the kernels use (the tile is a property of both)."""
    import numba

    from ..info import cpu_model

    return f"{cpu_model()}, {numba.get_num_threads()} threads"


def cache_file() -> Path | None:
    from ..engine.tune import cache_dir

    folder = cache_dir()
    if folder is None:
        return None
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", host_name()).strip("-") or "cpu"
    return folder / f"cpu-tiles-{slug}.json"


def tiles_along(extent: int, tile: int) -> int:
    """Tiles across `extent` elements for a measured tile of `tile`: as many whole tiles as fit, at least one (the
    remainder is shared among them instead of left as a thin last tile)."""
    return max(1, extent // tile)


def balanced(extent: int, tile: int, side: int) -> int:
    """The tile's size across `extent` when `tiles_along` tiles share it evenly, rounded up to whole blocks of
    `side`: 393 rows in tiles of 256 make one tile of 394, 1186 columns in tiles of 1024 one of 1200 (bytes). On a
    2-core Intel Xeon such tiles ran at 0.93x-2.0x the plain ones on 14 matrices, ahead on 10 (docs/cpu.md)."""
    share = -(-extent // tiles_along(extent, tile))
    return max(side, -(-share // side) * side)


def probe_shapes(itemsize: int) -> list[tuple[int, int]]:
    """Square, tall and wide matrices of about PROBE_BYTES with odd sides."""
    elements = PROBE_BYTES // itemsize
    side = math.isqrt(elements)
    long, short = math.isqrt(elements * ASPECT), math.isqrt(elements // ASPECT)
    return [(side | 1, side | 1), (long | 1, short | 1), (short | 1, long | 1)]


def best_tile(seconds: dict[tuple[int, int], list[float]]) -> tuple[tuple[int, int], dict[tuple[int, int], float]]:
    """The tile whose times, each over the best time on the same probe, have the smallest geometric mean; and every
    tile's geometric mean of best time over its time (1.0: the best on every probe)."""
    probes = len(next(iter(seconds.values())))
    best = [min(times[p] for times in seconds.values()) for p in range(probes)]
    score = {tile: math.exp(sum(math.log(best[p] / times[p]) for p in range(probes)) / probes)
             for tile, times in seconds.items()}
    return max(score, key=lambda tile: (score[tile], -tile[0] * tile[1])), score


def measure(itemsize: int, shapes: list[tuple[int, int]] | None = None, rounds: int = ROUNDS,
            candidates: tuple[tuple[int, int], ...] = CANDIDATES
            ) -> tuple[tuple[int, int], dict[tuple[int, int], float]]:
    """Times the threaded vector kernel in each candidate tile (`balanced` on each matrix, as the planner takes it)
    on the probe matrices, in interleaved rounds (each tile once a round, after one untimed call), and returns
    `best_tile` of the median rounds."""
    from .vectors import block_side, vector_kernel

    word = np.dtype(f"u{itemsize}")
    side = block_side(itemsize)
    seconds: dict[tuple[int, int], list[float]] = {tile: [] for tile in candidates}
    for rows, cols in shapes or probe_shapes(itemsize):
        kernels = {(r, c): vector_kernel(itemsize, (balanced(rows, r, side), balanced(cols, c, side)), True)
                   for r, c in candidates}
        x = np.arange(rows * cols, dtype=np.uint64).astype(word).reshape(1, rows, cols)
        out = np.empty((1, cols, rows), word)
        samples: dict[tuple[int, int], list[float]] = {tile: [] for tile in candidates}
        for kernel in kernels.values():
            kernel(x, out)
        for _ in range(rounds):
            for tile, kernel in kernels.items():
                start = time.perf_counter()
                kernel(x, out)
                samples[tile].append(time.perf_counter() - start)
        for tile in candidates:
            seconds[tile].append(sorted(samples[tile])[len(samples[tile]) // 2])
    return best_tile(seconds)


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if data.get("schema") != SCHEMA or data.get("host") != host_name():
        return {}
    return data


def _write(path: Path, data: dict) -> None:
    """Writes the file whole or not at all; a folder that cannot be written leaves the tiles in this process only."""
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()


def remeasure(itemsizes: tuple[int, ...] = (1, 2, 4, 8)) -> dict[int, dict]:
    """Measures the tiles of these element sizes again (`cornerturn tune --device cpu`), whatever the file held, and
    returns their entries. Plans made before in this process keep their tiles."""
    path = cache_file()
    if path is None:
        raise ValueError("CORNERTURN_CACHE_DIR=off: measured tiles would not be kept")
    data = _read(path)
    tiles = {k: v for k, v in data.get("tiles", {}).items() if int(k) not in itemsizes}
    _write(path, {"schema": SCHEMA, "host": host_name(), "tiles": tiles})
    for itemsize in itemsizes:
        _known.pop(itemsize, None)
        vector_tile(itemsize, 0, measure_anyway=True)
    return {int(k): v for k, v in _read(path)["tiles"].items() if int(k) in itemsizes}


def vector_tile(itemsize: int, shipped: int, *, measure_anyway: bool = False) -> HostTile:
    """The plain (unaliased, unstaged) vector tile for `itemsize`-byte elements on this host: from this process's
    memory, else the host's file, else measured now and written there; `shipped` where measuring is off."""
    if itemsize in _known:
        return _known[itemsize]
    path = cache_file()
    off = os.environ.get("CORNERTURN_CPU_TILES", "").strip().lower() == "shipped" and not measure_anyway
    if off or path is None:
        found = HostTile((shipped, shipped), "the table")
    else:
        data = _read(path)
        entry = data.get("tiles", {}).get(str(itemsize))
        if entry is None:
            tile, score = measure(itemsize)
            entry = {"tile": list(tile), "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "score": {f"{r}x{c}": round(v, 3) for (r, c), v in score.items()}}
            data = {"schema": SCHEMA, "host": host_name(), "tiles": {**data.get("tiles", {}), str(itemsize): entry}}
            _write(path, data)
        rows, cols = (int(v) for v in entry["tile"])
        found = HostTile((rows, cols), f"measured on this host {entry['measured']}")
    _known[itemsize] = found
    return found
