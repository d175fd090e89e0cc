"""Nsight Compute counters for the lab kernels, next to the model's numbers.

`profile(...)` runs each kernel once in a child process under `ncu --clock-control none` and reads the
sectors per global request and the shared-memory bank conflicts per shared instruction.
`python -m cornerturn.lab.profile NAME ROWS COLS DTYPE` is that child.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys

METRICS = (
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
)


def ncu_path() -> str | None:
    return shutil.which("ncu")


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def counters(name: str, rows: int, cols: int, dtype: str) -> dict:
    ncu = ncu_path()
    if ncu is None:
        raise RuntimeError("Nsight Compute (ncu) is not on the PATH")
    cmd = [ncu, "--clock-control", "none", "--launch-count", "1", "--csv", "--metrics", ",".join(METRICS),
           sys.executable, "-m", "cornerturn.lab.profile", name, str(rows), str(cols), dtype]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows_csv = [r for r in csv.reader(io.StringIO(out.stdout)) if len(r) > 5]
    if not rows_csv:
        raise RuntimeError(f"ncu gave no metrics: {(out.stdout + out.stderr).strip()[-400:]}")
    header, values = rows_csv[0], {}
    i_name, i_value = header.index("Metric Name"), header.index("Metric Value")
    for r in rows_csv[1:]:
        values[r[i_name]] = float(r[i_value].replace(",", "") or 0)
    return {
        "raw": values,
        "load_sectors_per_request": _ratio(values.get(METRICS[0], 0), values.get(METRICS[1], 0)),
        "store_sectors_per_request": _ratio(values.get(METRICS[2], 0), values.get(METRICS[3], 0)),
        "shared_load_conflicts_per_instruction": _ratio(values.get(METRICS[4], 0), values.get(METRICS[6], 0)),
        "shared_store_conflicts_per_instruction": _ratio(values.get(METRICS[5], 0), values.get(METRICS[7], 0)),
    }


def agrees(measured: float | None, predicted: float) -> bool:
    if measured is None:
        return predicted == 0
    return abs(measured - predicted) <= 0.1 * predicted + 0.25


def _child(name: str, rows: int, cols: int, dtype: str) -> None:
    import numpy as np
    from numba import cuda

    from .registry import build, get, launch_shape
    from .runner import random_input

    kernel = get(name)
    host = random_input(rows, cols, np.dtype(dtype))
    x = cuda.to_device(host)
    out = x if kernel.in_place else cuda.device_array((cols, rows) if kernel.transposes else (rows, cols),
                                                      dtype=host.dtype)
    grid, block = launch_shape(kernel, rows, cols)
    build(kernel, dtype)[grid, block](out, x)
    cuda.synchronize()


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
