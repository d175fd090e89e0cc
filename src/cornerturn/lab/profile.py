"""Nsight Compute counters for the lab kernels, next to the model's numbers.

`counters(...)` runs a kernel once in a child process under `ncu --clock-control none` and reads the sectors per
global request, the shared-memory bank conflicts per shared instruction, how busy DRAM, L2 and L1 were (% of
their peak), the warps resident (% of the SM's maximum) and why warps waited (stall reasons: warps stalled for
that reason per instruction issued).
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
UNITS = {
    "dram": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
}
STALLS = ("long_scoreboard", "barrier", "short_scoreboard", "mio_throttle", "lg_throttle", "wait", "drain",
          "not_selected", "selected", "math_pipe_throttle", "no_instruction", "branch_resolving", "dispatch_stall",
          "membar", "tex_throttle", "imc_miss", "misc", "sleeping")


def _stall_metric(reason: str) -> str:
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


def ncu_path() -> str | None:
    return shutil.which("ncu")


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def counters(name: str, rows: int, cols: int, dtype: str) -> dict:
    ncu = ncu_path()
    if ncu is None:
        raise RuntimeError("Nsight Compute (ncu) is not on the PATH")
    metrics = [*METRICS, *UNITS.values(), *(_stall_metric(r) for r in STALLS)]
    cmd = [ncu, "--clock-control", "none", "--launch-count", "1", "--csv", "--metrics", ",".join(metrics),
           sys.executable, "-m", "cornerturn.lab.profile", name, str(rows), str(cols), dtype]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows_csv = [r for r in csv.reader(io.StringIO(out.stdout)) if len(r) > 5]
    if not rows_csv:
        raise RuntimeError(f"ncu gave no metrics: {(out.stdout + out.stderr).strip()[-400:]}")
    header, values = rows_csv[0], {}
    i_name, i_value = header.index("Metric Name"), header.index("Metric Value")
    for r in rows_csv[1:]:
        try:
            values[r[i_name]] = float(r[i_value].replace(",", "") or 0)
        except ValueError:  # "n/a" for a metric this GPU lacks
            continue
    stalls = {r: values[_stall_metric(r)] for r in STALLS if _stall_metric(r) in values}
    return {
        **{f"{unit}_pct": values.get(metric) for unit, metric in UNITS.items()},
        "stalls": stalls,
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


UNIT_NAMES = {"dram": "DRAM", "l2": "L2", "l1": "L1/shared"}


def view(n: dict) -> dict:
    """Nsight Compute's view of a kernel in the terms of the model's limiters: the busiest memory unit (% of its
    peak) and the two largest stall reasons (share of all stalled warps)."""
    units = {u: n.get(f"{u}_pct") for u in UNIT_NAMES if n.get(f"{u}_pct") is not None}
    unit = max(units, key=lambda u: units[u]) if units else None
    stalls = {k: v for k, v in (n.get("stalls") or {}).items() if k != "selected"}
    total = sum(stalls.values()) or 1.0
    top = sorted(stalls, key=lambda k: -stalls[k])[:2]
    return {"unit": unit, "unit_pct": units.get(unit), "stalls": [(k, stalls[k] / total) for k in top]}


# What Nsight Compute should show when the model names each limiter (the first words of the limiter):
EXPECT = {
    "DRAM": "DRAM or L2 the busiest unit, at 70% of its peak or more",
    "partial-sector stores": "L2 the busiest unit, DRAM at less than half of L2's share",
    "L1 lines": "L1/shared the busiest unit",
    "bank conflicts": "L1/shared the busiest unit",
    "shared memory": "L1/shared the busiest unit",
    "bytes in flight": "warps wait most on loads or at a barrier; no unit at 80% of its peak",
    "barrier stalls": "warps wait most on loads or at a barrier; no unit at 80% of its peak",
}


def limiter_kind(limiter: str) -> str:
    """The key of EXPECT a limiter falls under: its words before the colon ("DRAM pages: ..." is DRAM's)."""
    return "DRAM" if limiter.startswith("DRAM") else limiter.split(":")[0]


def limiter_agrees(limiter: str, n: dict) -> bool | None:
    """Whether Nsight Compute's counters show what the model's limiter says (EXPECT); None when the limiter
    has no counter to check (launch) or the counters are missing."""
    kind = limiter_kind(limiter)
    v = view(n)
    if kind not in EXPECT or v["unit"] is None:
        return None
    unit, pct = v["unit"], v["unit_pct"]
    if kind == "DRAM":
        return unit in ("dram", "l2") and pct >= 70
    if kind == "partial-sector stores":
        return unit == "l2" and (n.get("dram_pct") or 0) < pct / 2
    if kind in ("L1 lines", "bank conflicts", "shared memory"):
        return unit == "l1"
    return bool(v["stalls"]) and v["stalls"][0][0] in ("long_scoreboard", "barrier") and pct < 80


def describe(n: dict) -> str:
    v = view(n)
    if v["unit"] is None:
        return "no counters"
    stalls = ", ".join(f"{k.replace('_', ' ')} {100 * share:.0f}%" for k, share in v["stalls"])
    return f"busiest {UNIT_NAMES[v['unit']]} {v['unit_pct']:.0f}%; stalls: {stalls}"


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
