"""The lab's speed model: the time of a kernel on an M x N matrix from its structure and a GPU's measured
constants (lab/calibrate.py).

Each limiter is a time on the whole matrix:
- dram: the bytes at the device copy's rate (cudaMemcpy device to device), plus what DRAM pages cost when a
  block's reads or writes start rows apart from the previous block's (model.rows_apart): each byte read rows
  apart costs `rows_apart_load_cost` more, each byte written rows apart `rows_apart_store_cost` more;
- latency: what the blocks cannot hide. A block waits `rounds` load latencies (the loads of one round are in
  flight together), its barrier, start and exit (block_ns + block_ns_per_warp a warp) and its own shared-memory
  wavefronts; an SM runs `blocks_per_sm` blocks at a time, so the grid takes ceil(blocks / (SMs x blocks_per_sm))
  such waves. This is Little's law: the bytes an SM holds in flight over the time they take is its bandwidth;
- shared: every wavefront of every block at the measured wavefront rate per SM;
- l1: each global request costs a lookup per distinct 128-byte line it touches (a warp reading down 32 rows);
- partial: stores that write only part of a 32-byte sector (4 bytes of each of 32 rows), at the rate measured for
  such stores into rows of the output's pitch, with each sector's parts written by one block (a block covers the
  sector's rows of the input) or by several (naive-1d: a block covers part of one input row). Several blocks
  cost more (H100, 2026-11-25: 56 against 60 sectors/ns on rows of 32 KiB, 53 against 56 on rows of 64 KiB;
  docs/lab.md).
dram, latency and shared overlap only in part (a block's shared phase and its loads come one after the other),
so they add in quadrature: memory = sqrt(dram^2 + latency^2 + shared^2). l1 and partial are throughput limits
that other work hides under. time = max(memory, l1, partial) + one launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..lab.calibrate import DeviceConstants
from ..lab.registry import LabKernel, get
from .gpus import GpuSpec, spec
from .model import SECTOR, model, occupancy, rows_apart


@dataclass(frozen=True)
class Traits:
    """What the speed model needs to know of a kernel for one element size (from the registry and the warp
    model)."""
    threads: int
    blocks_per_sm: int
    elements_per_block: int  # elements a working block moves
    rounds: int  # load latencies a block waits in turn: the loads of one round are in flight together
    loads_per_thread: int  # loads a thread has in flight in one round
    barrier: bool
    wavefronts_per_block: float
    lines_per_element: float  # distinct 128-byte lines per element, the worse of a load and a store request
    partial_sectors_per_element: float
    sector_in_one_block: bool = True  # a partial sector's parts all written by one block
    loads_rows_apart: float = 0.0  # share of the loads that start rows apart from the previous block's
    stores_rows_apart: float = 0.0


def traits(kernel: LabKernel | str, itemsize: int, gpu: GpuSpec, registers: int = 32) -> Traits:
    k = get(kernel) if isinstance(kernel, str) else kernel
    m = model(k, itemsize)
    threads = k.block[0] * k.block[1]
    tile = k.tile[0] * k.tile[1]
    occ = occupancy(k, itemsize, gpu, registers)
    staged = k.uses_shared
    if k.name == "naive-1d":
        tile = threads  # one element a thread, a 1-D grid
    passes = max(1, tile // threads)  # each warp repeats its listed accesses once per element of a tile
    loads = len(m.of("global", "load"))  # in place: a tile and its mirror
    global_acc = m.of("global", "load") + m.of("global", "store")
    lines = max(len(set(a.lines)) / len(a.addresses) for a in global_acc)
    partial, stored = 0, 0
    for a in m.of("global", "store"):
        written: dict[int, int] = {}
        for addr in a.addresses:
            written[addr // SECTOR] = written.get(addr // SECTOR, 0) + a.itemsize
        partial += sum(1 for b in written.values() if b < SECTOR)
        stored += len(a.addresses)
    warps = threads // 32
    wavefronts = warps * passes * sum(a.wavefronts for a in m.accesses if a.space == "shared")
    apart = rows_apart(k, itemsize)
    rows_a_block = k.tile[0]  # input rows a block covers (naive-1d's tile of 1 x 1: part of one row)
    return Traits(threads=threads, blocks_per_sm=occ.blocks_per_sm, elements_per_block=tile * loads,
                  rounds=1 if staged else passes * loads, loads_per_thread=passes * loads if staged else 1,
                  barrier=staged, wavefronts_per_block=wavefronts, lines_per_element=lines,
                  partial_sectors_per_element=partial / stored,
                  sector_in_one_block=rows_a_block * itemsize >= SECTOR, loads_rows_apart=apart["load"],
                  stores_rows_apart=apart["store"])


@dataclass(frozen=True)
class Prediction:
    kernel: str
    gbps: float
    seconds: float
    limiter: str  # the slowest term, in words
    terms: dict  # seconds per term: memory, dram, latency, shared, l1, partial, launch
    in_flight_kib: float  # bytes a SM holds in flight (loads), KiB
    needed_kib: float  # bytes in flight per SM that would cover the latency at the copy's rate, KiB
    block_ns: float  # one block's time: its rounds of latency, barrier and start/exit, its wavefronts
    waves: int
    constants: DeviceConstants
    traits: Traits


def predict(kernel: LabKernel | str, rows: int, cols: int, itemsize: int, c: DeviceConstants,
            registers: int = 32) -> Prediction:
    k = get(kernel) if isinstance(kernel, str) else kernel
    gpu = spec(c.device)
    t = traits(k, itemsize, gpu, registers)
    elements = rows * cols
    nbytes = 2 * elements * itemsize
    blocks = math.ceil(elements / t.elements_per_block)
    if k.in_place:
        side = math.ceil(rows / k.tile[0])
        blocks = side * (side + 1) // 2
    waves = math.ceil(blocks / (c.sms * t.blocks_per_sm))
    barrier_ns = c.block_ns + c.block_ns_per_warp * t.threads / 32 if t.barrier else 0.0
    per_block_ns = t.rounds * c.latency_ns + barrier_ns + t.wavefronts_per_block / c.shared_wavefronts_per_ns
    pages = (t.loads_rows_apart * c.rows_apart_load_cost + t.stores_rows_apart * c.rows_apart_store_cost) / 2
    terms = {
        "dram": nbytes / (c.copy_gbps * 1e9) * (1 + pages),
        "pages": nbytes / (c.copy_gbps * 1e9) * pages,
        "latency": waves * per_block_ns * 1e-9,
        "shared": blocks * t.wavefronts_per_block / (c.sms * c.shared_wavefronts_per_ns) * 1e-9,
        "l1": elements * t.lines_per_element / (c.sms * c.l1_lines_per_ns) * 1e-9,
        "partial": elements * t.partial_sectors_per_element / c.partial_rate(rows * itemsize, t.sector_in_one_block)
        * 1e-9,
        "launch": c.launch_us * 1e-6,
    }
    terms["memory"] = math.sqrt(terms["dram"] ** 2 + terms["latency"] ** 2 + terms["shared"] ** 2)
    # the block's time in parts, for naming the limiter
    terms["load_latency"] = waves * t.rounds * c.latency_ns * 1e-9
    terms["barrier"] = waves * barrier_ns * 1e-9
    terms["block_shared"] = waves * t.wavefronts_per_block / c.shared_wavefronts_per_ns * 1e-9
    slowest = max(("memory", "l1", "partial"), key=lambda key: terms[key])
    seconds = terms[slowest] + terms["launch"]
    in_flight = t.blocks_per_sm * t.threads * t.loads_per_thread * itemsize / 1024
    needed = needed_kib(c)
    near_copy = nbytes / seconds / 1e9 >= 0.9 * c.copy_gbps
    limiter = _limiter(k, t, slowest, terms, in_flight, needed, itemsize, near_copy)
    return Prediction(k.name, nbytes / seconds / 1e9, seconds, limiter, terms, in_flight, needed, per_block_ns,
                      waves, c, t)


def needed_kib(c: DeviceConstants, share: float = 0.9) -> float:
    """Load bytes in flight per SM at which a streaming kernel runs at `share` of the copy: its latency term
    must stay within sqrt(1 / share^2 - 1) of its dram term; one latency at the copy's read rate, per SM, is the
    unit."""
    return c.latency_ns * c.copy_gbps / 2 / c.sms / math.sqrt(1 / share**2 - 1) / 1024


def _limiter(k: LabKernel, t: Traits, slowest: str, terms: dict, in_flight: float, needed: float,
             itemsize: int, near_copy: bool) -> str:
    """What keeps the kernel from the copy's speed: the slowest throughput limit, else the largest part of the
    memory time other than DRAM itself."""
    if terms["launch"] > terms[slowest]:
        return f"launch: {terms['launch'] * 1e6:.0f} us for the whole matrix"
    if slowest == "l1":
        return f"L1 lines: {t.lines_per_element * 32:.0f} a request"
    if slowest == "partial":
        blocks = "" if t.sector_in_one_block else ", each sector from several blocks"
        return f"partial-sector stores: {t.partial_sectors_per_element * 32:.0f} a request{blocks}"
    if near_copy:
        return "DRAM"
    # each part's share of the memory time: d(memory)/d(term) = term / memory, so a part weighs part x term
    parts = {"load_latency": terms["load_latency"] * terms["latency"],
             "barrier": terms["barrier"] * terms["latency"],
             "shared": max(terms["shared"] ** 2, terms["block_shared"] * terms["latency"]),
             "pages": terms["pages"] * terms["dram"]}
    part = max(parts, key=lambda key: parts[key])
    flight = f"{in_flight:.0f} KiB per SM of {needed:.0f} needed"
    if part == "shared":
        ways = model(k, itemsize).ways("load")
        return f"bank conflicts: {ways}-way" if ways > 1 else "shared memory"
    if part == "barrier":
        return f"barrier stalls: {t.threads // 32} warps a block wait for their loads (in flight: {flight})"
    if part == "pages":
        sides = [side for side, share in (("reads", t.loads_rows_apart), ("writes", t.stores_rows_apart)) if share]
        return f"DRAM pages: the next block's {' and '.join(sides)} start rows apart"
    return f"bytes in flight: {flight}"
