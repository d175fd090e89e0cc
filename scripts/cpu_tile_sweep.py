import time, sys, json, numpy as np, cornerturn
from cornerturn.cpu.vectors import vector_kernel
from cornerturn.cpu.planner import vector_variant
from cornerturn.problem import canonical
seed=int(sys.argv[1]); n=int(sys.argv[2]); sizes=[int(s) for s in sys.argv[3].split(',')]
rng=np.random.default_rng(seed)
TILES=[128,256,512,1024]
res=[]
cases=[]
for i in range(n):
    isz=sizes[i%len(sizes)]
    nbytes=2**rng.uniform(24,28)
    el=nbytes/isz
    batch=1 if rng.random()<0.75 else int(2**rng.uniform(1,6))
    per=el/batch
    r=int(2**rng.uniform(np.log2(300),np.log2(max(301,per/300))))
    c=max(300,int(per/r))
    cases.append((batch,r,c,isz))
cases+= [(1,1680,5194,8),(33,350,421,8)]
dt={1:np.uint8,2:np.uint16,4:np.uint32,8:np.uint64}
for batch,r,c,isz in cases:
    x=rng.integers(0,2**32,size=(batch,r,c),dtype=np.uint64).astype(dt[isz])
    out=np.empty((batch,c,r),dt[isz]); ref=np.ascontiguousarray(x.transpose(0,2,1))
    cp=np.empty_like(x)
    ks={t:vector_kernel(isz,t,True,False) for t in TILES}
    for t,k in ks.items():
        out.fill(7); k(x,out); assert (out==ref).all()
    times={t:[] for t in TILES}; times['copy']=[]
    for rnd in range(5):
        for t,k in ks.items():
            s=time.perf_counter(); k(x,out); times[t].append(time.perf_counter()-s)
        s=time.perf_counter(); np.copyto(cp,x); times['copy'].append(time.perf_counter()-s)
    med={k:sorted(v)[2] for k,v in times.items()}
    p=vector_variant(canonical((batch,r,c),x.strides,isz) if batch>1 else canonical((r,c),x.strides[1:],isz),True)
    best=min(TILES,key=lambda t:med[t])
    gb=2*x.nbytes/1e9
    line={'case':f"{batch}x{r}x{c} {isz}B",'mb':x.nbytes/2**20,'planned':p.tile,'best':best,**{str(t):gb/med[t] for t in TILES},'copy':gb/med['copy']}
    res.append(line)
    print(f"{line['case']:24s} {line['mb']:6.0f}MiB plan {p.tile:5d} best {best:5d} "+' '.join(f"{t}:{gb/med[t]:5.1f}" for t in TILES)+f" copy {gb/med['copy']:5.1f}  planned/best {med[best]/med[p.tile]:.2f}",flush=True)
json.dump(res,open(f'/tmp/probe/tiles-{seed}.json','w'))
