"""A model of one warp's memory traffic in each lab kernel, and of the kernel's occupancy.

For an interior block (no edge effects) the model lists each memory instruction of warp 0 with the address
every thread touches, then counts: 32-byte sectors per global request (and the ideal count, the bytes the warp
needs), and for shared memory the bank-conflict ways (distinct 4-byte words in the busiest of the 32 banks,
per phase: a warp's request is served 128 bytes at a time) and the wavefronts it takes. Set beside the next
block in launch order, it also says which global accesses land rows apart from the previous block's (DRAM
pages: `rows_apart`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..lab.registry import LabKernel, get
from .gpus import GpuSpec

SECTOR = 32
BANKS = 32
ROW_ELEMENTS = 8192  # the interior of a big matrix: rows far apart in memory


@dataclass(frozen=True)
class Access:
    space: str  # "global" | "shared"
    op: str  # "load" | "store"
    what: str  # e.g. "x[row, col]"
    addresses: tuple[int, ...]  # byte address per thread of the warp
    itemsize: int

    @property
    def sectors(self) -> int:
        return len({a // SECTOR for a in self.addresses})

    @property
    def ideal_sectors(self) -> int:
        return max(1, math.ceil(len(self.addresses) * self.itemsize / SECTOR))

    @property
    def lines(self) -> tuple[int, ...]:
        return tuple(a // 128 for a in self.addresses)

    def banks(self) -> tuple[int, ...]:
        return tuple((a // 4) % BANKS for a in self.addresses)

    def phases(self) -> list[tuple[int, ...]]:
        per_phase = max(1, 128 // max(self.itemsize, 4))
        return [self.addresses[i:i + per_phase] for i in range(0, len(self.addresses), per_phase)]

    def phase_ways(self) -> list[int]:
        """Per phase: the distinct 4-byte words its threads touch in the busiest bank (1: no conflict)."""
        found = []
        for phase in self.phases():
            words: dict[int, set[int]] = {}
            for a in phase:
                for w in range(a // 4, (a + max(self.itemsize, 1) - 1) // 4 + 1):
                    words.setdefault(w % BANKS, set()).add(w)
            found.append(max(len(v) for v in words.values()))
        return found

    @property
    def ways(self) -> int:
        """Bank-conflict ways of the worst phase (1: no conflict)."""
        return max(self.phase_ways())

    @property
    def wavefronts(self) -> int:
        return sum(self.phase_ways())

    @property
    def extra_wavefronts(self) -> int:
        """What Nsight Compute counts as bank conflicts for this request."""
        return self.wavefronts - len(self.phases())


@dataclass
class KernelModel:
    kernel: LabKernel
    itemsize: int
    accesses: list[Access] = field(default_factory=list)
    elements_per_warp_pass: int = 32  # elements a warp moves per listed access

    def of(self, space: str, op: str) -> list[Access]:
        return [a for a in self.accesses if a.space == space and a.op == op]

    def sectors_per_request(self, op: str) -> float:
        acc = self.of("global", op)
        return sum(a.sectors for a in acc) / len(acc) if acc else 0.0

    def ideal_sectors_per_request(self, op: str) -> float:
        acc = self.of("global", op)
        return sum(a.ideal_sectors for a in acc) / len(acc) if acc else 0.0

    def efficiency(self, op: str) -> float:
        s = self.sectors_per_request(op)
        return self.ideal_sectors_per_request(op) / s if s else 1.0

    def ways(self, op: str) -> int:
        acc = self.of("shared", op)
        return max((a.ways for a in acc), default=0)

    def extra_wavefronts(self, op: str) -> float:
        acc = self.of("shared", op)
        return sum(a.extra_wavefronts for a in acc) / len(acc) if acc else 0.0


def _warp_threads(block: tuple[int, int]) -> list[tuple[int, int]]:
    bx = block[0]
    return [(t % bx, t // bx) for t in range(32)]


INTERIOR = (4, 5)  # (blockIdx.y, blockIdx.x) of an interior block above the diagonal


def tile_of(kernel: LabKernel, by: int, bx: int) -> tuple[int, int]:
    """(tile row, tile column) that block (by, bx) moves: the diagonal kernel renumbers its blocks along
    diagonals of the square grid of ROW_ELEMENTS / tile tiles a side."""
    if kernel.params.get("diagonal"):
        tiles = ROW_ELEMENTS // kernel.tile[0]
        linear = bx + tiles * by
        row = linear % tiles
        return row, (linear // tiles + row) % tiles
    return by, bx


def model(kernel: LabKernel | str, itemsize: int = 4, block: tuple[int, int] = INTERIOR) -> KernelModel:
    """The accesses of warp 0 of block (blockIdx.y, blockIdx.x) (an interior one), one pass of its loop."""
    k = get(kernel) if isinstance(kernel, str) else kernel
    s = itemsize
    threads = _warp_threads(k.block)
    n = ROW_ELEMENTS
    x_base, out_base = 0, 1 << 40
    tile_r, tile_c = k.tile
    tr, tc = tile_of(k, *block)
    y0, x0 = tr * tile_r, tc * tile_c
    m = KernelModel(k, s)

    def g(op, what, base, cells):
        m.accesses.append(Access("global", op, what, tuple(base + (r * n + c) * s for r, c in cells), s))

    def sh(op, what, width, cells):
        m.accesses.append(Access("shared", op, what, tuple((r * width + c) * s for r, c in cells), s))

    if k.name == "naive-1d":  # a 1-D grid: block b moves elements b x 256 ... of the flat matrix
        first = (block[0] * 1024 + block[1]) * k.block[0]
        cells = [divmod(first + t, n) for t in range(32)]
        g("load", "x[row, col]", x_base, cells)
        g("store", "out[col, row]", out_base, [(c, r) for r, c in cells])
        return m
    if k.name == "naive-cols":
        g("load", "x[out_col, out_row]", x_base, [(x0 + tx, y0 + ty) for tx, ty in threads])
        g("store", "out[out_row, out_col]", out_base, [(y0 + ty, x0 + tx) for tx, ty in threads])
        return m
    read = [(y0 + ty, x0 + tx) for tx, ty in threads]
    src, dst, buf = ("a", "a", "upper") if k.in_place else ("x", "out", "buf")  # in place: one matrix, two tiles
    g("load", f"{src}[y0 + ty, x0 + tx]", x_base, read)
    width = tile_c + k.pad
    if k.family == "copy":
        if k.uses_shared:
            sh("store", "buf[ty, tx]", width, [(ty, tx) for tx, ty in threads])
            sh("load", "buf[ty, tx]", width, [(ty, tx) for tx, ty in threads])
        g("store", "out[y0 + ty, x0 + tx]", out_base, read)
        return m
    if k.family == "naive":
        g("store", "out[x0 + tx, y0 + ty]", out_base, [(c, r) for r, c in read])
        return m
    sh("store", f"{buf}[ty, tx]", width, [(ty, tx) for tx, ty in threads])
    if k.family == "rectangular":
        t_ids = [ty * k.block[0] + tx for tx, ty in threads]
        cells = [(t % tile_r, t // tile_r) for t in t_ids]  # (out_c, out_r)
        sh("load", "buf[out_c, out_r]", width, cells)
        g("store", "out[x0 + out_r, y0 + out_c]", out_base, [(x0 + r, y0 + c) for c, r in cells])
        return m
    sh("load", f"{buf}[tx, ty]", width, [(tx, ty) for tx, ty in threads])
    g("store", f"{dst}[x0 + ty, y0 + tx]", out_base, [(x0 + ty, y0 + tx) for tx, ty in threads])
    if k.in_place:  # the mirror tile, read and written in the same matrix
        mirror = [(x0 + ty, y0 + tx) for tx, ty in threads]
        g("load", "a[x0 + ty, y0 + tx]", x_base, mirror)
        sh("store", "lower[ty, tx]", width, [(ty, tx) for tx, ty in threads])
        sh("load", "lower[tx, ty]", width, [(tx, ty) for tx, ty in threads])
        g("store", "a[y0 + ty, x0 + tx]", out_base, read)
    return m


def rows_apart(kernel: LabKernel | str, itemsize: int = 4) -> dict[str, float]:
    """For loads and for stores, the share of a block's global accesses whose bytes start in another row than
    the same access of the block launched just before it: consecutive blocks of a tiled transpose read along
    the input's rows but write tiles a tile's width of rows apart, so their writes open a new DRAM page each."""
    k = get(kernel) if isinstance(kernel, str) else kernel
    by, bx = INTERIOR
    here, after = model(k, itemsize, (by, bx)).accesses, model(k, itemsize, (by, bx + 1)).accesses
    row_bytes = ROW_ELEMENTS * itemsize
    found = {}
    for op in ("load", "store"):
        pairs = [(a, b) for a, b in zip(here, after) if a.space == "global" and a.op == op]
        apart = sum(1 for a, b in pairs if min(a.addresses) // row_bytes != min(b.addresses) // row_bytes)
        found[op] = apart / len(pairs) if pairs else 0.0
    return found


@dataclass(frozen=True)
class Occupancy:
    threads_per_block: int
    shared_per_block: int
    registers_per_thread: int
    blocks_per_sm: int
    limited_by: str
    occupancy: float  # resident warps / maximum warps


def occupancy(kernel: LabKernel | str, itemsize: int, gpu: GpuSpec, registers: int = 32) -> Occupancy:
    k = get(kernel) if isinstance(kernel, str) else kernel
    threads = k.block[0] * k.block[1]
    shared = k.shared_bytes(itemsize)
    regs_per_block = math.ceil(registers * threads / 256) * 256
    limits = {
        "blocks per SM": gpu.max_blocks_per_sm,
        "threads per SM": gpu.max_threads_per_sm // threads,
        "shared memory": gpu.shared_per_sm // (shared + 1024) if shared else gpu.max_blocks_per_sm,
        "registers": gpu.registers_per_sm // regs_per_block,
    }
    by, blocks = min(limits.items(), key=lambda kv: kv[1])
    return Occupancy(threads, shared, registers, blocks, by, blocks * threads / gpu.max_threads_per_sm)
