import time, numpy as np, math
from cornerturn.cpu.vectors import vector_kernel
rng=np.random.default_rng(9)
dt={1:np.uint8,2:np.uint16,4:np.uint32,8:np.uint64}
def fl(ext,t,n):
    k=max(1,ext//t); s=-(-ext//k); return max(n, -(-s//n)*n)
def bal(ext,t,n):
    k=-(-ext//t); s=-(-ext//k); return max(n, -(-s//n)*n)
for b,r,c,isz in [(1,393,58446,8),(1,385,84388,4),(1,17516,1186,1),(1,1006,6535,8),(11,529,9453,4),(1,2223,2639,4),(1,44927,499,4),(1,7138,1060,8),(1,439,72097,1),(1,10590,9252,1),(1,90733,304,4),(2,749,11043,8),(1,760,63061,4),(1,14894,819,8)]:
    n=16//isz
    x=rng.integers(0,2**32,size=(b,r,c),dtype=np.uint64).astype(dt[isz]); out=np.empty((b,c,r),dt[isz]); ref=np.ascontiguousarray(x.transpose(0,2,1))
    T={'shipped':(1024 if isz>1 else 512,)*2,'host':(256,1024),'ceil':(bal(r,256,n),bal(c,1024,n)),'floor':(fl(r,256,n),fl(c,1024,n))}
    ks={k:vector_kernel(isz,t,True) for k,t in T.items()}
    for k in ks.values(): out.fill(1); k(x,out); assert (out==ref).all()
    tm={k:[] for k in ks}
    for _ in range(7):
        for k,f in ks.items():
            s=time.perf_counter(); f(x,out); tm[k].append(time.perf_counter()-s)
    gb=2*x.nbytes/1e9
    print(f"{b}x{r}x{c} {isz}B", ' '.join(f"{k}{T[k]}: {gb/sorted(v)[3]:.1f}" for k,v in tm.items()),flush=True)
