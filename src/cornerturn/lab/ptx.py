"""What numba-cuda makes of each lab kernel for Hopper (sm_90), without a GPU: PTX size, barriers, shared and
local memory, and the signed-index selects that slow numba kernels down.

    python -m cornerturn.lab.ptx [DTYPE]   prints JSON (run without NUMBA_ENABLE_CUDASIM)
"""

from __future__ import annotations

import json
import re
import sys

from .registry import REGISTRY, build


def ptx_of(name: str, dtype: str = "float32", cc: tuple[int, int] = (9, 0)) -> str:
    import numba
    import numpy as np
    from numba import cuda

    t = numba.from_dtype(np.dtype(dtype))
    sig = numba.void(t[:, ::1], t[:, ::1])
    ptx, _ = cuda.compile_ptx(build(name, dtype).py_func, sig, cc=cc)
    return ptx


def stats(ptx: str) -> dict:
    shared = [int(m) for m in re.findall(r"\.shared[^\n]*\[(\d+)\]", ptx)]
    body = [ln for ln in ptx.splitlines() if ln.strip() and not ln.strip().startswith("//")]
    return {
        "lines": len(body),
        "barriers": len(re.findall(r"\bbar\.sync\b|\bbarrier\.sync\b", ptx)),
        "shared_bytes": sum(shared),
        "local_memory": ".local" in ptx,
        "selects": len(re.findall(r"\bselp\.", ptx)),
        "global_loads": len(re.findall(r"\bld\.global", ptx)),
        "global_stores": len(re.findall(r"\bst\.global", ptx)),
    }


def report(dtype: str = "float32") -> dict:
    return {k.name: stats(ptx_of(k.name, dtype)) for k in REGISTRY}


if __name__ == "__main__":
    print(json.dumps(report(sys.argv[1] if len(sys.argv) > 1 else "float32")))
