"""The GPU engine: Triton kernels, planned per canonical problem (heuristic or autotuned), launched cheaply.

Nothing here imports triton or torch until a GPU array arrives: `choose` and `run` import what they need.
"""

from __future__ import annotations

import functools

from ..errors import BackendUnavailableError
from ..problem import Permutation, Problem


def _require() -> None:
    missing = []
    for module in ("triton", "torch"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise BackendUnavailableError(
            "GPU engine", f"{' and '.join(missing)} not installed (pip install 'cornerturn[gpu]')")
    import torch

    if not torch.cuda.is_available():
        raise BackendUnavailableError("GPU engine", "torch sees no CUDA device (torch.cuda.is_available() is False)")


TABLE_MIN_SIDE = 256  # the table's classes were measured on matrices with sides of 300 and more
TABLE_MIN_BYTES = 1 << 20  # smaller matrices keep the heuristic's small tiles (configs.SMALL_BYTES)


@functools.lru_cache(maxsize=4096)
def choose(problem: Problem | Permutation, device: str, word: int | None = None, autotune: bool = False):
    """The engine plan for `problem` on `device`: a tuned configuration from the cache if there is one
    (measured now if `autotune`), else the planner's table for this GPU (engine.table) where the problem is of a
    class it holds, else the heuristic's. `word` fixes the word (narrower, where an address is not aligned)."""
    _require()
    if isinstance(problem, Permutation):
        from . import permute
        from .tune import tuned_permutation

        if word is None:  # a word fixed by unaligned addresses keeps the planner's plan
            tuned_word, config, reason = tuned_permutation(problem, device, measure=autotune)
            if config is not None:
                return permute.build(problem, tuned_word, config, reason)
        return permute.build(problem, word or permute.natural_word(problem))
    from .configs import natural_word
    from .plan import build
    from .tune import tuned_config

    fixed, word = word, word or natural_word(problem)
    config, reason = tuned_config(problem, device, word, measure=autotune)
    if config is None and (problem.kind == "transpose" and min(problem.rows, problem.cols) >= TABLE_MIN_SIDE
                           and problem.elements * problem.itemsize > TABLE_MIN_BYTES):
        from .table import lookup

        hit = lookup(problem, device_name(device), fixed)
        if hit is not None:
            word, config, reason = hit
    if config is None:
        from .configs import skinny, small_matrices

        hit = skinny(problem, fixed)
        if hit is not None:
            word, config, reason = hit
        small = small_matrices(problem, config, word)
        if small is not None and (fixed is None or fixed == small[0]):
            word, config, reason = small
    return build(problem, word, config, reason)


@functools.lru_cache(maxsize=1024)
def choose_offsets(problem: Problem, device: str, offsets: tuple[int, int]):
    """The plan for x and out that start `offsets` bytes past a whole word, for 1- and 2-byte elements that
    `words_ok` takes: the table's choice for the class those starts make (a words tile, told the offsets, so that it
    reads from and writes to the whole words before them; or a tile of elements), else the skinny rules' tile where
    they give a words or an element tile (transpose_narrow, transpose_interleave and transpose_split need whole
    words), else the heuristic's words tile."""
    from .configs import TileConfig, WordsConfig, heuristic, skinny
    from .plan import build

    _require()
    config, reason = heuristic(problem, 4), "heuristic"
    rule = skinny(problem, split=False)
    if rule is not None and isinstance(rule[1], TileConfig):
        return build(problem, *rule)  # elements, which lie at whole elements whatever the offsets
    if rule is not None and isinstance(rule[1], WordsConfig):
        _, config, reason = rule
    if min(problem.rows, problem.cols) >= TABLE_MIN_SIDE and problem.elements * problem.itemsize > TABLE_MIN_BYTES:
        from .table import lookup

        hit = lookup(problem, device_name(device), offsets=offsets)
        if hit is not None and not isinstance(hit[1], WordsConfig):
            return build(problem, *hit)  # elements, which lie at whole elements whatever the offsets
        if hit is not None:
            _, config, reason = hit
    return build(problem, 4, config, f"{reason}; x and out {offsets[0]} and {offsets[1]} bytes past a word",
                 offsets=offsets)


@functools.lru_cache(maxsize=64)
def device_name(device: str) -> str:
    """The GPU's name, e.g. "NVIDIA H200", for "cuda:N"."""
    import torch

    return torch.cuda.get_device_name(int(device.split(":")[1]))


@functools.lru_cache(maxsize=1024)
def choose_strided_out(problem: Problem, device: str, word: int, out_row_stride: int):
    """`choose`'s configuration for one matrix written into output rows `out_row_stride` bytes apart."""
    from .plan import build

    chosen = choose(problem, device, word)
    return build(problem, word, chosen.config, f"{chosen.reason}; output rows {out_row_stride} B apart",
                 out_row_stride=out_row_stride)


def run(plan, x, out) -> None:
    """Run an engine plan from the GPU array view `x` into `out` on the caller's current stream."""
    from .runtime import run_views

    run_views(plan, x, out)
