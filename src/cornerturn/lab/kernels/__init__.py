"""One module per family of classic kernels. Each factory takes a NumPy dtype and returns a @cuda.jit kernel.

Every index is an unsigned 32-bit integer, and every index sum is cast back to uint32 where it is used. With
Python's signed integers numba-cuda emits negative-index wraparound selects on every access; with uint32 alone
it still widens each sum to 64 bits (numba types uint32 + uint32 as uint64), so compares and address arithmetic
run in 64 bits. With both, the code matches nvcc's: on an H200 the padded 32x8-thread kernel went from 3205 to
3510 GB/s against 3544 for the same kernel in CUDA C (docs/lab.md). Apart from those casts, each kernel is the
one a CUDA course shows.
"""

from __future__ import annotations

import numpy as np


def u32(value: int) -> np.uint32:
    """A uint32 constant, so that arithmetic with it stays unsigned."""
    return np.uint32(value)
