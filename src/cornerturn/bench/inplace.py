"""`cornerturn bench --inplace`: transpose_ against out of place plus a copy back, with the copy as the ceiling.

Each case is timed three ways in the same run: cornerturn.transpose_(x); cornerturn.transpose(x, out=tmp) followed
by copying tmp back into x (what a user without in place does, needing a second matrix); and a device (or host)
copy of the same bytes. Bandwidth counts the matrix read and written once (2 x its bytes). The extra memory of
one in-place call is measured: the allocator's peak growth on the GPU (torch), tracemalloc's on the CPU.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

# (batch, rows, cols, dtype)
SUITES: dict[str, list[tuple[int, int, int, str]]] = {
    "cuda": [(1, 16384, 16384, "float32"), (1, 32768, 8192, "float32"), (1, 32768, 8191, "float32"),
             (1, 32768, 12289, "float32"), (1, 8192, 32768, "float32"), (1, 16384, 32768, "float16"),
             (1, 65536, 16384, "int8"), (1, 65536, 16383, "int8"), (1, 32768, 4095, "float16"),
             (1, 8192, 8192, "complex128"), (1, 8192, 4096, "complex128"), (64, 1024, 768, "float32"),
             (1, 16383, 16383, "int8"), (1, 16383, 16383, "float32"), (1, 4096, 14336, "float32"),
             (1, 8192, 28672, "bfloat16"), (1, 30011, 20011, "float32"), (1, 65521, 40009, "int8")],
    "cpu": [(1, 4096, 4096, "float32"), (1, 8192, 2048, "float32"), (1, 8192, 2047, "float32"),
            (1, 2048, 8192, "float64"), (1, 8192, 4096, "int8"), (1, 8192, 3001, "float32")],
    "tiny": [(1, 64, 64, "float32"), (1, 64, 48, "float32"), (2, 33, 65, "float64"), (1, 1000, 3, "int8")],
}
RANDOM = "random"  # squares drawn from --seed: sides log-uniform over RANDOM_SIDES, element sizes 1 to 16 bytes
RANDOM_SIDES = (3000, 40000)
RANDOM_DTYPES = ("int8", "float16", "float32", "float64", "complex128")
RANDOM_MAX_BYTES = 4 << 30  # a case holds three matrices (x, the copy-back buffer, the copy's target)


def random_squares(seed: int, count: int) -> list[tuple[int, int, int, str]]:
    """`count` squares drawn from `seed`: element size uniform over 1, 2, 4, 8, 16 bytes, side log-uniform over
    RANDOM_SIDES (redrawn where the matrix would pass RANDOM_MAX_BYTES); the same seed gives the same squares."""
    if count < 1:
        raise ValueError(f"cases: need at least 1, got {count}")
    rng = np.random.default_rng(seed)
    lo, hi = np.log(RANDOM_SIDES[0]), np.log(RANDOM_SIDES[1])
    cases = []
    while len(cases) < count:
        dtype = str(rng.choice(RANDOM_DTYPES))
        side = int(np.exp(rng.uniform(lo, hi)))
        if side * side * np.dtype(dtype).itemsize <= RANDOM_MAX_BYTES:
            cases.append((1, side, side, dtype))
    return cases


def cases_of(suite: str, seed: int | None = None, count: int | None = None) -> list[tuple[int, int, int, str]]:
    """The (batch, rows, cols, dtype) cases of a named suite, or of the random squares of `seed`."""
    if suite == RANDOM:
        if seed is None:
            raise ValueError("--suite random: needs a seed (--seed)")
        return random_squares(seed, count or 16)
    if suite not in SUITES:
        raise ValueError(f"--suite: unknown in-place suite {suite!r}; choose from {', '.join([*SUITES, RANDOM])}")
    return SUITES[suite]


@dataclass
class InPlaceResult:
    case: str
    bit_exact: bool
    copy_gbps: float
    inplace_gbps: float
    pct_of_copy: float
    inplace_ms: float
    out_of_place_and_back_ms: float
    extra_bytes: int
    matrix_bytes: int


def run(suite: str, device: str, repeats: int = 5, progress: Callable[[str], None] | None = None,
        seed: int | None = None, count: int | None = None) -> dict:
    results = []
    for batch, rows, cols, dtype in cases_of(suite, seed, count):
        name = f"{dtype} {f'{batch}x' if batch > 1 else ''}{rows}x{cols}"
        if progress:
            progress(name)
        case = _cuda_case if device == "cuda" else _cpu_case
        results.append(case(name, (batch, rows, cols) if batch > 1 else (rows, cols), dtype, repeats))
        if device == "cuda":
            import torch

            torch.cuda.empty_cache()  # the case's arrays are gone: give their memory back before the next
    return {"suite": suite, "seed": seed, "device": _device_name(device),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "repeats": repeats,
            "results": [asdict(r) for r in results]}


def by_dtype(results: list[dict]) -> dict[str, tuple[int, float, float, float]]:
    """Per element type of a report's results: (cases, minimum, median, maximum) of % of the copy; the median of an
    even count is the mean of the middle two."""
    groups: dict[str, list[float]] = {}
    for r in results:
        groups.setdefault(r["case"].split()[0], []).append(r["pct_of_copy"])
    return {dtype: (len(p), min(p), statistics.median(p), max(p)) for dtype, p in sorted(groups.items())}


def _device_name(device: str) -> str:
    if device == "cuda":
        import torch

        return torch.cuda.get_device_name()
    return platform.processor() or platform.machine()


def _cuda_case(name: str, shape: tuple[int, ...], dtype: str, repeats: int) -> InPlaceResult:
    import torch

    import cornerturn
    from cornerturn.engine.timing import flush_l2, time_cuda

    tdtype = getattr(torch, dtype)
    nbytes = int(np.prod(shape)) * tdtype.itemsize
    x = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda").view(tdtype).view(shape)
    want = x.transpose(-1, -2).contiguous()
    got = cornerturn.transpose_(x)
    exact = torch.equal(got.reshape(-1).view(torch.uint8), want.view(-1).view(torch.uint8))
    del want
    flush_l2(torch.cuda.current_device())  # allocated before the memory is measured
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    cornerturn.transpose_(x)
    torch.cuda.synchronize()
    extra = torch.cuda.max_memory_allocated() - before
    t_ours = time_cuda(lambda: cornerturn.transpose_(x), repeats=repeats).median
    tmp = torch.empty_like(x)
    flat, flat_tmp = x.view(-1), tmp.view(-1)
    t_copy = time_cuda(lambda: flat_tmp.copy_(flat), repeats=repeats).median

    def out_of_place_and_back():
        cornerturn.transpose(x, out=tmp.view(got.shape))
        flat.copy_(flat_tmp)

    t_back = time_cuda(out_of_place_and_back, repeats=repeats).median
    return _result(name, exact, nbytes, t_ours, t_copy, t_back, extra)


def _cpu_case(name: str, shape: tuple[int, ...], dtype: str, repeats: int) -> InPlaceResult:
    import tracemalloc

    import cornerturn

    from ..timing import time_host

    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    x = np.random.default_rng(0).integers(0, 256, nbytes, dtype=np.uint8).view(dtype).reshape(shape)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    got = cornerturn.transpose_(x)
    exact = bool((got.view(np.uint8) == want.view(np.uint8)).all())
    del want
    tracemalloc.start()
    cornerturn.transpose_(x)
    extra = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    t_ours = time_host(lambda: cornerturn.transpose_(x), repeats=repeats).median
    tmp = np.empty_like(x)
    t_copy = time_host(lambda: np.copyto(tmp, x), repeats=repeats).median
    flat, flat_tmp = x.reshape(-1), tmp.reshape(-1)

    def out_of_place_and_back():
        cornerturn.transpose(x, out=tmp.reshape(got.shape))
        np.copyto(flat, flat_tmp)

    t_back = time_host(out_of_place_and_back, repeats=repeats).median
    return _result(name, exact, nbytes, t_ours, t_copy, t_back, extra)


def _result(name: str, exact: bool, nbytes: int, t_ours: float, t_copy: float, t_back: float,
            extra: int) -> InPlaceResult:
    gb = 2 * nbytes / 1e9
    return InPlaceResult(name, bool(exact), gb / t_copy, gb / t_ours, 100 * t_copy / t_ours, t_ours * 1e3,
                         t_back * 1e3, int(extra), nbytes)
