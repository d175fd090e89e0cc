"""The GPU engine: Triton kernels, planned per canonical problem (heuristic or autotuned), launched cheaply.

Nothing here imports triton or torch until a GPU array arrives: `choose` and `run` import what they need.
"""

from __future__ import annotations

import functools

from ..errors import BackendUnavailableError
from ..problem import Problem


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


@functools.lru_cache(maxsize=4096)
def choose(problem: Problem, device: str, word: int | None = None, autotune: bool = False):
    """The engine plan for `problem` on `device`: a tuned configuration from the cache if there is one
    (measured now if `autotune`), the heuristic's otherwise."""
    _require()
    from .configs import natural_word
    from .plan import build
    from .tune import tuned_config

    word = word or natural_word(problem)
    config, reason = tuned_config(problem, device, word, measure=autotune)
    return build(problem, word, config, reason)


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
