"""cornerturn: matrix transposition (corner turning) at the memory-bandwidth limit, and a lab of the classic
CUDA transpose kernels.

    >>> import numpy as np, cornerturn
    >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> cornerturn.transpose(x)
    array([[0., 3.],
           [1., 4.],
           [2., 5.]], dtype=float32)
"""

from __future__ import annotations

import sys

from .api import Plan, permute_dims, plan, transpose, transpose_
from .errors import BackendUnavailableError
from .problem import Permutation, Problem, canonical, canonical_permutation

if sys.modules.get("torch") is not None:  # torch imported first: cornerturn's torch operators now (torch_ops says why)
    from . import torch_ops

    torch_ops.register()
else:  # else the moment torch is imported, before any torch.compile can trace a call
    from . import torch_watch

    torch_watch.install()

__version__ = "0.1.0"

__all__ = ["BackendUnavailableError", "Permutation", "Plan", "Problem", "__version__", "canonical",
           "canonical_permutation", "permute_dims", "plan", "transpose", "transpose_"]
