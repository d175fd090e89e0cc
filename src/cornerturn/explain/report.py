"""The lab's table, JSON and bar chart: measured figures next to the model's (the layer above the lab's runs and
the model)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from rich.table import Table

from ..lab.calibrate import DeviceConstants
from ..lab.registry import get
from ..lab.runner import LabReport
from .model import model
from .speed import predict

BASELINE = "naive-rows"


def rows(report: LabReport, constants: DeviceConstants, profile: dict | None = None) -> list[dict]:
    """One dict per kernel: measured figures (GB/s, % of the device copy and of the copy kernel, x naive) beside
    the model's (GB/s, model / measured, limiter, sectors and bank ways)."""
    import numpy as np

    itemsize = np.dtype(report.dtype).itemsize
    copy = report.get("copy")
    naive = report.get(BASELINE)
    out = []
    for r in report.results:
        m = model(r.kernel, itemsize)
        p = predict(r.kernel, report.rows, report.cols, itemsize, constants, r.registers or 32)
        row = {
            "kernel": r.kernel, "verified": r.verified, "gbps": r.gbps, "median_ms": r.median_ms,
            "pct_of_device_copy": 100 * r.gbps / report.device_copy_gbps
            if r.gbps and report.device_copy_gbps else None,
            "pct_of_copy": 100 * r.gbps / copy.gbps if r.gbps and copy and copy.gbps else None,
            "pct_of_peak": 100 * r.gbps / report.peak_gbps if r.gbps and report.peak_gbps else None,
            "speedup_vs_naive": r.gbps / naive.gbps if r.gbps and naive and naive.gbps else None,
            "model_gbps": p.gbps, "model_over_measured": p.gbps / r.gbps if r.gbps else None,
            "limiter": p.limiter, "model_terms_s": p.terms, "registers": r.registers,
            "model_load_sectors": m.sectors_per_request("load"),
            "model_store_sectors": m.sectors_per_request("store"),
            "model_shared_load_ways": m.ways("load"), "model_shared_store_ways": m.ways("store"),
            "model_shared_load_conflicts": m.extra_wavefronts("load"),
            "model_shared_store_conflicts": m.extra_wavefronts("store"),
            "teaches": get(r.kernel).teaches, "note": r.note,
        }
        if profile and r.kernel in profile:
            row["ncu"] = profile[r.kernel]
        out.append(row)
    return out


def constants_line(c: DeviceConstants) -> str:
    where = "reference file" if c.reference else "measured on this GPU"
    return (f"model constants of {c.device} ({where}, {c.measured}): copy {c.copy_gbps:,.0f} GB/s, latency "
            f"{c.latency_ns:.0f} ns, block {c.block_ns:.0f} ns + {c.block_ns_per_warp:.0f} ns a warp, shared "
            f"{c.shared_wavefronts_per_ns:.2f} wavefronts/ns/SM, L1 {c.l1_lines_per_ns:.2f} lines/ns/SM, partial "
            f"stores (sectors/ns on rows of {_pitches(c.partial_one_block)}) {_rates(c.partial_one_block)} from one "
            f"block, {_rates(c.partial_several_blocks)} from several, bytes rows apart "
            f"+{100 * c.rows_apart_load_cost:.0f}% read, +{100 * c.rows_apart_store_cost:.0f}% written, launch "
            f"{c.launch_us:.1f} us")


def _pitches(pairs) -> str:
    return " / ".join(f"{pitch // 1024} KiB" for pitch, _ in pairs)


def _rates(pairs) -> str:
    return " / ".join(f"{rate:.0f}" for _, rate in pairs)


def _f(v, fmt="{:,.0f}") -> str:
    return "-" if v is None else fmt.format(v)


def table(report: LabReport, table_rows: list[dict]) -> Table:
    what = ("numba-cuda simulator: correctness only, figures are the model's"
            if report.simulated else f"{report.device}, device copy {_f(report.device_copy_gbps)} GB/s")
    t = Table(title=f"lab: {report.rows}x{report.cols} {report.dtype} on {what}")
    t.add_column("kernel", no_wrap=True, min_width=21)
    for col in ("exact", "GB/s", "% dev copy", "% copy kernel", "x naive", "model GB/s", "model/meas",
                "limiter (model)", "ld sect/req", "st sect/req", "smem ld ways"):
        t.add_column(col, justify="left" if col == "limiter (model)" else "right")
    has_ncu = any("ncu" in r for r in table_rows)
    if has_ncu:
        for col in ("ncu ld", "ncu st", "ncu conflicts/ld"):
            t.add_column(col, justify="right")
    for r in table_rows:
        exact = {True: "yes", False: "NO", None: "-"}[r["verified"]]
        cells = [r["kernel"], exact, _f(r["gbps"]), _f(r["pct_of_device_copy"]), _f(r["pct_of_copy"]),
                 _f(r["speedup_vs_naive"], "{:.2f}"), _f(r["model_gbps"]), _f(r["model_over_measured"], "{:.2f}"),
                 r["limiter"], _f(r["model_load_sectors"], "{:.0f}"), _f(r["model_store_sectors"], "{:.0f}"),
                 str(r["model_shared_load_ways"] or "-")]
        if has_ncu:
            n = r.get("ncu") or {}
            cells += [_f(n.get("load_sectors_per_request"), "{:.1f}"), _f(n.get("store_sectors_per_request"),
                      "{:.1f}"), _f(n.get("shared_load_conflicts_per_instruction"), "{:.1f}")]
        t.add_row(*cells)
    return t


def write_json(report: LabReport, table_rows: list[dict], path: str | Path,
               constants: DeviceConstants | None = None) -> None:
    data = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": " ".join(["cornerturn", *sys.argv[1:]]), **report.as_dict(),
            "constants": constants.as_dict() if constants else None, "table": table_rows}
    Path(path).write_text(json.dumps(data, indent=1, default=str))


def write_plot(report: LabReport, table_rows: list[dict], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["kernel"] for r in table_rows]
    measured = [r["gbps"] or 0 for r in table_rows]
    modelled = [r["model_gbps"] or 0 for r in table_rows]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], measured, width=0.4, label="measured")
    ax.bar([x + 0.2 for x in xs], modelled, width=0.4, label="model", alpha=0.6)
    if report.device_copy_gbps:
        ax.axhline(report.device_copy_gbps, ls="--", c="gray", lw=1, label="device copy (cudaMemcpy)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (read + write)")
    ax.set_title(f"transpose lab, {report.rows}x{report.cols} {report.dtype} on {report.device}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
