"""Markdown tables of the lab's result JSONs in docs/results (so docs carry no hand-copied figures); a
benchmark's table comes from `cornerturn report FILE --markdown`.

    python3 scripts/results_tables.py lab docs/results/lab-h200-8192.json
    python3 scripts/results_tables.py ncu docs/results/lab-h200-8192.json docs/results/lab-h200-16384.json
    python3 scripts/results_tables.py counts docs/results/lab-h200-8192.json
    python3 scripts/results_tables.py pages docs/results/dram-pattern-h200.json docs/results/dram-pattern-h100.json
    python3 scripts/results_tables.py twins docs/results/gpu-check-h200.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _f(v, fmt="{:,.0f}"):
    return "-" if v is None else fmt.format(v)


def lab(path: str) -> str:
    d = json.loads(Path(path).read_text())
    lines = ["| kernel | GB/s | % of device copy | % of copy kernel | model GB/s | model / measured | "
             "limiter (model) |", "|" + "---|" * 7]
    for r in d["table"]:
        lines.append(f"| {r['kernel']} | {_f(r['gbps'])} | {_f(r['pct_of_device_copy'])} | {_f(r['pct_of_copy'])} | "
                     f"{_f(r['model_gbps'])} | {_f(r['model_over_measured'], '{:.2f}')} | {r['limiter']} |")
    ratios = [r["model_over_measured"] for r in d["table"] if r["model_over_measured"]]
    lines.append(f"\n{d['device']}, {d['rows']}x{d['cols']} {d['dtype']}, device copy {_f(d['device_copy_gbps'])} "
                 f"GB/s, {d['date']}, `{d['command'].replace('/root/out', '$OUT')}` ({path}). Model / measured "
                 f"{min(ratios):.2f} to {max(ratios):.2f}; {sum(0.8 <= x <= 1.25 for x in ratios)} of {len(ratios)} "
                 "within 0.8 to 1.25.")
    return "\n".join(lines)


def _source(d: dict, path: str) -> str:
    return f"{d['device']}, {d['date']}, `{d['command'].replace('/root/out', '$OUT')}` ({path})"


def ncu(*paths: str) -> str:
    """The model's limiter beside Nsight Compute's view, one column pair per run (same kernels in each)."""
    runs = [json.loads(Path(p).read_text()) for p in paths]
    head = "| kernel | " + " | ".join(f"{d['rows']}: limiter (model) | {d['rows']}: Nsight Compute | agrees"
                                       for d in runs) + " |"
    lines = [head, "|" + "---|" * (1 + 3 * len(runs))]
    for i, r in enumerate(runs[0]["table"]):
        cells = []
        for d in runs:
            row = d["table"][i]
            agrees = {True: "yes", False: "**no**", None: "-"}[row.get("ncu_limiter_agrees")]
            cells += [row["limiter"], row.get("ncu_view", "-"), agrees]
        lines.append(f"| {r['kernel']} | " + " | ".join(cells) + " |")
    for d, p in zip(runs, paths):
        n = [r.get("ncu_limiter_agrees") for r in d["table"]]
        lines.append(f"\n{d['rows']}x{d['cols']}: {_source(d, p)}; agrees for {sum(x is True for x in n)} of "
                     f"{sum(x is not None for x in n)}.")
    return "\n".join(lines)


def counts(path: str) -> str:
    d = json.loads(Path(path).read_text())
    lines = ["| kernel | ncu ld sectors/req | model | ncu st sectors/req | model | ncu conflicts / shared ld | model |",
             "|" + "---|" * 7]
    for r in d["table"]:
        n = r.get("ncu") or {}
        lines.append(f"| {r['kernel']} | {_f(n.get('load_sectors_per_request'), '{:.2f}')} | "
                     f"{r['model_load_sectors']:.0f} | {_f(n.get('store_sectors_per_request'), '{:.2f}')} | "
                     f"{r['model_store_sectors']:.0f} | {_f(n.get('shared_load_conflicts_per_instruction'), '{:.2f}')}"
                     f" | {r['model_shared_load_conflicts']:.2f} |")
    lines.append(f"\n{d['rows']}x{d['cols']} {d['dtype']}: {_source(d, path)}")
    return "\n".join(lines)


def pages(*paths: str) -> str:
    """The segments probe: each tile shape's GB/s in three orders, as % of the device copy of the same run."""
    runs = [json.loads(Path(p).read_text()) for p in paths]
    head = "| tile (rows x columns) | " + " | ".join(f"{d['device']}: copy order | transposed place | diagonal"
                                                    for d in runs) + " |"
    lines = [head, "|" + "---|" * (1 + 3 * len(runs))]
    shapes = [(r["h"], r["w"]) for r in runs[0]["runs"] if r["side"] == 8192 and r["what"] == "copy"]
    for h, w in shapes:
        cells = []
        for d in runs:
            got = {r["what"]: r["pct"] for r in d["runs"] if r["side"] == 8192 and r.get("w") == w and r["h"] == h}
            cells += [_f(got.get(k), "{:.0f}") for k in ("copy", "transpose", "diagonal")]
        lines.append(f"| {h} x {w} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def twins(path: str) -> str:
    d = json.loads(Path(path).read_text())["lab"]
    lines = ["| kernel | numba-cuda GB/s | CUDA C GB/s | numba / C |", "|---|---|---|---|"]
    for r in d["result"]["twins"]["rows"]:
        lines.append(f"| {r['kernel']} | {_f(r['numba_gbps'])} | {_f(r['cuda_c_gbps'])} | "
                     f"{r['numba_over_c']:.3f} |")
    lines.append(f"\n16384x16384 float32, {d['date']}, `{d['command']}` (its lab section runs "
                 f"`scripts/lab_twins.py --size 16384`)")
    return "\n".join(lines)


if __name__ == "__main__":
    print({"lab": lab, "twins": twins, "ncu": ncu, "counts": counts, "pages": pages}[sys.argv[1]](*sys.argv[2:]))
