"""Markdown tables of the lab's result JSONs in docs/results (so docs carry no hand-copied figures); a
benchmark's table comes from `cornerturn report FILE --markdown`.

    python3 scripts/results_tables.py lab docs/results/lab-h200-8192.json
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
    print({"lab": lab, "twins": twins}[sys.argv[1]](sys.argv[2]))
