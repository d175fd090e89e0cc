"""Probe: the CPU runs kernel's tiles halved while they give fewer than RUN_MIN_TASKS_PER_THREAD tasks a thread
(permute.run_tile, RUN_TILE_RULE) against tiles of RUN_TILE always, and torch, on runs cases whose tile the rule
changes (three named ones, then random permutations of the permute suite's kind from SEED); bit for bit against
NumPy; medians of 3 in 3 interleaved rounds against np.copyto.

    python3 scripts/cpu_run_tile_probe.py SEED CASES   (writes /tmp/tile-SEED.json)
"""
import sys, math, time, json, numpy as np, torch
import cornerturn
from cornerturn.cpu import permute as P
from cornerturn.bench.suites import random_permutations
from cornerturn.dtypes import itemsize_of
import numba
torch.set_num_threads(2)
WORDS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}
def med(f, n=3):
    f(); ts=[]
    for _ in range(n):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return sorted(ts)[n//2]
seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(seed)
named=[((24,6,5,5,60,19),"int32",(2,0,1,3,4,5)),((39,35,941),"complex128",(1,0,2)),((93,5,69,19,4),"complex64",(1,0,2,3,4))]
drawn=[(c.shape,c.dtype,c.axes) for d in range(60) for c in random_permutations(seed*100+d,64,"cpu")]
rows=[]
for shape,dtype,axes in named+drawn:
    if len(rows)>=count: break
    word=np.dtype(WORDS[itemsize_of(dtype)])
    pl=cornerturn.plan(shape,word,axes=axes)
    if "runs of" not in str(pl): continue
    seen=[]
    orig=P.run_tile
    P.run_tile=lambda *a: seen.append(orig(*a)) or seen[-1]
    x=rng.integers(0,256,math.prod(shape)*word.itemsize,dtype=np.uint8).view(word).reshape(shape)
    out=np.empty(tuple(shape[a] for a in axes),word)
    cornerturn.permute_dims(x,axes,out=out)
    P.run_tile=orig
    if seen[-1]==P.RUN_TILE: continue
    want=np.ascontiguousarray(np.permute_dims(x,axes))
    for flag in (False,True):
        P.RUN_TILE_RULE=flag; out.fill(0); cornerturn.permute_dims(x,axes,out=out)
        assert np.array_equal(out.view(np.uint8),want.view(np.uint8))
    src,dst=torch.from_numpy(x).permute(*axes),torch.from_numpy(np.empty_like(out)); c=np.empty_like(x)
    t={}
    for _ in range(3):
        t.setdefault('copy',[]).append(med(lambda: np.copyto(c,x)))
        for flag in (False,True):
            P.RUN_TILE_RULE=flag
            t.setdefault(flag,[]).append(med(lambda: cornerturn.permute_dims(x,axes,out=out)))
        t.setdefault('torch',[]).append(med(lambda: dst.copy_(src)))
    P.RUN_TILE_RULE=True
    m={k:sorted(v)[1] for k,v in t.items()}
    row=dict(case=f"{dtype} {'x'.join(map(str,shape))} {axes}", tile=seen[-1], run_bytes=math.prod(shape)*word.itemsize, speedup=m[False]/m[True], vs_torch=m['torch']/m[True], pct={k:round(100*m['copy']/m[v],1) for k,v in (("fixed",False),("rule",True),("torch","torch"))})
    rows.append(row); print(f"{row['case']:44s} tile {row['tile']:2d} {row['pct']} x{row['speedup']:.3f} torch x{row['vs_torch']:.3f}", flush=True)
s=[r['speedup'] for r in rows]
print(len(s), "geomean", round(math.exp(sum(map(math.log,s))/len(s)),3), round(min(s),3), round(max(s),3), "torch ahead", sum(r['vs_torch']<1 for r in rows))
json.dump(rows, open(f"/tmp/tile-{seed}.json","w"), indent=1)
