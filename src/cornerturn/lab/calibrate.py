"""The constants of the lab's speed model, measured on the user's GPU by the probe kernels (lab/probes.py) and
kept in a file per device; without a GPU, the reference files shipped for the H100 and H200.

Each constant comes from a probe that isolates it, on an 8192 x 8192 float32 matrix (256 MiB a side):
- copy_gbps: cudaMemcpy device to device (read + write bytes), the DRAM ceiling;
- latency_ns: Little's law on the tiles probe with one 256-thread block per SM, one load per thread in flight:
  time = bytes / copy rate + tiles per SM x latency;
- block_ns, block_ns_per_warp: what a block costs beyond its loads when each block moves one tile and waits at a
  barrier (start, barrier, exit), from blocks of 8 and 32 warps;
- shared_wavefronts_per_ns (per SM): reads with a 32-way bank conflict;
- l1_lines_per_ns (per SM): loads whose 32 threads touch 32 different 128-byte lines;
- partial_one_block, partial_several_blocks (whole GPU, sectors per ns at each output row pitch measured): stores
  that write 4 bytes of each of 32 sectors 32 rows apart, as the naive transposes write, each sector's 8 parts
  written by the 8 warps of one block (naive-rows) or by 8 different blocks (naive-1d), on outputs of 8192 rows
  with rows of 32 and 64 KiB (PARTIAL_PITCHES);
- rows_apart_load_cost, rows_apart_store_cost: what a byte costs beyond the copy's rate when a block reads
  (writes) rows apart from the block launched before it, from 32 x 32 tiles moved by 256 threads in three
  orders: in place of a copy, written to the transposed tile's place (writes rows apart), and numbered along
  diagonals (reads and writes rows apart), each against the first;
- launch_us: one launch of a kernel with nothing to do, timed as the lab times its kernels.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

REFERENCE_DIR = Path(__file__).resolve().parent.parent / "explain" / "devices"
SIDE = 8192
SCHEMA = 3  # 3: partial-sector stores from one block or several, per row pitch (2026-11-25)
PARTIAL_PITCHES = (8192, 16384)  # float32 columns of the partial-store probes' outputs


@dataclass(frozen=True)
class DeviceConstants:
    device: str
    measured: str  # "YYYY-MM-DD HH:MM UTC"
    sms: int
    clock_ghz: float
    copy_gbps: float
    latency_ns: float
    block_ns: float
    block_ns_per_warp: float
    shared_wavefronts_per_ns: float
    l1_lines_per_ns: float
    partial_one_block: tuple  # ((row pitch in bytes, sectors per ns), ...), pitches rising
    partial_several_blocks: tuple
    rows_apart_load_cost: float
    rows_apart_store_cost: float
    launch_us: float
    reference: bool = False  # True: read from a shipped file, not measured on this machine

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type == "float" and not (isinstance(v, (int, float)) and v == v and v >= 0):
                raise ValueError(f"DeviceConstants.{f.name} must be a number >= 0, got {v!r}")
        if self.sms < 1 or self.copy_gbps <= 0 or self.shared_wavefronts_per_ns <= 0 or self.l1_lines_per_ns <= 0:
            raise ValueError(f"DeviceConstants for {self.device}: rates and SM count must be positive")
        for name in ("partial_one_block", "partial_several_blocks"):
            value = getattr(self, name)
            try:
                pairs = tuple((int(pitch), float(rate)) for pitch, rate in value)
            except (TypeError, ValueError):
                pairs = ()
            pitches = [pitch for pitch, _ in pairs]
            if not pairs or pitches != sorted(set(pitches)) or min(pitches) <= 0 or \
                    not all(rate > 0 and rate == rate for _, rate in pairs):
                raise ValueError(f"DeviceConstants.{name} must be (row pitch in bytes, sectors per ns) pairs, "
                                 f"pitches rising, rates > 0; got {value!r}")
            object.__setattr__(self, name, pairs)

    def partial_rate(self, pitch_bytes: int, one_block: bool) -> float:
        """Partial-sector stores per ns into rows `pitch_bytes` apart, each sector's parts from one block or from
        several: linear in log2 of the pitch between the measured pitches, their end values beyond them."""
        pairs = self.partial_one_block if one_block else self.partial_several_blocks
        if pitch_bytes <= pairs[0][0]:
            return pairs[0][1]
        for (p0, r0), (p1, r1) in zip(pairs, pairs[1:]):
            if pitch_bytes <= p1:
                return r0 + (r1 - r0) * math.log2(pitch_bytes / p0) / math.log2(p1 / p0)
        return pairs[-1][1]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, **dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls, data: dict, *, reference: bool = False) -> DeviceConstants:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"device constants: schema {data.get('schema')!r}, expected {SCHEMA}")
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{**{k: v for k, v in data.items() if k in fields}, "reference": reference})


def _slug(device: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", device).strip("-") or "gpu"


def reference(name: str) -> DeviceConstants:
    """The shipped constants of a reference GPU ("H100" or "H200"; a longer name containing one is fine)."""
    key = name.upper().replace(" ", "")
    for path in sorted(REFERENCE_DIR.glob("*.json")):
        if path.stem.upper() in key:
            return DeviceConstants.from_dict(json.loads(path.read_text()), reference=True)
    known = ", ".join(p.stem for p in sorted(REFERENCE_DIR.glob("*.json")))
    raise ValueError(f"no reference constants for {name!r}; shipped: {known}")


def cache_path(device: str) -> Path | None:
    from ..engine.tune import cache_dir

    folder = cache_dir()
    return None if folder is None else folder / f"lab-constants-{_slug(device)}.json"


def for_device(device: str, *, remeasure: bool = False, progress=None) -> DeviceConstants:
    """This GPU's constants: from its cache file, or measured now (a few seconds) and cached."""
    path = cache_path(device)
    if path is not None and path.exists() and not remeasure:
        try:
            return DeviceConstants.from_dict(json.loads(path.read_text()))
        except (ValueError, TypeError, json.JSONDecodeError):
            pass  # a stale or broken file is measured again
    found = measure(progress=progress)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(found.as_dict(), indent=1))
        tmp.replace(path)
    return found


