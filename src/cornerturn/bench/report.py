"""Reports of a benchmark run: a rich table or Markdown, the distribution of % of copy and the cases some peer
beats, JSON with machine and versions, a PNG plot (grouped bars per case; a scatter over matrix size for the random
suite)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.table import Table

from .runner import BenchReport
from .suites import RANDOM


def _fmt_gbps(result, fmt: str = "{:,.1f}") -> str:
    if result is None or (result.median_s is None and result.note.startswith("not supported")):
        return "-"
    if result.median_s is None:
        return "n/a"
    mark = " WRONG" if result.verified is False else ""
    return fmt.format(result.gbps) + mark


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


def pct_of_copy(report: BenchReport, case: str, method: str) -> float | None:
    """100 x the copy's median time / the method's, for a verified (or reference) result; None where not run."""
    copy = next((r for r in report.results if r.case == case and r.role == "ceiling"), None)
    r = report.get(case, method)
    if not (copy and copy.median_s and r and r.median_s) or r.verified is False:
        return None
    return 100 * copy.median_s / r.median_s


def nearest_rank(values: list[float], fraction: float) -> float:
    """The value at `fraction` of the way up the sorted values (nearest rank: the smallest value with at least that
    fraction of the values at or below it)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def distribution(report: BenchReport) -> dict | None:
    """Minimum, lowest tenth (nearest rank), median and maximum of ours as % of the copy over the cases."""
    values = [v for v in (pct_of_copy(report, c, "cornerturn") for c in report.cases()) if v is not None]
    if not values:
        return None
    return {"cases": len(values), "min": min(values), "tenth": nearest_rank(values, 0.1),
            "median": nearest_rank(values, 0.5), "max": max(values)}


def beaten(report: BenchReport) -> list[dict]:
    """Every case where some peer ran faster than ours (verified results only), with each such peer's lead."""
    found = []
    for case in report.cases():
        ours = next((r for r in report.results if r.case == case and r.role == "ours"), None)
        if not ours or not ours.median_s:
            continue
        faster = {r.method: ours.median_s / r.median_s for r in report.results
                  if r.case == case and r.role == "peer" and r.median_s and r.verified is not False
                  and r.median_s < ours.median_s}
        if faster:
            found.append({"case": case, "pct_of_copy": pct_of_copy(report, case, "cornerturn"), "faster": faster})
    return found


def markdown(report: BenchReport) -> str:
    """The table as Markdown, with the line that says where, when and how it was measured (for README and docs)."""
    methods = report.methods()
    lines = [f"| case | {' | '.join(methods)} | % of copy | vs best peer | us/call |",
             "|" + "---|" * (len(methods) + 4)]
    for row in summary_rows(report):
        cells = [_fmt_gbps(report.get(row["case"], m), "{:,.0f}") for m in methods]
        pct, speed = row.get("pct_of_copy"), row.get("speedup_vs_best_peer")
        best = f"{speed:.2f}x ({row['best_peer'].method})" if speed else "-"
        per_call = f"{row['per_call_us']:,.1f}" if row.get("per_call_us") else "-"
        lines.append(f"| {row['case']} | {' | '.join(cells)} | {f'{pct:.0f}%' if pct else '-'} | {best} | "
                     f"{per_call} |")
    geo = ", ".join(f"{m} {g:.2f}x" for m in methods if (g := geomean_speedup(report, m)) and
                    any(r.method == m and r.role == "peer" for r in report.results))
    lines.append("")
    lines.append(f"{report.device_name}, {report.date}, `{report.command}`; GB/s = (bytes read + written) / median "
                 f"time; geometric-mean speedup of cornerturn over: {geo}.")
    return "\n".join(lines)


def load_json(path: str | Path) -> BenchReport:
    return BenchReport.from_dict(json.loads(Path(path).read_text()))


