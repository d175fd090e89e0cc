"""Per-SM limits of NVIDIA GPUs for the occupancy model (CUDA C Programming Guide, compute capability tables;
bandwidths from the vendors' datasheets). The current GPU is read from the device where one is present."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    name: str
    cc: tuple[int, int]
    sms: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    shared_per_sm: int  # bytes usable by blocks
    shared_per_block: int  # bytes, static + dynamic opt-in limit
    registers_per_sm: int
    clock_ghz: float  # boost clock of the SMs
    dram_gbps: float  # datasheet bandwidth, read + write combined


KNOWN: dict[str, GpuSpec] = {s.name: s for s in (
    GpuSpec("H200", (9, 0), 132, 2048, 32, 228 * 1024, 227 * 1024, 65536, 1.98, 4800),
    GpuSpec("H100", (9, 0), 132, 2048, 32, 228 * 1024, 227 * 1024, 65536, 1.98, 3350),
    GpuSpec("A100", (8, 0), 108, 2048, 32, 164 * 1024, 163 * 1024, 65536, 1.41, 2039),
    GpuSpec("L4", (8, 9), 58, 1536, 24, 100 * 1024, 99 * 1024, 65536, 2.04, 300),
    GpuSpec("RTX4090", (8, 9), 128, 1536, 24, 100 * 1024, 99 * 1024, 65536, 2.52, 1008),
    GpuSpec("V100", (7, 0), 80, 2048, 32, 96 * 1024, 96 * 1024, 65536, 1.53, 900),
)}


def spec(name: str | None = None) -> GpuSpec:
    """The named GPU (a substring of its name is enough), or the current device, or an H100 by default."""
    if name is None:
        name = current_gpu_name() or "H100"
    key = name.upper().replace(" ", "").replace("NVIDIA", "")
    for known, s in KNOWN.items():
        if known in key or key in known:
            return s
    raise ValueError(f"unknown GPU {name!r}; known: {', '.join(KNOWN)}")


def current_gpu_name() -> str | None:
    import os

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return None
    from ..info import cuda_devices

    names, _ = cuda_devices()
    return names[0].split(",")[0] if names else None
