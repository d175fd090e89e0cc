"""Shipped-table tiles against this host's measured tiles on random CPU suite cases (interleaved, bit-exact)."""
import sys, time, json, numpy as np, numba
from cornerturn.bench.suites import random_cases
from cornerturn.problem import canonical
from cornerturn.cpu import planner, host_tiles
from cornerturn.cpu.vectors import vector_kernel
seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(seed)
host = {s: host_tiles.vector_tile(s, planner.VECTOR_TILE[s]) for s in (1, 2, 4, 8)}
print("host tiles", {s: h.tile for s, h in host.items()}, flush=True)
rows = []
for case in random_cases(seed, count, "cpu"):
    dt = np.dtype(case.dtype) if case.dtype not in ("bfloat16", "float8_e4m3fn") else None
    isz = dt.itemsize if dt is not None else {"bfloat16": 2, "float8_e4m3fn": 1}[case.dtype]
    if isz not in (1, 2, 4, 8):
        continue
    word = np.dtype(f"u{isz}")
    shape = case.shape if len(case.shape) == 3 else (1, *case.shape)
    x = rng.integers(0, 2**63, size=shape, dtype=np.uint64).astype(word)
    p = canonical(shape, x.strides, isz)
    if not planner.vectorizable(p) or min(p.rows, p.cols) <= planner.SKINNY_MAX:
        continue
    variants = {}
    for name in ("shipped", "host"):
        host_tiles._known.clear()
        host_tiles._known.update({s: host_tiles.HostTile((planner.VECTOR_TILE[s],)*2, "the table") for s in host} if name == "shipped" else host)
        variants[name] = planner.vector_variant(p, True)
    if variants["shipped"] == variants["host"]:
        print(f"{str(case.shape):22s} {isz}B same plan {variants['host'].name}", flush=True)
        continue
    out = np.empty((shape[0], shape[2], shape[1]), word); ref = np.ascontiguousarray(x.transpose(0, 2, 1))
    ks = {n: vector_kernel(isz, (v.tile, v.tile_cols or v.tile), True, v.staged) for n, v in variants.items()}
    for n, k in ks.items():
        out.fill(0xA5); k(x, out); assert (out == ref).all(), n
    cp = np.empty_like(x)
    t = {n: [] for n in (*ks, "copy")}
    for _ in range(5):
        for n, k in ks.items():
            s = time.perf_counter(); k(x, out); t[n].append(time.perf_counter() - s)
        s = time.perf_counter(); np.copyto(cp, x); t["copy"].append(time.perf_counter() - s)
    med = {n: sorted(v)[2] for n, v in t.items()}
    gb = 2 * x.nbytes / 1e9
    row = {"case": f"{case.dtype} {case.shape}", "shipped": variants["shipped"].name, "host": variants["host"].name,
           **{f"{n}_gbs": gb / m for n, m in med.items()}, "speedup": med["shipped"] / med["host"]}
    rows.append(row)
    print(f"{str(case.shape):22s} {isz}B {row['shipped']:30s} {row['shipped_gbs']:5.1f} -> {row['host']:30s} {row['host_gbs']:5.1f} GB/s  x{row['speedup']:.2f}  copy {row['copy_gbs']:.1f}", flush=True)
json.dump({"seed": seed, "host": host_tiles.host_name(), "tiles": {s: list(h.tile) for s, h in host.items()}, "rows": rows}, open(f"/tmp/probe/hostvs-{seed}.json", "w"), indent=1)
import math
v = [r["speedup"] for r in rows]
print(f"{len(v)} changed: geomean x{math.exp(sum(map(math.log, v))/len(v)):.2f}, min {min(v):.2f}, max {max(v):.2f}")
