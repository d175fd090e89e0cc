"""The CPU engine: plans a canonical problem onto a Numba tile kernel, a NumPy copy, or NumPy itself."""

from __future__ import annotations

from .planner import CPU_VARIANTS, CpuVariant, choose_variant, run

__all__ = ["CPU_VARIANTS", "CpuVariant", "choose_variant", "run"]
