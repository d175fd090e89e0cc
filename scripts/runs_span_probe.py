"""Probe: permute_runs with a program's units spanning the output's next axes (RunsConfig.span) against the planner's
plan (units along the output's next axis only), on the random permutations of the permute suite's generator that the
planner moves in permute_runs with whole units a program, and on named cases; every plan checked bit for bit against
torch's permute, timed with torch and a copy of the same bytes in interleaved rounds.

    python3 scripts/runs_span_probe.py OUT.json SEEDS DRAWS [CASE ...] [--filled-below=F]     (SEEDS: 7201,7202)

With --filled-below, only the permutations whose programs' units fill under F of them (permute.runs_filled).
"""

import json
import sys
import time

import torch

from cornerturn.bench.suites import parse_case, random_permutations
from cornerturn.engine import permute
from cornerturn.engine.timing import time_cuda_rounds
from cornerturn.problem import canonical_permutation


def runs_plan(case):
    strides, step = [], case.itemsize
    for n in reversed(case.shape):
        strides.insert(0, step)
        step *= n
    perm = canonical_permutation(case.shape, tuple(strides), case.itemsize, case.axes)
    if getattr(perm, "kind", None) != "permute":
        return None, None
    plan = permute.build(perm, permute.natural_word(perm))
    launch = plan.pieces[0][2]
    if launch.kernel.fn.__name__ != "permute_runs" or launch.constexprs["CHUNKS"] != 1:
        return None, None
    return perm, plan


def run_case(case, perm, plan) -> dict:
    dtype = getattr(torch, case.dtype)
    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(dtype).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    axes = permute.word_axes(perm, plan.word)
    one, unit = axes[-2], axes[-1].extent
    config = plan.config
    plans = {"plan": plan, "span": permute.build(perm, plan.word, permute.RunsConfig(config.block, config.num_warps,
                                                                                     span=not config.span))}
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in plans.items():
        def call(p=p):
            for xo, oo, launch in p.pieces:
                launch.run_pointers(x.data_ptr() + xo, out.data_ptr() + oo, stream, 0)
        out.view(torch.uint8).fill_(0xA5)
        call()
        torch.cuda.synchronize()
        if not torch.equal(out.view(torch.uint8), want.view(torch.uint8)):
            raise AssertionError(f"{case.name} {name}: wrong result")
        fns[name] = call
    copy_to = torch.empty_like(x)
    fns["torch"] = lambda: x.permute(case.axes).contiguous()
    fns["copy"] = lambda: copy_to.copy_(x)
    t = time_cuda_rounds(fns, repeats=7)
    copy = t["copy"].median
    return {"case": case.name, "plan": plan.config.name, "unit_words": unit, "axis_extent": one.extent,
            "filled": round(permute.runs_filled(one, unit, config.block), 3),
            "pct": {n: round(100 * copy / v.median, 1) for n, v in t.items() if n != "copy"}}


def main() -> None:
    path, seeds, draws = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
    below = float(next((a.split("=")[1] for a in sys.argv[4:] if a.startswith("--filled-below=")), "2"))
    cases = [parse_case(text) for text in sys.argv[4:] if not text.startswith("--")]
    for seed in seeds:
        cases += list(random_permutations(seed, draws, "cuda"))
    rows = []
    for case in cases:
        perm, plan = runs_plan(case)
        if plan is None:
            continue
        axes = permute.word_axes(perm, plan.word)
        if permute.runs_filled(axes[-2], axes[-1].extent, plan.config.block) >= below:
            continue
        r = run_case(case, perm, plan)
        rows.append(r)
        p = r["pct"]
        print(f"{r['case']:48s} filled {r['filled']:.2f} plan {p['plan']:5.1f}% span {p['span']:5.1f}% torch "
              f"{p['torch']:5.1f}%", flush=True)
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": "python3 scripts/runs_span_probe.py " + " ".join(sys.argv[1:]), "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
