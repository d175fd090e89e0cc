"""Engine launches compiled for sm_90 without a GPU (Triton's own compiler and ptxas), with the specialisation the
engine's launches get on an H100 or H200: for tests of what the compiler makes of a kernel. The compiling runs in a
process of its own (`run`), as @triton.jit under TRITON_INTERPRET=1 gives the interpreter's functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def compile_launch(launch, constexprs: dict | None = None):
    """`launch`'s kernel compiled for sm_90 (its constexprs, or `constexprs`): integer arguments of 1 made constant
    and multiples of 16 marked so (but those the kernel does not specialise), as Triton specialises them at a
    launch."""
    import triton
    from triton.backends.compiler import GPUTarget

    constexprs = {**launch.defaults(), **(launch.constexprs if constexprs is None else constexprs)}
    names, given = launch.kernel.arg_names, launch.named_ints()
    fixed = {p.name for p in launch.kernel.params if p.do_not_specialize}  # neither 1 nor a multiple of 16
    unaligned = fixed | {p.name for p in launch.kernel.params if p.do_not_specialize_on_alignment}
    signature = {n: f"*i{8 * launch.word}" for n in names[:2]}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    for i, n in enumerate(names[2:], 2):
        if n not in constexprs and given[n] == 1 and n not in fixed:
            constexprs[n] = 1
        signature[n] = "constexpr" if n in constexprs else "i32"
        if n not in constexprs and given[n] % 16 == 0 and n not in unaligned:
            attrs[(i,)] = [["tt.divisibility", 16]]
    source = triton.compiler.ASTSource(fn=launch.kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": launch.num_warps})


def registers(compiled) -> int:
    """Registers a thread of a compiled kernel, as ptxas -v (Triton's own, for sm_90a) reports them."""
    import re
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas

    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(compiled.asm["ptx"])
        f.flush()
        done = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", "-o", os.devnull, f.name],
                              capture_output=True, text=True, check=True)
    return int(re.search(r"Used (\d+) registers", done.stderr).group(1))


def run(script: str, argument) -> object:
    """`script` (which may import this module) run with json.dumps(argument) as sys.argv[1] in a process with the
    interpreter off; what it printed, read as JSON."""
    env = dict(os.environ, TRITON_INTERPRET="0")
    prelude = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
    done = subprocess.run([sys.executable, "-c", prelude + script, json.dumps(argument)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)
