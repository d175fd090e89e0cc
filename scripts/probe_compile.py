"""Probe (GPU): where a torch.compile'd call of cornerturn.transpose spends its host time (cProfile), against the
eager call, back to back."""

import cProfile
import io
import pstats

import torch

import cornerturn
from cornerturn.engine.timing import time_wall

a = torch.randn(8192, 4096, device="cuda")
small = torch.randn(64, 64, device="cuda")


def f(t):
    return cornerturn.transpose(t)


compiled = torch.compile(f, fullgraph=True)
for x in (a, small):
    compiled(x)
    f(x)
    torch.cuda.synchronize()
    print(tuple(x.shape), "eager", round(min(time_wall(lambda x=x: f(x), calls=200) for _ in range(3)) * 1e6, 1),
          "us; compiled", round(min(time_wall(lambda x=x: compiled(x), calls=200) for _ in range(3)) * 1e6, 1),
          "us; op", round(min(time_wall(lambda x=x: torch.ops.cornerturn.transpose(x), calls=200)
                             for _ in range(3)) * 1e6, 1), "us", flush=True)
prof = cProfile.Profile()
prof.enable()
for _ in range(300):
    compiled(small)
prof.disable()
torch.cuda.synchronize()
buf = io.StringIO()
pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(18)
print("\n".join(buf.getvalue().splitlines()[-30:]))
