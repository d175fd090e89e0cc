"""Markdown tables of the lab's result JSONs in docs/results (so docs carry no hand-copied figures); a
benchmark's table comes from `cornerturn report FILE --markdown`.

    python3 scripts/results_tables.py lab docs/results/lab-h200.json
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
    lines = ["| kernel | exact | GB/s | % of copy kernel | % of peak | x naive | model GB/s | ld sectors/req | "
             "st sectors/req | shared ld ways |", "|" + "---|" * 10]
    for r in d["table"]:
        lines.append(f"| {r['kernel']} | {'yes' if r['verified'] else 'NO'} | {_f(r['gbps'])} | "
                     f"{_f(r['pct_of_copy'])} | {_f(r['pct_of_peak'])} | {_f(r['speedup_vs_naive'], '{:.2f}')} | "
                     f"{_f(r['model_gbps'])} | {_f(r['model_load_sectors'])} | {_f(r['model_store_sectors'])} | "
                     f"{r['model_shared_load_ways'] or '-'} |")
    lines.append(f"\n{d['device']}, {d['rows']}x{d['cols']} {d['dtype']}, peak {d['peak_gbps']:,.0f} GB/s "
                 f"(memory clock x bus width), {d['date']}, `{d['command']}`")
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
