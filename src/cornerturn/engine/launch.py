"""Launching a Triton kernel with fixed arguments, cheaply.

Triton's own `kernel[grid](...)` binds and specialises every argument on every call (about 15 us). A `Launch`
fixes everything but the two base pointers when it is planned; on the GPU it compiles once per pointer
alignment class (Triton specialises pointers on divisibility by 16) and then calls the compiled kernel's
launcher directly with integer pointers and the stream. Under TRITON_INTERPRET=1 it runs the kernel on torch
tensors through Triton's interpreter instead.
"""

from __future__ import annotations

import os
from typing import Any

_WORD_TORCH_DTYPES = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def inline_asm() -> bool:
    """Whether kernels may take their inline PTX paths (funnel shifts, byte permutes; the ASM constexpr): not under
    Triton's interpreter, which runs no PTX."""
    return os.environ.get("TRITON_INTERPRET", "0") != "1"


class _Pointer:
    """What Triton's specialisation needs of a tensor argument: an address and a dtype."""

    __slots__ = ("_ptr", "dtype")

    def __init__(self, ptr: int, dtype: Any) -> None:
        self._ptr = ptr
        self.dtype = dtype

    def data_ptr(self) -> int:
        return self._ptr


class Launch:
    """kernel(x, out, *ints, **constexprs) on a 1-D grid of `programs`, words of `word` bytes."""

    def __init__(self, kernel: Any, programs: int, ints: tuple[int, ...], constexprs: dict[str, Any],
                 num_warps: int, word: int) -> None:
        if programs >= 2**31:
            raise ValueError(f"{programs} programs exceed the grid's x extent (2**31 - 1)")
        self.kernel = kernel
        self.programs = programs
        self.ints = ints
        self.constexprs = constexprs
        self.num_warps = num_warps
        self.word = word
        self._compiled: dict[tuple[bool, bool], tuple[Any, tuple]] = {}

    def named_ints(self) -> dict[str, int]:
        """The planned integer arguments by the kernel's names for them."""
        return dict(zip(self.kernel.arg_names[2:], self.ints))

    def defaults(self) -> dict[str, Any]:
        """The kernel's arguments that this launch leaves at their defaults (the engine's kernels give defaults to
        compile-time arguments only), read from the Python function's signature."""
        import inspect

        return {name: p.default for name, p in inspect.signature(self.kernel.fn).parameters.items()
                if p.default is not p.empty and name not in self.constexprs}

    def run_tensors(self, x: Any, out: Any, ints: tuple[int, ...] | None = None) -> None:
        """Through Triton's own launch path: torch tensors whose data pointers are the first elements."""
        self.kernel[(self.programs,)](x, out, *(self.ints if ints is None else ints), num_warps=self.num_warps,
                                      **self.constexprs)

    def _compile(self, key: tuple[bool, bool], x_ptr: int, out_ptr: int, device: int) -> tuple[Any, tuple]:
        import torch

        dtype = getattr(torch, _WORD_TORCH_DTYPES[self.word])
        with torch.cuda.device(device):
            compiled = self.kernel.warmup(_Pointer(x_ptr, dtype), _Pointer(out_ptr, dtype), *self.ints,
                                          grid=(self.programs,), num_warps=self.num_warps, **self.constexprs)
            compiled._init_handles()
        given = {**self.defaults(), **self.named_ints(), **self.constexprs}
        tail = tuple(given[n] for n in self.kernel.arg_names[2:])
        entry = (_direct_launch(compiled, self.programs, tail), compiled, tail)
        self._compiled[key] = entry
        return entry

    def run_pointers(self, x_ptr: int, out_ptr: int, stream: int, device: int,
                     ints: tuple[int, ...] | None = None) -> None:
        """Launch on `stream` of the current device with raw device addresses.

        `ints` replaces the planned integer arguments for this launch; the kernel must not specialise on the
        ones that change (triton.jit's do_not_specialize), as the compiled kernel is the planned ints' one.
        """
        key = (x_ptr % 16 == 0, out_ptr % 16 == 0)
        entry = self._compiled.get(key)
        if entry is None:
            entry = self._compile(key, x_ptr, out_ptr, device)
        direct, compiled, tail = entry
        if ints is not None:
            tail = (*ints, *tail[len(ints):])
        if direct is not None:
            direct(stream, x_ptr, out_ptr, tail)
        else:
            compiled.run(self.programs, 1, 1, stream, compiled.function, compiled.packed_metadata, None, None, None,
                         x_ptr, out_ptr, *tail)


def _direct_launch(compiled: Any, programs: int, tail: tuple):
    """The C launcher of a compiled kernel with everything but the stream and pointers bound, or None where
    this Triton's launcher is not the one this was written against (then CompiledKernel.run is used)."""
    launcher = compiled.run
    try:
        if launcher.global_scratch_size or launcher.profile_scratch_size:
            return None
        launch, coop, pdl = launcher.launch, launcher.launch_cooperative_grid, launcher.launch_pdl
        function, meta = compiled.function, compiled.packed_metadata
    except AttributeError:
        return None

    def direct(stream: int, x_ptr: int, out_ptr: int, tail: tuple = tail) -> None:
        launch(programs, 1, 1, stream, function, coop, pdl, None, None, meta, None, None, None, x_ptr, out_ptr,
               *tail)

    return direct
