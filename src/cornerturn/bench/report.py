"""Reports of a benchmark run: a rich table, JSON with machine and versions, a PNG plot."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.table import Table

from .runner import BenchReport


def _fmt_gbps(result) -> str:
    if result is None:
        return "-"
    if result.median_s is None:
        return "n/a"
    mark = " WRONG" if result.verified is False else ""
    return f"{result.gbps:,.1f}{mark}"


def best_peer(report: BenchReport, case: str):
    peers = [r for r in report.results if r.case == case and r.role == "peer" and r.median_s
             and r.verified is not False]
    return min(peers, key=lambda r: r.median_s, default=None)


def summary_rows(report: BenchReport) -> list[dict]:
    """Per case: ours as % of the copy, speedup over the best peer and over each peer."""
    rows = []
    for case in report.cases():
        ours = next((r for r in report.results if r.case == case and r.role == "ours"), None)
        copy = next((r for r in report.results if r.case == case and r.role == "ceiling"), None)
        best = best_peer(report, case)
        row = {"case": case, "ours": ours, "copy": copy, "best_peer": best}
        if ours and ours.median_s:
            row["pct_of_copy"] = 100 * copy.median_s / ours.median_s if copy and copy.median_s else None
            row["speedup_vs_best_peer"] = best.median_s / ours.median_s if best else None
            row["per_call_us"] = (ours.wall_s or ours.median_s) * 1e6
        rows.append(row)
    return rows


def geomean_speedup(report: BenchReport, peer: str) -> float | None:
    ratios = []
    for case in report.cases():
        ours = next((r for r in report.results if r.case == case and r.role == "ours"), None)
        other = report.get(case, peer)
        if ours and other and ours.median_s and other.median_s and other.verified is not False:
            ratios.append(other.median_s / ours.median_s)
    return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None


def table(report: BenchReport) -> Table:
    methods = report.methods()
    t = Table(title=f"GB/s (bytes read + written) on {report.device_name}, {report.date}")
    t.add_column("case")
    t.add_column("MiB", justify="right")
    for m in methods:
        t.add_column(m, justify="right")
    t.add_column("% of copy", justify="right")
    t.add_column("x best peer", justify="right")
    t.add_column("us/call", justify="right")
    for row in summary_rows(report):
        first = next(r for r in report.results if r.case == row["case"])
        cells = [row["case"], f"{first.bytes_moved / 2 / 2**20:,.2f}"]
        cells += [_fmt_gbps(report.get(row["case"], m)) for m in methods]
        pct, speed = row.get("pct_of_copy"), row.get("speedup_vs_best_peer")
        cells.append(f"{pct:.0f}%" if pct else "-")
        cells.append(f"{speed:.2f}x ({row['best_peer'].method})" if speed else "-")
        cells.append(f"{row['per_call_us']:,.1f}" if row.get("per_call_us") else "-")
        t.add_row(*cells)
    return t


def notes(report: BenchReport) -> list[str]:
    return [f"{r.case} / {r.method}: {r.note}" for r in report.results if r.note]


def write_json(report: BenchReport, path: str | Path) -> None:
    data = report.as_dict()
    data["summary"] = [
        {"case": row["case"], "pct_of_copy": row.get("pct_of_copy"),
         "speedup_vs_best_peer": row.get("speedup_vs_best_peer"),
         "best_peer": row["best_peer"].method if row["best_peer"] else None}
        for row in summary_rows(report)
    ]
    data["geomean_speedup"] = {m: geomean_speedup(report, m) for m in report.methods()
                               if any(r.method == m and r.role == "peer" for r in report.results)}
    Path(path).write_text(json.dumps(data, indent=1))


def write_plot(report: BenchReport, path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5))
    cases = report.cases()
    order = sorted(cases, key=lambda c: next(r.bytes_moved for r in report.results if r.case == c))
    for method in report.methods():
        points = [(i, report.get(c, method).gbps) for i, c in enumerate(order)
                  if report.get(c, method) and report.get(c, method).gbps]
        if points:
            xs, ys = zip(*points)
            style = "--" if method == "copy" else "-"
            ax.plot(xs, ys, style, marker="o", label=method)
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (read + write)")
    ax.set_xlabel("case, by matrix size")
    ax.set_title(f"transpose bandwidth on {report.device_name}\n{report.date}: {report.command}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
