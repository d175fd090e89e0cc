"""The vector kernel's tile for this host: measured at the first plan that needs it, kept in a file per host.

The best tile differs between hosts by more than between shapes: on a 2-core AMD EPYC tiles of 1024 ran 8-byte
elements at 0.96 of each shape's best tile in geometric mean and tiles of 256 at 0.85; on a 2-core Intel Xeon
tiles of 1024 ran at 0.68 and 256 at 0.89 (docs/cpu.md). So each element size's tile is timed here once on three
probe matrices (square, tall, wide; odd sides, so no pitch is a multiple of 512 bytes), in interleaved rounds,
and the tile with the best geometric mean of speed against each matrix's best tile (and where that one is staged,
the best plain one, for inputs the caches hold) is kept in
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
# matrix's best of these in geometric mean over 14 matrices, 128 x 128 at 0.85, 1024 x 1024 at 0.71 (docs/cpu.md).
# And the same staged (each tile first copied row by row into a scratch, so that the input is read along its rows
# and the output written in runs): on a 2-core AMD EPYC, where tiles read down their block columns ran at 3-5 GB/s
# whatever their size and the copy at 10-19, the staged tiles this measurement picked ran at 1.25x-1.35x the plain
# ones it picked before in geometric mean on four fresh seeds' matrices of 12 MiB or more (planner.STAGED_MIN_BYTES;
# smaller ones keep the best plain tile, `HostTile.plain`); docs/cpu.md, "Staged tiles at any pitch"
CANDIDATES = tuple((r, c, staged) for staged in (False, True)
                   for r, c in ((128, 128), (256, 256), (512, 512), (1024, 1024), (128, 1024), (256, 1024))
                   if not staged or r >= 256)
# Input rows a multiple of 512 B apart and at least STAGED_MIN_PITCH (planner.py): plain square tiles, or staged
# ones (each tile copied first into a scratch of shorter pitch). On a 2-core Intel Xeon staged tiles ran ahead on 7
# of 8 such matrices, 1.10x-1.64x the table's plan (int8 16384x16384 9.1 against 6.4 GB/s; docs/cpu.md); on the AMD
# EPYC the table came from, staged bytes and 2-byte elements were behind.
ALIASED_CANDIDATES = ((128, 128, False), (256, 256, False), (512, 512, False), (256, 256, True), (512, 512, True))
PROBE_BYTES = 24 << 20  # each probe matrix: far past L1 and L2, 3-15 ms a transpose on a 2-core machine
ASPECT = 8  # the tall and wide probes' rows / columns
ROUNDS = 5  # each round times every tile once on every probe; the fastest round counts (a shared host stalls some)
SCHEMA = 4  # 4: staged tiles among the candidates at any pitch (2026-12-01)


@dataclass(frozen=True)
class HostTile:
    tile: tuple[int, int]  # rows, columns
    source: str  # "the table" (shipped), or when it was measured on this host
    staged: bool = False
    plain: tuple[int, int] | None = None  # where `tile` is staged: the best plain tile, for inputs the caches hold


Candidate = tuple[int, int, bool]  # rows, columns, staged
_known: dict[tuple[int, bool], HostTile] = {}


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


def probe_shapes(itemsize: int, aliased: bool = False) -> list[tuple[int, int]]:
    """Square, tall and wide matrices of about PROBE_BYTES with odd sides; aliased: rows 16 KiB apart and rows
    9 KiB apart (odd row counts)."""
    if aliased:
        return [(PROBE_BYTES // 16384, 16384 // itemsize), ((PROBE_BYTES // 9216) | 1, 9216 // itemsize)]
    elements = PROBE_BYTES // itemsize
    side = math.isqrt(elements)
    long, short = math.isqrt(elements * ASPECT), math.isqrt(elements // ASPECT)
    return [(side | 1, side | 1), (long | 1, short | 1), (short | 1, long | 1)]


def label(candidate: Candidate) -> str:
    rows, cols, staged = candidate
    return f"{rows}x{cols}{' staged' if staged else ''}"


def best_plain(score: dict[Candidate, float]) -> tuple[int, int] | None:
    """(rows, columns) of the best-scored plain (not staged) tile of `best_tile`'s scores, None if none was timed."""
    plain = [t for t in score if not t[2]]
    if not plain:
        return None
    rows, cols, _ = max(plain, key=lambda t: (score[t], -t[0] * t[1]))
    return rows, cols


def best_tile(seconds: dict[Candidate, list[float]]) -> tuple[Candidate, dict[Candidate, float]]:
    """The tile whose times, each over the best time on the same probe, have the smallest geometric mean; and every
    tile's geometric mean of best time over its time (1.0: the best on every probe)."""
    probes = len(next(iter(seconds.values())))
    best = [min(times[p] for times in seconds.values()) for p in range(probes)]
    score = {tile: math.exp(sum(math.log(best[p] / times[p]) for p in range(probes)) / probes)
             for tile, times in seconds.items()}
    return max(score, key=lambda tile: (score[tile], -tile[0] * tile[1])), score


