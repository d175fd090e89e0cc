# ruff: noqa: B008, B023, E401, E501, E701, E702, SIM115, I001
"""Probe: units contiguous on both sides of LO to HI bytes that are not one host word, the runs kernel (each run one
memcpy) against the table kernel (permute-tiles), with np.copyto and torch, interleaved (median of 5), bit-exact.
Seeds under 10000 take the CPU permute suite's random cases; others draw COUNT cases made to have such runs.

    python3 scripts/cpu_runs_probe.py SEED[,SEED...] COUNT LO HI OUT.json
"""
import sys, time, json, math, numpy as np, torch
from cornerturn.bench.suites import random_permutations
from cornerturn.problem import canonical_permutation, Permutation
from cornerturn.cpu import permute as CP
from cornerturn.tiling import element_bytes, widest_word, split
from cornerturn.arrays import view_of
from cornerturn.bench.suites import Case
def cases(seed, count):
    rng = np.random.default_rng(seed); out = []
    while len(out) < count:
        size = int(rng.choice([1, 2, 4]))
        dtype = {1: 'uint8', 2: 'int16', 4: 'float32'}[size]
        unit = int(rng.integers(8, 64))
        if unit % size: continue
        last = unit // size
        total = math.exp(rng.uniform(math.log(16 << 20), math.log(128 << 20))) / size / last
        rank = int(rng.integers(3, 6))
        w = rng.random(rank - 1) + 0.1
        logs = math.log(total / 2 ** (rank - 1)) * w / w.sum()
        shape = tuple(max(2, round(2 * math.exp(v))) for v in logs) + (last,)
        axes = tuple(int(a) for a in rng.permutation(rank - 1))
        if axes == tuple(range(rank - 1)): continue
        out.append(Case(shape, dtype, axes + (rank - 1,)))
    return out


torch.set_num_threads(2)
rows = []
lo, hi = int(sys.argv[3]), int(sys.argv[4])
for seed in [int(s) for s in sys.argv[1].split(',')]:
    for case in (random_permutations(seed, int(sys.argv[2]), "cpu") if seed < 10000 else cases(seed, int(sys.argv[2]))):
        size = np.dtype(case.dtype).itemsize if case.dtype not in ('bfloat16', 'float8_e4m3fn') else {'bfloat16': 2, 'float8_e4m3fn': 1}[case.dtype]
        shape, axes = case.shape, case.axes
        strides = tuple(size * int(v) for v in np.cumprod((1,) + shape[::-1][:-1])[::-1])
        perm = canonical_permutation(shape, strides, size, axes)
        if not isinstance(perm, Permutation): continue
        unit = element_bytes(perm)
        if unit == size or not (lo <= unit < hi) or widest_word(perm, widest=16) == unit: continue
        rule = CP.plan(perm).name
        cur = CP.PermutePlan("permute-tiles", "probe", perm, split(perm, widest_word(perm), CP.SIDE_WORDS))
        alt = CP.PermutePlan("runs", "probe", perm, split(perm, widest_word(perm), 2))
        x = np.random.default_rng(1).integers(0, 256, size=case.nbytes, dtype=np.uint8).reshape(*shape, size)
        want = np.ascontiguousarray(np.transpose(x, (*axes, len(shape))))
        out = np.empty_like(want); src = np.empty_like(x)
        xv, ov = view_of(x), view_of(out)
        fns = {'cur': lambda: CP.run(cur, xv, ov), 'runs': lambda: CP.run(alt, xv, ov), 'copy': lambda: np.copyto(src, x),
               'torch': (lambda tx=torch.from_numpy(x), a=(*axes, len(shape)), to=torch.from_numpy(out): to.copy_(tx.permute(a)))}
        for k in ('cur', 'runs'):
            out.fill(0xA5); fns[k](); assert out.tobytes() == want.tobytes(), (case.name, k)
        ts = {k: [] for k in fns}
        for _ in range(5):
            for k, f in fns.items():
                f(); t = time.perf_counter(); f(); ts[k].append(time.perf_counter() - t)
        med = {k: float(np.median(v)) for k, v in ts.items()}
        rows.append(dict(case=case.name, unit=unit, word=widest_word(perm), rule=rule, tiles=med['cur'], **{k: v for k, v in med.items() if k != 'cur'}))
        print(f"{case.name:48s} unit {unit:3d} B w{widest_word(perm)} rule {rule:14s} tiles {med['copy']/med['cur']*100:4.0f}%  runs {med['copy']/med['runs']*100:4.0f}%  runs/tiles x{med['cur']/med['runs']:.2f}  torch/runs x{med['torch']/med['runs']:.2f}", flush=True)
json.dump(rows, open(sys.argv[5], 'w'), indent=1)
g = math.exp(np.mean([math.log(r['tiles'] / r['runs']) for r in rows])) if rows else 0
print(f"{len(rows)} cases, runs/cur geomean x{g:.2f}")
