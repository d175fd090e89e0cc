import time, numpy as np, itertools
from cornerturn.cpu.vectors import vector_kernel
from cornerturn.cpu.planner import choose_variant
from cornerturn.problem import canonical
rng=np.random.default_rng(11)
dt={1:np.uint8,2:np.uint16,4:np.uint32,8:np.uint64}
cases=[(16384,16384,1),(8192,8192,2),(8192,8192,4),(8192,8192,8),(4096,6144,2),(6000,2304,4),(3000,2688,8),(5000,6144,1)]
for r,c,isz in cases:
    x=rng.integers(0,2**32,size=(1,r,c),dtype=np.uint64).astype(dt[isz]); out=np.empty((1,c,r),dt[isz])
    plan=choose_variant(canonical((r,c),x.strides[1:],isz))
    T=[((t,t),False) for t in (64,128,256,512)]+[((128,1024),False),((256,1024),False),((64,1024),False)]
    if isz in (4,8) or True: T+=[((t,t),True) for t in (128,256,512)]+[((128,1024),True),((256,1024),True)]
    ks={f"{'s' if st else ''}{t[0]}x{t[1]}":vector_kernel(isz,t,True,st) for t,st in T}
    ks['plan']=lambda a,b: plan.kernel(a,b)
    ref=None
    for k in ks.values(): k(x,out)
    tm={k:[] for k in ks}
    for _ in range(3):
        for k,f in ks.items():
            s=time.perf_counter(); f(x,out); tm[k].append(time.perf_counter()-s)
    gb=2*x.nbytes/1e9
    med={k:gb/sorted(v)[1] for k,v in tm.items()}
    best=max(med,key=med.get)
    print(f"{r}x{c} {isz}B plan {plan.name}: {med['plan']:.1f} GB/s; best {best} {med[best]:.1f}; "+' '.join(f"{k}:{v:.1f}" for k,v in med.items() if k!='plan'),flush=True)
