"""The planner's table: for each class of problem, the configuration that ran fastest on a grid of shapes of that
class on a named GPU.

A class is (element size, how the input's rows are aligned, how the output's rows are aligned, the matrix's shape):
what decides which kernel and tile move a matrix fastest, whatever its sides. Alignment classes follow what the
kernels can use: for 1- and 2-byte elements (moved as 32-bit words) whether rows start at 16-byte boundaries, at
whole words, or anywhere ("16", "4", "odd"); for wider elements whether the row pitch, in elements, is a multiple
of 16, the divisibility Triton specialises on ("16", "other"). Shapes are "tall" (at least ASPECT times more rows
than columns), "wide" (the reverse) or "square". `scripts/plan_table.py` measures every candidate of
`candidates(cls)` on random shapes of each class (five per class, 64 MiB to 1 GiB) and keeps the candidate whose
worst shape runs fastest; the tables ship in
engine/tables/, one per GPU, and a GPU without one uses the nearest of them (by name; the H200's otherwise).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ..problem import Problem
from .configs import PairsConfig, TileConfig, WordsConfig, pairs_ok, words_candidates, words_ok

TABLES = Path(__file__).parent / "tables"
ASPECT = 4
SIZES = (1, 2, 4, 8, 16)
SHAPES = ("tall", "square", "wide")
FALLBACK = "NVIDIA H200"


def alignment_class(pitch: int, itemsize: int) -> str:
    """How rows `pitch` bytes apart are aligned, in the terms that matter to the kernels of this element size."""
    if itemsize <= 2:
        return "16" if pitch % 16 == 0 else "4" if pitch % 4 == 0 else "odd"
    word = min(itemsize, 8)
    return "16" if pitch % (16 * word) == 0 else "other"


def alignment_classes(itemsize: int) -> tuple[str, ...]:
    return ("16", "4", "odd") if itemsize <= 2 else ("16", "other")


def shape_class(rows: int, cols: int) -> str:
    if rows >= ASPECT * cols:
        return "tall"
    if cols >= ASPECT * rows:
        return "wide"
    return "square"


def class_of(problem: Problem, out_row_stride: int | None = None, offsets: tuple[int, int] = (0, 0)) -> str | None:
    """The class key of a transpose with contiguous columns, e.g. "1/odd/4/tall"; None for other problems. `offsets`:
    the bytes by which x and out start past a whole word (their rows start as much further on)."""
    if problem.kind != "transpose" or problem.col_stride != problem.itemsize or problem.itemsize not in SIZES:
        return None
    size = problem.itemsize
    x_off, out_off = offsets
    pitches = [problem.row_stride, *problem.batch_strides[-1:], *([x_off] if x_off else [])]
    in_class = max((alignment_class(p, size) for p in pitches), key=alignment_classes(size).index)  # the worst
    out_pitch = out_row_stride if out_row_stride is not None else problem.rows * size
    out_class = max((alignment_class(p, size) for p in [out_pitch, *([out_off] if out_off else [])]),
                    key=alignment_classes(size).index)
    return f"{size}/{in_class}/{out_class}/{shape_class(problem.rows, problem.cols)}"


def every_class() -> list[str]:
    return [f"{size}/{i}/{o}/{shape}" for size in SIZES for i in alignment_classes(size)
            for o in alignment_classes(size) for shape in SHAPES]


def candidates(itemsize: int, out_class: str | None = None) -> list[tuple[int, object]]:
    """(word, configuration) pairs the table chooses among for an element size (and a class of output rows: the
    words kernel's ways of writing rows that start inside a word are candidates where they do)."""
    if itemsize <= 2:
        words = [(4, c) for c in words_candidates(items=out_class in (None, "odd"))]
        tiles = {1: ((64, 128, 4), (128, 64, 4), (64, 256, 8)), 2: ((64, 64, 4), (128, 64, 8), (32, 128, 4))}
        return words + [(itemsize, TileConfig(*t)) for t in tiles[itemsize]]
    if itemsize == 4:
        return [(4, TileConfig(*t)) for t in ((32, 32, 4), (64, 64, 4), (64, 64, 8), (32, 128, 4), (64, 128, 8),
                                              (128, 64, 8), (128, 32, 4), (256, 32, 8), (32, 64, 8), (16, 128, 4))]
    if itemsize == 8:
        return [(8, TileConfig(*t)) for t in ((32, 32, 4), (64, 32, 4), (64, 32, 8), (128, 32, 8), (32, 64, 8),
                                              (64, 64, 8), (16, 64, 4), (128, 16, 4))]
    return [(8, PairsConfig(*t)) for t in ((32, 64, 8), (32, 32, 8), (32, 16, 8), (16, 32, 8), (64, 16, 8),
                                           (32, 32, 4))] + [(8, TileConfig(8, 32, 8))]


def fits(problem: Problem, word: int, config) -> bool:
    """Whether a table's choice applies to this problem (its kernel takes it)."""
    if isinstance(config, WordsConfig):
        return word == 4 and words_ok(problem)
    if isinstance(config, PairsConfig):
        return pairs_ok(problem, word)
    return True


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


def table_path(device_name: str) -> Path:
    return TABLES / f"{_slug(device_name)}.json"


@functools.lru_cache(maxsize=16)
def load(device_name: str) -> dict:
    """The table measured on this GPU, else the nearest one shipped (same name but for a suffix, e.g. "NVIDIA H100
    80GB HBM3" for "NVIDIA H100 PCIe"), else the H200's; {} where none ships."""
    path = table_path(device_name)
    if not path.exists():
        shipped = sorted(TABLES.glob("*.json"))
        family = _slug(" ".join(device_name.split()[:2]))
        near = [p for p in shipped if p.stem.startswith(family)]
        path = near[0] if near else table_path(FALLBACK)
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def lookup(problem: Problem, device_name: str, word: int | None = None,
           out_row_stride: int | None = None, offsets: tuple[int, int] = (0, 0)) -> tuple[int, object, str] | None:
    """(word, configuration, reason) the table gives for this problem on this GPU, or None (no class, no entry, or
    its kernel does not take the problem, or `word` was fixed to another one)."""
    from .tune import config_from_dict

    key = class_of(problem, out_row_stride, offsets)
    table = load(device_name)
    entry = table.get("classes", {}).get(key) if key else None
    if entry is None:
        return None
    chosen_word, config = entry["word"], config_from_dict(entry["config"])
    if (word is not None and word != chosen_word) or not fits(problem, chosen_word, config):
        return None
    # a class measured again on its own (scripts/plan_table.py --sizes) carries the date of that measurement
    return chosen_word, config, f"table {key} ({table.get('device')}, {entry.get('date', table.get('date'))})"
