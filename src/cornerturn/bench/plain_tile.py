"""A plain Triton transpose, as a peer: one 64 x 64 tile a program, loaded along the input's rows and stored along
the output's rows, Triton's layout conversion between them; elements moved as integers of their size. It is the
kernel a user would write in ten lines, so cornerturn must beat it on every shape."""

from __future__ import annotations

import functools

TILE = 64
_WORDS = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


@functools.cache
def _kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def plain_tile_transpose(x_ptr, out_ptr, rows, cols, tiles_c, TILE: tl.constexpr):
        pid, b = tl.program_id(0), tl.program_id(1)
        r = (pid // tiles_c) * TILE + tl.arange(0, TILE)
        c = (pid % tiles_c) * TILE + tl.arange(0, TILE)
        mask = (r[:, None] < rows) & (c[None, :] < cols)
        base = b.to(tl.int64) * rows * cols
        tile = tl.load(x_ptr + base + r[:, None].to(tl.int64) * cols + c[None, :], mask=mask)
        tl.store(out_ptr + base + c[None, :].to(tl.int64) * rows + r[:, None], tile, mask=mask)

    return plain_tile_transpose


def supports(itemsize: int) -> bool:
    return itemsize in _WORDS


def make(x, out):
    """A call that writes the transpose of the C-contiguous torch CUDA tensor `x` ((..., M, N)) into `out`."""
    import torch

    word = getattr(torch, _WORDS[x.element_size()])
    rows, cols = x.shape[-2], x.shape[-1]
    batch = x.numel() // max(rows * cols, 1)
    src, dst = x.view(word), out.view(word)
    tiles_c = -(-cols // TILE)
    grid = (-(-rows // TILE) * tiles_c, batch)
    kernel = _kernel()
    return lambda: kernel[grid](src, dst, rows, cols, tiles_c, TILE=TILE, num_warps=4)