def notes(report: BenchReport) -> list[str]:
    """One line per note; a method's note that repeats on several cases is said once, with the count."""
    by_note: dict[tuple[str, str], list[str]] = {}
    for r in report.results:
        if r.note:
            by_note.setdefault((r.method, r.note), []).append(r.case)
    return [f"{cases[0]} / {method}: {note}" if len(cases) == 1 else f"{method}: {note} ({len(cases)} cases)"
            for (method, note), cases in by_note.items()]


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
    data["distribution"] = distribution(report)
    data["slower_than_a_peer"] = beaten(report)
    Path(path).write_text(json.dumps(data, indent=1))


def write_plot(report: BenchReport, path: str | Path) -> None:
    """Grouped bars of % of the copy per case (ours and each peer), the copy as the 100% line; for the random suite
    a scatter of ours against matrix size, one colour per element size, peers in grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = (_random_scatter if report.suite == RANDOM else _grouped_bars)(report, plt)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _title(report: BenchReport) -> str:
    return f"transpose on {report.device_name}, as % of a copy of the same bytes\n{report.date}: {report.command}"


def _grouped_bars(report: BenchReport, plt):
    cases = report.cases()
    methods = [m for m in report.methods() if any(r.method == m and r.role != "ceiling" for r in report.results)]
    ours = [m for m in methods if any(r.method == m and r.role == "ours" for r in report.results)]
    methods = [m for m in methods if m not in ours] + ours  # ours last, rightmost in each group
    fig, ax = plt.subplots(figsize=(max(8.0, 0.75 * len(cases) + 2), 5))
    width = 0.8 / max(len(methods), 1)
    for k, method in enumerate(methods):
        xs, ys = [], []
        for i, case in enumerate(cases):
            v = pct_of_copy(report, case, method)
            if v is not None:
                xs.append(i - 0.4 + width * (k + 0.5))
                ys.append(v)
        style = {"color": "black"} if method in ours else {"alpha": 0.75}
        ax.bar(xs, ys, width=width, label=method, **style)
    ax.axhline(100, ls="--", c="gray", lw=1, label="copy = 100%")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("% of copy (higher is faster)")
    ax.set_title(_title(report), fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=min(len(methods) + 1, 6), loc="upper center", bbox_to_anchor=(0.5, -0.32))
    fig.tight_layout()
    return fig


def _random_scatter(report: BenchReport, plt):
    from ..dtypes import itemsize_of

    fig, ax = plt.subplots(figsize=(9, 5))
    colours = {1: "tab:red", 2: "tab:orange", 4: "tab:green", 8: "tab:blue", 16: "tab:purple"}
    by_case = {r.case: r for r in report.results if r.role == "ours"}
    peers_x, peers_y = [], []
    for case, ours in by_case.items():
        mib = ours.bytes_moved / 2 / 2**20
        for r in report.results:
            if r.case == case and r.role == "peer" and (v := pct_of_copy(report, case, r.method)) is not None:
                peers_x.append(mib)
                peers_y.append(v)
    ax.scatter(peers_x, peers_y, s=10, c="lightgray", label="peers (torch, CuPy, geam, plain tile)", zorder=1)
    for size, colour in colours.items():
        xs, ys = [], []
        for case, ours in by_case.items():
            v = pct_of_copy(report, case, "cornerturn")
            if v is not None and itemsize_of(ours.dtype) == size:
                xs.append(ours.bytes_moved / 2 / 2**20)
                ys.append(v)
        if xs:
            ax.scatter(xs, ys, s=28, c=colour, label=f"cornerturn, {size}-byte elements", zorder=2)
    d = distribution(report)
    if d:
        ax.axhline(d["median"], ls=":", c="black", lw=1, label=f"median {d['median']:.0f}%")
    ax.axhline(100, ls="--", c="gray", lw=1, label="copy = 100%")
    ax.set_xscale("log")
    ax.set_xlabel("matrix MiB (all matrices of the case)")
    ax.set_ylabel("% of copy (higher is faster)")
    ax.set_title(_title(report) + f" (seed {report.seed})", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig
