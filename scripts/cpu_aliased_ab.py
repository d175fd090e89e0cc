"""The table's plan against this host's measured aliased tiles, on inputs whose rows lie a multiple of 512 B apart
(at least 8 KiB): the named power-of-two squares and matrices drawn from a seed; interleaved, bit-exact."""
import sys, time, json, math, numpy as np
from cornerturn.problem import canonical
from cornerturn.cpu import planner, host_tiles
from cornerturn.cpu.vectors import vector_kernel
seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(seed)
cases = [(1, 16384, 16384, 1), (1, 8192, 8192, 2), (1, 8192, 8192, 4), (1, 8192, 8192, 8)]
for _ in range(count):
    isz = int(rng.choice([1, 2, 4, 8])); pitch = 512 * int(rng.integers(16, 129))
    cols = pitch // isz; rows = int(np.exp(rng.uniform(np.log(300), np.log(max(301, (128 << 20) // pitch)))))
    cases.append((1, rows, cols, isz))
measured = {}
for s in (1, 2, 4, 8):
    for al in (False, True):
        measured[s, al] = host_tiles.vector_tile(s, planner.VECTOR_TILE[s], aliased=al)
print({f"{k[0]}{' al' if k[1] else ''}": (v.tile, v.staged) for k, v in measured.items()}, flush=True)
rows_out = []
for b, r, c, isz in cases:
    word = np.dtype(f"u{isz}")
    x = rng.integers(0, 2**63, size=(b, r, c), dtype=np.uint64).astype(word)
    p = canonical((r, c), x.strides[1:], isz)
    variants = {}
    for name in ("table", "host"):
        host_tiles._known.clear()
        if name == "table":
            host_tiles._known.update({k: host_tiles.HostTile((planner.VECTOR_TILE[k[0]],) * 2, "the table") for k in measured})
        else:
            host_tiles._known.update(measured)
        variants[name] = planner.vector_variant(p, True)
    out = np.empty((b, c, r), word); ref = np.ascontiguousarray(x.transpose(0, 2, 1))
    ks = {n: vector_kernel(isz, (v.tile, v.tile_cols or v.tile), True, v.staged) for n, v in variants.items()}
    for n, k in ks.items():
        out.fill(0xA5); k(x, out); assert (out == ref).all(), n
    t = {n: [] for n in ks}
    for _ in range(5):
        for n, k in ks.items():
            s = time.perf_counter(); k(x, out); t[n].append(time.perf_counter() - s)
    med = {n: sorted(v)[2] for n, v in t.items()}; gb = 2 * x.nbytes / 1e9
    row = {"case": f"{r}x{c} {isz}B", "table": variants["table"].name, "host": variants["host"].name,
           "table_gbs": gb / med["table"], "host_gbs": gb / med["host"], "speedup": med["table"] / med["host"]}
    rows_out.append(row)
    print(f"{row['case']:20s} {row['table']:34s} {row['table_gbs']:5.1f} -> {row['host']:40s} {row['host_gbs']:5.1f}  x{row['speedup']:.2f}", flush=True)
v = [r["speedup"] for r in rows_out]
print(f"{len(v)} cases: geomean x{math.exp(sum(map(math.log, v)) / len(v)):.2f}, min {min(v):.2f}, max {max(v):.2f}")
json.dump({"seed": seed, "host": host_tiles.host_name(), "rows": rows_out}, open(f"cpu-aliased-ab-{seed}.json", "w"), indent=1)