def measure(itemsize: int, shapes: list[tuple[int, int]] | None = None, rounds: int = ROUNDS,
            candidates: tuple[Candidate, ...] = CANDIDATES) -> tuple[Candidate, dict[Candidate, float]]:
    """Times the threaded vector kernel in each candidate tile (`balanced` on each matrix, as the planner takes it)
    on the probe matrices, in interleaved rounds (each tile once a round, after one untimed call), and returns
    `best_tile` of each tile's fastest round."""
    from .vectors import block_side, vector_kernel

    word = np.dtype(f"u{itemsize}")
    side = block_side(itemsize)
    seconds: dict[Candidate, list[float]] = {tile: [] for tile in candidates}
    for rows, cols in shapes or probe_shapes(itemsize):
        kernels = {(r, c, st): vector_kernel(itemsize, (balanced(rows, r, side), balanced(cols, c, side)), True, st)
                   for r, c, st in candidates}
        x = np.arange(rows * cols, dtype=np.uint64).astype(word).reshape(1, rows, cols)
        out = np.empty((1, cols, rows), word)
        samples: dict[Candidate, list[float]] = {tile: [] for tile in candidates}
        for kernel in kernels.values():
            kernel(x, out)
        for _ in range(rounds):
            for tile, kernel in kernels.items():
                start = time.perf_counter()
                kernel(x, out)
                samples[tile].append(time.perf_counter() - start)
        for tile in candidates:
            seconds[tile].append(min(samples[tile]))
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


def _key(itemsize: int, aliased: bool) -> str:
    return f"{itemsize}{' aliased' if aliased else ''}"


def remeasure(itemsizes: tuple[int, ...] = (1, 2, 4, 8)) -> dict[str, dict]:
    """Measures the tiles of these element sizes again, plain and aliased (`cornerturn tune --device cpu`), whatever
    the file held, and returns their entries by key ("4", "4 aliased"). Plans made before in this process keep
    their tiles."""
    path = cache_file()
    if path is None:
        raise ValueError("CORNERTURN_CACHE_DIR=off: measured tiles would not be kept")
    keys = [(itemsize, aliased) for itemsize in itemsizes for aliased in (False, True)]
    data = _read(path)
    tiles = {k: v for k, v in data.get("tiles", {}).items() if k not in {_key(*key) for key in keys}}
    _write(path, {"schema": SCHEMA, "host": host_name(), "tiles": tiles})
    for itemsize, aliased in keys:
        _known.pop((itemsize, aliased), None)
        vector_tile(itemsize, 0, aliased=aliased, measure_anyway=True)
    return {k: v for k, v in _read(path)["tiles"].items() if k in {_key(*key) for key in keys}}


def vector_tile(itemsize: int, shipped: int, *, aliased: bool = False, measure_anyway: bool = False) -> HostTile:
    """The vector tile for `itemsize`-byte elements on this host, for input rows at any pitch or (aliased) at a
    multiple of 512 B of at least STAGED_MIN_PITCH: from this process's memory, else the host's file, else
    measured now and written there; `shipped` (square) where measuring is off."""
    if (itemsize, aliased) in _known:
        return _known[itemsize, aliased]
    path = cache_file()
    off = os.environ.get("CORNERTURN_CPU_TILES", "").strip().lower() == "shipped" and not measure_anyway
    if off or path is None:
        found = HostTile((shipped, shipped), "the table")
    else:
        data = _read(path)
        key = _key(itemsize, aliased)
        entry = data.get("tiles", {}).get(key)
        if entry is None:
            candidates = ALIASED_CANDIDATES if aliased else CANDIDATES
            (rows, cols, staged), score = measure(itemsize, probe_shapes(itemsize, aliased), candidates=candidates)
            entry = {"tile": [rows, cols], "staged": staged,
                     "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "score": {label(t): round(v, 3) for t, v in score.items()}}
            plain = best_plain(score) if staged and not aliased else None  # for planner.STAGED_MIN_BYTES
            if plain is not None:
                entry["plain"] = list(plain)
            data = {"schema": SCHEMA, "host": host_name(), "tiles": {**data.get("tiles", {}), key: entry}}
            _write(path, data)
        rows, cols = (int(v) for v in entry["tile"])
        plain = tuple(int(v) for v in entry["plain"]) if entry.get("plain") else None
        found = HostTile((rows, cols), f"measured on this host {entry['measured']}", bool(entry.get("staged")), plain)
    _known[itemsize, aliased] = found
    return found
