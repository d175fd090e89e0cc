"""Probe: byte permutations that permute_words does not take because its first sides fail (B cut short or its
segments under SEGMENT_MIN bytes), while the sides that leave the input's run to B (RUN_TO_B) would give segments of
SHORT_SEGMENT bytes or more: the plan before (element tiles) against permute_words on those sides
(permute.RUN_TO_B_REFUSED), on the permute suite's random permutations of the given seeds; every plan checked bit
for bit against torch's permute, timed with torch and a copy of the same bytes in interleaved rounds.

    python3 scripts/words_fallback_probe.py OUT.json SEED_FROM SEED_TO MAX_CASES [--dry] [--a=LOW:HIGH]

With --a, only permutations whose side A (in words) holds LOW to HIGH - 1 bytes.
"""

import json
import sys
import time

from cornerturn.bench.suites import random_permutations
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation

DRY = "--dry" in sys.argv
A_BYTES = next((tuple(int(v) for v in a.split("=")[1].split(":")) for a in sys.argv if a.startswith("--a=")), None)


def plans(case):
    """(the plan without RUN_TO_B_REFUSED, the plan with it, the sides it takes) where the rule changes the plan."""
    if case.itemsize != 1:
        return None
    strides, step = [], case.itemsize
    for n in reversed(case.shape):
        strides.insert(0, step)
        step *= n
    perm = canonical_permutation(case.shape, tuple(strides), case.itemsize, case.axes)
    if getattr(perm, "kind", None) != "permute" or permute._words_sides(perm) is not None:
        return None
    sides = permute.words_sides(perm)
    if sides is None or (A_BYTES and not A_BYTES[0] <= sides.size_a < A_BYTES[1]):
        return None
    plan = permute.build(perm, permute.natural_word(perm))
    permute.RUN_TO_B_REFUSED = False
    try:
        before = permute.build(perm, permute.natural_word(perm))
    finally:
        permute.RUN_TO_B_REFUSED = True
    if not isinstance(plan.config, permute.PermuteWordsConfig) or isinstance(before.config, permute.PermuteWordsConfig):
        return None
    return before, plan, sides


def run_case(case, plan, other) -> dict:
    import torch

    from cornerturn.engine.timing import time_cuda_rounds

    words = torch.randint(-2**31, 2**31 - 1, ((case.nbytes + 3) // 4,), dtype=torch.int32, device="cuda")
    x = words.view(torch.uint8)[: case.nbytes].view(getattr(torch, case.dtype)).view(case.shape)
    want = x.permute(case.axes).contiguous()
    out = torch.empty_like(want)
    stream = torch.cuda.current_stream().cuda_stream
    fns = {}
    for name, p in (("plan", plan), ("words", other)):
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
    return {"case": case.name, "plan": plan.config.name, "other": other.config.name, "reason": other.reason,
            "pct": {n: round(100 * t["copy"].median / v.median, 1) for n, v in t.items() if n != "copy"}}


def main() -> None:
    path, first, last, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rows = []
    found = 0
    for seed in range(first, last):
        for case in random_permutations(seed, 30, "cuda"):
            got = plans(case)
            if got is None or found >= limit:
                continue
            found += 1
            plan, other, sides = got
            whole = sides.size_a % 4 == 0
            if DRY:
                print(f"{case.name:48s} A {sides.size_a} {'whole' if whole else 'part'} {plan.config.name} -> "
                      f"{other.config.name} | {other.reason}")
                continue
            r = run_case(case, plan, other)
            r.update(seed=seed, size_a=sides.size_a, a_whole_words=whole)
            rows.append(r)
            p = r["pct"]
            print(f"{r['case']:48s} A {sides.size_a:6d} {r['plan']:18s} {p['plan']:5.1f}% {r['other']:22s} "
                  f"{p['words']:5.1f}% torch {p['torch']:5.1f}%", flush=True)
    if not DRY:
        import torch

        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "command": "python3 scripts/words_fallback_probe.py " + " ".join(sys.argv[1:]), "rows": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
