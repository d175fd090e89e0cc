"""Markdown tables from the result JSONs in docs/results (so docs carry no hand-copied figures).

    python3 scripts/results_tables.py bench docs/results/bench-cuda-h200.json
    python3 scripts/results_tables.py lab docs/results/lab-h200.json
    python3 scripts/results_tables.py twins docs/results/gpu-check-h200.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _f(v, fmt="{:,.0f}"):
    return "-" if v is None else fmt.format(v)


def bench(path: str) -> str:
    d = json.loads(Path(path).read_text())
    methods = list(dict.fromkeys(r["method"] for r in d["results"]))
    cases = list(dict.fromkeys(r["case"] for r in d["results"]))
    get = {(r["case"], r["method"]): r for r in d["results"]}
    summary = {s["case"]: s for s in d["summary"]}
    lines = [f"| case | {' | '.join(methods)} | % of copy | vs best peer | us/call |",
             "|" + "---|" * (len(methods) + 4)]
    for c in cases:
        cells = []
        for m in methods:
            r = get.get((c, m))
            cells.append("-" if r is None or r["gbps"] is None else _f(r["gbps"]) + (" WRONG" if r["verified"] is False
                                                                                     else ""))
        s = summary[c]
        ours = get.get((c, "cornerturn"))
        per_call = (ours.get("wall_s") or ours["median_s"]) * 1e6 if ours and ours["median_s"] else None
        best = f"{s['speedup_vs_best_peer']:.2f}x ({s['best_peer']})" if s["speedup_vs_best_peer"] else "-"
        lines.append(f"| {c} | {' | '.join(cells)} | {_f(s['pct_of_copy'])}% | {best} | {_f(per_call, '{:,.1f}')} |")
    geo = ", ".join(f"{k} {v:.2f}x" for k, v in d["geomean_speedup"].items() if v)
    lines.append(f"\n{d['device_name']}, {d['date']}, `{d['command']}`; GB/s = (bytes read + written) / median time;"
                 f" geometric-mean speedup of cornerturn over: {geo}.")
    return "\n".join(lines)


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
    print({"bench": bench, "lab": lab, "twins": twins}[sys.argv[1]](sys.argv[2]))
