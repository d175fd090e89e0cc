"""One module per family of classic kernels. Each factory takes a NumPy dtype and returns a @cuda.jit kernel.

Every index is an unsigned 32-bit integer (`u32(...)`): with Python's signed integers numba-cuda emits
negative-index wraparound selects and 64-bit arithmetic on every access; with uint32 the PTX matches nvcc's
(180 PTX lines against 277 for the padded tile kernel). Apart from those casts, each kernel is the one a CUDA
course shows.
"""

from __future__ import annotations

import numpy as np


def u32(value: int) -> np.uint32:
    """A uint32 constant, so that arithmetic with it stays unsigned."""
    return np.uint32(value)