def time_launch(launch, flush, repeats: int = 7) -> float:
    """Median seconds of `launch()` by CUDA events, after two warm-up calls, timed as the lab times its kernels
    (L2 flushed, the GPU busy while the host launches)."""
    from .runner import _timed

    return statistics.median(_timed(launch, repeats, flush)) * 1e-3


def measure(progress=None, side: int = SIDE) -> DeviceConstants:
    import numpy as np
    from numba import cuda

    from . import probes
    from .runner import device_copy_gbps, device_description, make_flush

    def step(what):
        if progress:
            progress(what)

    dev = cuda.get_current_device()
    name = device_description()[0]
    sms = dev.MULTIPROCESSOR_COUNT
    x = cuda.to_device(np.random.default_rng(7).random((side, side), dtype=np.float32) + 1)
    y = cuda.device_array_like(x)
    nbytes = 2 * x.nbytes
    flush = make_flush()

    step("device copy")
    copy_s = nbytes / (device_copy_gbps(x, y, repeats=7, flush=flush) * 1e9)
    per_byte = copy_s / nbytes

    def tiles_time(threads, blocks_per_sm, barrier):
        kernel = probes.make_tiles(1, barrier)
        tiles = (side // 32) * (side // (threads // 32))
        grid = tiles if blocks_per_sm is None else sms * blocks_per_sm
        return time_launch(lambda: kernel[grid, (32, threads // 32)](y, x), flush), tiles

    step("latency")
    latency = []
    for b in (1, 2):
        t, tiles = tiles_time(256, b, False)
        latency.append((t - nbytes * per_byte) / (tiles / (sms * b)))
    latency_s = statistics.mean(latency)

    step("blocks")
    block = {}
    for threads in (256, 1024):
        t, tiles = tiles_time(threads, None, True)
        waves = tiles / (sms * (2048 // threads))
        block[threads // 32] = max(0.0, (t - nbytes * per_byte) / waves - latency_s)
    per_warp = max(0.0, (block[32] - block[8]) / 24)
    base = max(0.0, block[8] - 8 * per_warp)

    step("shared memory")
    rounds = 4096
    shared = probes.make_shared(32, rounds)
    sink = cuda.device_array(sms * 8 * 256, np.float32)
    t_shared = time_launch(lambda: shared[sms * 8, 256](sink), flush)
    wavefronts = sms * 8 * 8 * rounds * probes.SHARED_READS_PER_ROUND * 32

    step("sectors")
    flat_x, flat_y = x.reshape(x.size), y.reshape(y.size)
    warps = x.size // 32

    def fastest(kernel, grids=(sms * 8, warps // 8)):  # resident blocks looping, or one pass a block
        return min(time_launch(lambda g=g: kernel[g, 256](flat_y, flat_x, np.uint32(warps)), flush) for g in grids)

    t_gather = fastest(probes.make_sectors(1, side))

    step("partial stores")
    one_block, several_blocks = [], []
    for cols in PARTIAL_PITCHES:
        out = cuda.device_array((side, cols), np.float32)
        src = x.reshape(x.size) if cols == side else cuda.device_array(side * cols, np.float32)
        src_warps = side * cols // 32
        for spread, found in ((1, one_block), (16, several_blocks)):
            kernel = probes.make_rows(spread, side // 32)
            t = time_launch(lambda k=kernel, o=out, s=src, n=src_warps: k[n // 8, 256](o, s, np.uint32(n)), flush)
            found.append((cols * 4, side * cols / t / 1e9))
        del out, src

    step("DRAM pages")
    order = {}
    for how in ("copy", "transpose", "diagonal"):
        kernel = probes.make_segments(32, 32, how)
        order[how] = time_launch(lambda k=kernel: k[(side // 32) ** 2, probes.SEGMENT_THREADS](y, x), flush)
    # time = bytes / copy x (1 + (reads apart x load cost + writes apart x store cost) / 2), against the copy order
    store_cost = max(0.0, 2 * (order["transpose"] / order["copy"] - 1))
    load_cost = max(0.0, 2 * (order["diagonal"] / order["copy"] - 1) - store_cost)

    step("launch")
    small = cuda.device_array((32, 32), np.float32)
    one = probes.make_tiles(1, False)
    launch_s = time_launch(lambda: one[2 * sms, (32, 8)](small, small), flush, repeats=21)  # blocks past 4 tiles exit

    return DeviceConstants(
        device=name, measured=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), sms=sms,
        clock_ghz=dev.CLOCK_RATE / 1e6, copy_gbps=nbytes / copy_s / 1e9, latency_ns=latency_s * 1e9,
        block_ns=base * 1e9, block_ns_per_warp=per_warp * 1e9,
        shared_wavefronts_per_ns=wavefronts / t_shared / 1e9 / sms, l1_lines_per_ns=x.size / t_gather / 1e9 / sms,
        partial_one_block=tuple(one_block), partial_several_blocks=tuple(several_blocks),
        rows_apart_load_cost=load_cost, rows_apart_store_cost=store_cost, launch_us=launch_s * 1e6)
