import time, sys, json, numpy as np
from cornerturn.cpu.vectors import vector_kernel
rng=np.random.default_rng(int(sys.argv[1]))
TILES=[(128,128),(256,256),(512,512),(1024,1024),(128,1024),(256,1024),(256,4096),(512,2048),(1024,256)]
cases=[(1,90733,304,4),(1,14894,819,8),(2,749,11043,8),(1,74497,1136,1),(1,760,63061,4),(1,43882,837,4),(1,5441,677,8),(1,3569,9308,8),(1,1680,5194,8),(1,2183,8278,1),(1,10466,7416,2),(16,1114,1776,4),(1,29120,848,1),(1,443,68928,2)]
dt={1:np.uint8,2:np.uint16,4:np.uint32,8:np.uint64}
res=[]
for b,r,c,isz in cases:
    x=rng.integers(0,2**32,size=(b,r,c),dtype=np.uint64).astype(dt[isz]); out=np.empty((b,c,r),dt[isz]); ref=np.ascontiguousarray(x.transpose(0,2,1))
    ks={t:vector_kernel(isz,t,True) for t in TILES}
    for t,k in ks.items():
        out.fill(0xA5); k(x,out); assert (out==ref).all(), t
    tm={t:[] for t in TILES}
    for _ in range(5):
        for t,k in ks.items():
            s=time.perf_counter(); k(x,out); tm[t].append(time.perf_counter()-s)
    med={t:sorted(v)[2] for t,v in tm.items()}; best=min(med.values())
    res.append({'case':f"{b}x{r}x{c} {isz}B",**{f"{t[0]}x{t[1]}":best/med[t] for t in TILES}})
    print(f"{b}x{r}x{c} {isz}B".ljust(20),' '.join(f"{t[0]}x{t[1]}:{best/med[t]:.2f}" for t in TILES),f" best {2*x.nbytes/1e9/best:.1f} GB/s",flush=True)
import math
for t in TILES:
    k=f"{t[0]}x{t[1]}"; v=[r[k] for r in res]; print(k, f"{math.exp(sum(map(math.log,v))/len(v)):.2f} min {min(v):.2f}")
json.dump(res,open('/tmp/probe/rect.json','w'))
