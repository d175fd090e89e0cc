"""Several GPUs (or CPU processes): transpose a matrix sharded by rows across the ranks of a torch.distributed
process group. Each rank holds a contiguous block of rows of the global M x N matrix (any split, uneven too) and
receives its block of rows of the N x M transpose, rows split as evenly as possible (the first N % P ranks get
one more). NCCL on GPUs, Gloo on CPUs.

    torchrun --nproc-per-node 4 my_script.py      # in it: dist.init_process_group("nccl"), then
    part = cornerturn.distributed.transpose(local_rows)

On GPUs of one host with peer access the copy engine puts each destination's columns straight into its
symmetric-memory workspace and the destination transposes them into place (`direct`); elsewhere the local block
is transposed with cornerturn's kernels into contiguous blocks per destination, exchanged with
`all_to_all_single`, and each source's block is copied into its place in the output rows (`exchange`). Before
any data moves, one small all-gather checks that every rank agrees on the columns, the dtype, the method and the
pieces: a mismatch raises the same ValueError on every rank, never a hang.
"""

from __future__ import annotations

from .direct import release
from .exchange import transpose
from .pieces import output_rows

__all__ = ["output_rows", "release", "transpose"]
