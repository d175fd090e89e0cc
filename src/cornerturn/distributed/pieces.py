"""What both methods of the row-sharded transpose share: how rows and pieces are split, and the local transpose of
a block into its columns of the output."""

from __future__ import annotations

from typing import Any


def output_rows(n: int, ranks: int) -> list[int]:
    """Rows of the N x M transpose on each rank: as even as possible, the first N % P ranks one more."""
    return [n // ranks + (1 if r < n % ranks else 0) for r in range(ranks)]


def transpose_into(src: Any, dst: Any) -> None:
    """dst[:] = src.T for 2-D torch tensors, `dst` a column block of a wider row-major matrix: on the GPU one
    launch of the engine writing rows dst.stride(0) elements apart (in narrower words where an address is not
    aligned to the natural ones: engine.runtime.narrowed_for), elsewhere (or where the words do not fit that
    stride) a transpose and a copy."""
    from ..api import transpose as local_transpose

    if dst.is_cuda and dst.stride(1) == 1 and src.numel():
        from .. import engine
        from ..engine.configs import natural_word, word_size, words_ok
        from ..engine.runtime import run_pointers
        from ..problem import canonical

        size = src.element_size()
        problem = canonical(tuple(src.shape), tuple(st * size for st in src.stride()), size)
        word = natural_word(problem) if problem.kind == "transpose" else 0
        stride = dst.stride(0) * size
        if word and stride % word and not words_ok(problem):  # the words kernel takes rows any length apart
            word = word_size(problem)
        if word and not problem.batch and stride % word == 0:
            device = dst.device.index
            plan = engine.choose_strided_out(problem, f"cuda:{device}", word, stride)
            run_pointers(plan, src.data_ptr(), dst.data_ptr(), device)
            return
    dst.copy_(local_transpose(src))


def part(n: int, chunks: int, k: int) -> tuple[int, int]:
    """The k-th of `chunks` nearly equal ranges of range(n)."""
    return (n * k // chunks, n * (k + 1) // chunks)
