"""Probe: does a kernel's speed in the bench depend on what ran just before it? Five permutations and transposes
timed alone (time_cuda), in rounds after the copy and torch (time_cuda_rounds) and after the copy only; then in
rounds where each sample follows an untimed call of the same method. Prints GB/s.

    python3 scripts/bench_wake_probe.py
"""
# ruff: noqa
import torch, cornerturn
from cornerturn.engine.timing import time_cuda, time_cuda_rounds
for shape, axes, dt in [((256,256,64,64),(3,2,1,0),torch.int8), ((7,6667,1995),(1,2,0),torch.int16), ((5078,158,61),(2,0,1),torch.int32), ((258,5786,32),(2,0,1),torch.int16), ((825737,545),(1,0),torch.int8)]:
    x = torch.randint(-100, 100, shape, dtype=dt, device="cuda")
    want = x.permute(*axes).contiguous()
    out = torch.empty_like(want); cp = torch.empty_like(x)
    p = cornerturn.plan(shape, dt, axes=axes, device="cuda")
    p.execute(x, out); torch.cuda.synchronize(); assert torch.equal(out, want)
    ours = lambda: p.execute(x, out)
    nb = 2 * x.numel() * x.element_size()
    alone = time_cuda(ours, repeats=7).median
    copy_alone = time_cuda(lambda: cp.copy_(x), repeats=7).median
    r = time_cuda_rounds({"copy": lambda: cp.copy_(x), "torch": lambda: out.copy_(x.permute(*axes)), "ours": ours}, repeats=7)
    r2 = time_cuda_rounds({"copy": lambda: cp.copy_(x), "ours": ours}, repeats=7)
    print(tuple(shape), axes, p.method if hasattr(p, "method") else "", f"alone {nb/alone/1e9:.0f} copy-alone {nb/copy_alone/1e9:.0f} | rounds3 ours {nb/r['ours'].median/1e9:.0f} copy {nb/r['copy'].median/1e9:.0f} | rounds2 ours {nb/r2['ours'].median/1e9:.0f}", flush=True)
print("settled rounds:")
for shape, axes, dt in [((256,256,64,64),(3,2,1,0),torch.int8), ((825737,545),(1,0),torch.int8)]:
    x = torch.randint(-100, 100, shape, dtype=dt, device="cuda")
    out = torch.empty_like(x.permute(*axes).contiguous()); cp = torch.empty_like(x)
    p = cornerturn.plan(shape, dt, axes=axes, device="cuda")
    ours = lambda: p.execute(x, out)
    nb = 2 * x.numel() * x.element_size()
    r = time_cuda_rounds({"copy": lambda: cp.copy_(x), "torch": lambda: out.copy_(x.permute(*axes)), "ours": ours}, repeats=7)
    print(tuple(shape), axes, f"rounds3 settled ours {nb/r['ours'].median/1e9:.0f} copy {nb/r['copy'].median/1e9:.0f} torch {nb/r['torch'].median/1e9:.0f}", flush=True)
