"""Probe: every candidate of the words kernel and the element tiles (what autotune measures) on the given 1- and
2-byte matrices, against the planner's plan and a copy of the same bytes, each candidate checked against the first.

    python3 scripts/words_sweep_probe.py OUT.json 'uint8 967037x348' 'bfloat16 9834x20542' ...
"""

import json
import sys
import time

import torch

import cornerturn
from cornerturn.bench.suites import parse_case
from cornerturn.engine import choose
from cornerturn.engine.timing import time_cuda
from cornerturn.engine.tune import config_to_dict, measure_candidates


def sweep(text: str) -> dict:
    case = parse_case(text)
    dtype = getattr(torch, case.dtype)
    plan = cornerturn.plan(case.shape, dtype, device="cuda")
    problem = plan.problem
    chosen = choose(problem, "cuda:0")
    x = torch.randint(0, 256, (case.nbytes,), dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    copy = time_cuda(lambda: y.copy_(x), repeats=9).median
    rows = []
    for word in (4, case.itemsize):
        for t in measure_candidates(problem, "cuda:0", word, budget_s=60):
            if t["median_s"]:
                rows.append({"word": word, "config": t["config"], "pct": round(100 * copy / t["median_s"], 1)})
    rows.sort(key=lambda r: -r["pct"])
    mine = config_to_dict(chosen.config)
    planned = [r for r in rows if r["config"] == mine and r["word"] == chosen.word]
    return {"case": text, "plan": chosen.config.name, "reason": chosen.reason, "word": chosen.word,
            "plan_pct": planned[0]["pct"] if planned else None, "best": rows, "count": len(rows)}


def main() -> None:
    found = []
    for text in sys.argv[2:]:
        found.append(sweep(text))
        r = found[-1]
        print(f"{r['case']:28s} plan {r['plan']} {r['plan_pct']}% | best " +
              "; ".join(f"w{b['word']} {b['config']} {b['pct']}%" for b in r["best"][:3]), flush=True)
        torch.cuda.empty_cache()
    with open(sys.argv[1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 " + " ".join(sys.argv), "rows": found}, f, indent=1)


if __name__ == "__main__":
    main()
