"""Run lab kernels: random input (never zeros), poisoned output, bit-exact check against NumPy, then CUDA-event
timing on the GPU. In numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1) only the check runs."""

from __future__ import annotations

import os
import statistics
from dataclasses import asdict, dataclass, field

import numpy as np

from .registry import REGISTRY, LabKernel, build, launch_shape

POISON = 0xA5


def simulating() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


@dataclass
class LabResult:
    kernel: str
    rows: int
    cols: int
    dtype: str
    verified: bool | None = None
    median_ms: float | None = None
    min_ms: float | None = None
    max_ms: float | None = None
    gbps: float | None = None
    registers: int | None = None  # per thread, read from the compiled kernel (GPU only)
    note: str = ""


@dataclass
class LabReport:
    rows: int
    cols: int
    dtype: str
    simulated: bool
    device: str
    peak_gbps: float | None
    device_copy_gbps: float | None = None  # cudaMemcpy device to device of the same bytes, timed the same way
    results: list[LabResult] = field(default_factory=list)

    def get(self, name: str) -> LabResult | None:
        return next((r for r in self.results if r.kernel == name), None)

    def as_dict(self) -> dict:
        return {**{k: v for k, v in asdict(self).items() if k != "results"},
                "results": [asdict(r) for r in self.results]}


def random_input(rows: int, cols: int, dtype: np.dtype, seed: int = 20261122) -> np.ndarray:
    raw = np.random.default_rng(seed).integers(1, 256, size=rows * cols * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(rows, cols)


def device_description() -> tuple[str, float | None]:
    """The GPU's name and its theoretical peak bandwidth (memory clock x bus width, double data rate)."""
    if simulating():
        return "numba-cuda simulator", None
    from numba import cuda

    dev = cuda.get_current_device()
    clock_khz = dev.MEMORY_CLOCK_RATE
    bus_bits = dev.GLOBAL_MEMORY_BUS_WIDTH
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return name, 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9


def _flush_kernel():
    from numba import cuda

    @cuda.jit
    def flush(buf):
        i = cuda.grid(1)
        if i < buf.size:
            buf[i] = buf[i] + 1

    return flush


def make_flush():
    """A function that rewrites 256 MiB (more than any L2) on the GPU: run before each timed launch, it empties
    L2 of the last run's lines and keeps the GPU busy while the host launches the next kernel, so that the
    host's launch time does not enter the measurement."""
    from numba import cuda

    buf = cuda.device_array(64 << 20, dtype=np.uint32)
    kernel = _flush_kernel()

    def flush():
        kernel[(buf.size + 255) // 256, 256](buf)

    return flush


def _timed(launch, repeats: int, flush=None) -> list[float]:
    """Milliseconds of `launch()` by CUDA events, after two warm-up runs, L2 flushed before each."""
    from numba import cuda

    samples = []
    for i in range(repeats + 2):
        if flush is not None:
            flush()
        start, end = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        launch()
        end.record()
        end.synchronize()
        if i >= 2:
            samples.append(cuda.event_elapsed_time(start, end))
    return samples


def device_copy_gbps(x, y, *, repeats: int, flush=None) -> float:
    """cudaMemcpy device to device of the device array x into y (read + write bytes), the device's own
    ceiling."""
    from numba.cuda.cudadrv import driver

    samples = _timed(lambda: driver.device_to_device(y, x, x.nbytes), repeats, flush)
    return 2 * x.nbytes / (statistics.median(samples) * 1e-3) / 1e9


def run_one(kernel: LabKernel, host: np.ndarray, *, repeats: int, flush=None) -> LabResult:
    from numba import cuda

    rows, cols = host.shape
    result = LabResult(kernel.name, rows, cols, host.dtype.name)
    why_not = kernel.cannot_run(rows, cols)
    if why_not or host.dtype.itemsize not in kernel.itemsizes:
        result.note = why_not or f"{host.dtype.itemsize}-byte elements not supported"
        return result
    fn = build(kernel, host.dtype.name)
    grid, block = launch_shape(kernel, rows, cols)
    x = cuda.to_device(host)
    if kernel.in_place:
        out = x
        want = host.T
    else:
        shape = (cols, rows) if kernel.transposes else (rows, cols)
        poisoned = np.empty(shape, host.dtype)
        poisoned.view(np.uint8)[...] = POISON
        out = cuda.to_device(poisoned)
        want = host.T if kernel.transposes else host
    fn[grid, block](out, x)
    got = out.copy_to_host()
    result.verified = bool(np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)))
    if simulating() or repeats == 0:
        return result
    samples = _timed(lambda: fn[grid, block](out, x), repeats, flush)
    regs = fn.get_regs_per_thread()
    result.registers = int(max(regs.values()) if isinstance(regs, dict) else regs)
    result.median_ms = statistics.median(samples)
    result.min_ms, result.max_ms = min(samples), max(samples)
    result.gbps = 2 * host.nbytes / (result.median_ms * 1e-3) / 1e9
    return result


def run_lab(rows: int, cols: int, dtype: str, kernels: list[str] | None = None, *, repeats: int = 10,
            progress=None) -> LabReport:
    from numba import cuda

    names = kernels or [k.name for k in REGISTRY]
    chosen = [k for k in REGISTRY if k.name in names]
    device, peak = device_description()
    report = LabReport(rows, cols, np.dtype(dtype).name, simulating(), device, peak)
    host = random_input(rows, cols, np.dtype(dtype))
    flush = None
    if not simulating():
        flush = make_flush()
        if repeats:
            report.device_copy_gbps = device_copy_gbps(cuda.to_device(host), cuda.device_array_like(host),
                                                       repeats=repeats, flush=flush)

    for k in chosen:
        if progress:
            progress(k.name)
        try:
            report.results.append(run_one(k, host, repeats=repeats, flush=flush))
        except Exception as exc:  # a kernel that fails to build or launch is reported, not fatal
            report.results.append(LabResult(k.name, rows, cols, np.dtype(dtype).name,
                                            note=f"failed: {type(exc).__name__}: {exc}"[:300]))
    return report
