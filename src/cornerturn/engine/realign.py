"""1- and 2-byte transposes whose rows start anywhere, with every global access an aligned 32-bit word.

Loads: a warp reads one input row's piece of the tile as 32 aligned words, each lane funnel-shifting its word and
the next into place, so shared memory holds the piece aligned to its first element. Stores: a warp writes one
output row's piece as the aligned words that cover it, each gathered from four tile rows (the lanes visit them in
rotated order, so the odd shared pitch keeps a warp's loads conflict-free); the two words at a piece's ends, which
neighbouring tiles share, are written byte by byte.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import cuda, int32, uint32, uint64

WARP = 32
PIECE_BYTES = 124  # an input row's piece: 31 aligned words, read from the 32 words that hold it however it starts


@dataclass(frozen=True)
class RealignConfig:
    """A realign launch: tiles of `out_bytes` bytes of each output row (124 or 248: one or two warp-wide passes) by
    PIECE_BYTES of each input row, `num_warps` warps a block."""

    out_bytes: int = 124
    num_warps: int = 8

    def __post_init__(self) -> None:
        if self.out_bytes not in (124, 248):
            raise ValueError(f"RealignConfig.out_bytes: 124 or 248, got {self.out_bytes}")
        if self.num_warps not in (4, 8, 16):
            raise ValueError(f"RealignConfig.num_warps: 4, 8 or 16, got {self.num_warps}")

    @property
    def name(self) -> str:
        return f"realign{self.out_bytes}-w{self.num_warps}"


def tile_shape(config: RealignConfig, itemsize: int) -> tuple[int, int]:
    """(input rows, input columns) of one tile."""
    return config.out_bytes // itemsize, PIECE_BYTES // itemsize


_KERNELS: dict = {}


def kernel(config: RealignConfig, itemsize: int):
    """The compiled kernel for one config and element size (1 or 2 bytes), made on first use."""
    key = (config, itemsize)
    if key not in _KERNELS:
        _KERNELS[key] = _make(config, itemsize)
    return _KERNELS[key]


def _byte_perm_sim(x, y, s):
    """The simulator's stand-in for PTX prmt (libdevice's byte_perm): byte n of the result is byte (s >> 4n) & 7 of
    y:x."""
    pair = ((int(y) & 0xFFFFFFFF) << 32) | (int(x) & 0xFFFFFFFF)
    out = 0
    for n in range(4):
        out |= ((pair >> (8 * ((int(s) >> (4 * n)) & 7))) & 0xFF) << (8 * n)
    return out


def _make(config: RealignConfig, itemsize: int):
    from numba.core import config as numba_config

    if numba_config.ENABLE_CUDASIM:
        perm = _byte_perm_sim
    else:
        from numba.cuda import libdevice

        perm = libdevice.byte_perm  # prmt; takes and gives int32

    E = uint32(itemsize)
    G = uint32(4 // itemsize)  # rows a group: one output word's elements
    GROUPS = config.out_bytes // 4  # groups of rows a tile (31 or 62)
    TR, TC = (uint32(v) for v in tile_shape(config, itemsize))
    IN_WORDS = PIECE_BYTES // 4  # 31 aligned words of each input row's piece
    ROW_WORDS = 32  # shared pitch: the input pieces XOR-swizzled by their group, so a warp's group loads miss banks
    OUT_WORDS = -(-(GROUPS + 1) // WARP) * WARP  # grouped words of an output row, one spare
    A_SHAPE = (config.out_bytes // itemsize, ROW_WORDS)
    B_SHAPE = (PIECE_BYTES // itemsize, OUT_WORDS)
    WARPS = uint32(config.num_warps)
    LOAD_STEPS = -(-(config.out_bytes // itemsize) // config.num_warps)
    GROUP_PASSES = -(-GROUPS // WARP)
    PERM_STEPS = -(-IN_WORDS // config.num_warps)
    STORE_STEPS = -(-(PIECE_BYTES // itemsize) // config.num_warps)
    Z, ONE, TWO, THREE, FOUR, EIGHT = (uint32(v) for v in (0, 1, 2, 3, 4, 8))
    LANES, BYTE, SWIZZLE = uint32(WARP), uint32(0xFF), uint32(ROW_WORDS - 1)
    BYTES = itemsize == 1

    @cuda.jit
    def realign(xw, ow, ob, rows, cols, x_shift, x_row, x_batch, o_shift, o_row, o_batch, tiles_r, tiles_c):
        # strides in bytes; shifts: the first element's byte within the aligned word where xw (ow, ob) starts.
        # Tile-local arithmetic in 32 bits (numba widens every sum, hence the casts), addresses in 64.
        rows, cols, x_row, x_batch = uint64(rows), uint64(cols), uint64(x_row), uint64(x_batch)
        o_row, o_batch, tiles_r, tiles_c = uint64(o_row), uint64(o_batch), uint64(tiles_r), uint64(tiles_c)
        a = cuda.shared.array(A_SHAPE, uint32)  # input pieces, aligned to their first element
        grouped = cuda.shared.array(B_SHAPE, uint32)  # output rows as words of G consecutive tile rows
        lo = cuda.local.array(LOAD_STEPS, uint32)
        hi = cuda.local.array(LOAD_STEPS, uint32)
        pid = uint64(cuda.blockIdx.x)
        per_matrix = tiles_r * tiles_c
        b = pid // per_matrix
        rest = pid - b * per_matrix
        tr = rest // tiles_c
        r0 = tr * uint64(TR)
        c0 = (rest - tr * tiles_c) * uint64(TC)
        lane = uint32(cuda.threadIdx.x % LANES)
        warp = uint32(cuda.threadIdx.x // LANES)
        valid_rows = uint32(min(uint64(TR), rows - r0))
        valid_cols = uint32(min(uint64(TC), cols - c0))
        # 1. loads: warp-wide pieces of input rows, each lane the aligned word it holds and the next
        x_base = uint64(x_shift) + b * x_batch + r0 * x_row + c0 * uint64(E)
        piece = uint32(valid_cols * E)  # valid bytes of each input row's piece
        base_shift, row_shift = uint32(x_base & uint64(3)), uint32(x_row & uint64(3))
        for s in range(LOAD_STEPS):
            i = uint32(warp + uint32(s) * WARPS)
            lo[s] = Z
            hi[s] = Z
            if i < valid_rows and uint32(lane * FOUR) < piece:
                start = x_base + uint64(i) * x_row
                w = (start >> uint64(2)) + uint64(lane)
                lo[s] = xw[w]
                if uint32(lane * FOUR + FOUR) < uint32(piece + uint32(start & uint64(3))):
                    hi[s] = xw[w + uint64(1)]
        for s in range(LOAD_STEPS):
            i = uint32(warp + uint32(s) * WARPS)
            if i < valid_rows and lane < uint32(IN_WORDS):
                shift = uint32(uint32(base_shift + i * row_shift) & THREE) * EIGHT
                pair = (uint64(hi[s]) << uint64(32)) | uint64(lo[s])
                a[i, lane ^ (uint32(i // G) & SWIZZLE)] = uint32((pair >> uint64(shift)) & uint64(0xFFFFFFFF))
        cuda.syncthreads()
        # 2. each lane turns G rows x one word (G columns) into G grouped words, one per output row
        for s in range(PERM_STEPS):
            cw = uint32(warp + uint32(s) * WARPS)  # a word of the input pieces: columns cw * G ...
            if cw < uint32(IN_WORDS):
                for p in range(GROUP_PASSES):
                    g = uint32(lane + uint32(p) * LANES)
                    if g < uint32(GROUPS):
                        col = cw ^ (g & SWIZZLE)
                        j = uint32(cw * G)
                        if BYTES:
                            r = uint32(g * FOUR)
                            a0, a1, a2, a3 = a[r, col], a[r + ONE, col], a[r + TWO, col], a[r + THREE, col]
                            t0 = uint32(perm(int32(a0), int32(a1), int32(0x5140)))
                            t1 = uint32(perm(int32(a2), int32(a3), int32(0x5140)))
                            t2 = uint32(perm(int32(a0), int32(a1), int32(0x7362)))
                            t3 = uint32(perm(int32(a2), int32(a3), int32(0x7362)))
                            grouped[j, g] = uint32(perm(int32(t0), int32(t1), int32(0x5410)))
                            grouped[j + ONE, g] = uint32(perm(int32(t0), int32(t1), int32(0x7632)))
                            grouped[j + TWO, g] = uint32(perm(int32(t2), int32(t3), int32(0x5410)))
                            grouped[j + THREE, g] = uint32(perm(int32(t2), int32(t3), int32(0x7632)))
                        else:
                            r = uint32(g * TWO)
                            a0, a1 = a[r, col], a[r + ONE, col]
                            grouped[j, g] = uint32(perm(int32(a0), int32(a1), int32(0x5410)))
                            grouped[j + ONE, g] = uint32(perm(int32(a0), int32(a1), int32(0x7632)))
        cuda.syncthreads()
        # 3. stores: warp-wide pieces of output rows, each lane one aligned word funnel-shifted from two groups
        o_base = uint64(o_shift) + b * o_batch + c0 * o_row + r0 * uint64(E)
        length = uint32(valid_rows * E)  # valid bytes of each output row's piece
        for s in range(STORE_STEPS):
            j = uint32(warp + uint32(s) * WARPS)
            if j < valid_cols:
                start = o_base + uint64(j) * o_row
                shift = uint32(start & uint64(3))
                end = uint32(length + shift)  # one past the piece's last byte, counted from its first word
                for p in range(OUT_WORDS // WARP):
                    k = uint32(lane + uint32(p) * LANES)
                    first = uint32(k * FOUR)
                    if first < end:
                        high = grouped[j, k] if k < uint32(OUT_WORDS) else Z
                        low = grouped[j, k - ONE] if k > Z else Z
                        pair = (uint64(high) << uint64(32)) | uint64(low)
                        word = uint32((pair >> uint64(uint32(FOUR - shift) * EIGHT)) & uint64(0xFFFFFFFF))
                        address = (start >> uint64(2)) + uint64(k)
                        if first >= shift and uint32(first + FOUR) <= end:
                            ow[address] = word
                        else:  # a word that neighbouring tiles share: its bytes one by one
                            for t in range(4):
                                pos = uint32(first + uint32(t))
                                if pos >= shift and pos < end:
                                    ob[address * uint64(4) + uint64(t)] = np.uint8((word >> uint32(t * 8)) & BYTE)

    return realign


@dataclass(frozen=True)
class Geometry:
    """One launch's matrices: `batch` matrices of rows x cols elements; strides in bytes, all positive; the output
    C-contiguous within each matrix unless out_row says otherwise."""

    itemsize: int
    batch: int
    rows: int
    cols: int
    x_row: int
    x_batch: int
    out_row: int
    out_batch: int

    def x_span(self) -> int:
        """Bytes from x's first element to one past its last."""
        return (self.batch - 1) * self.x_batch + (self.rows - 1) * self.x_row + self.cols * self.itemsize

    def out_span(self) -> int:
        return (self.batch - 1) * self.out_batch + (self.cols - 1) * self.out_row + self.rows * self.itemsize


def grid(config: RealignConfig, g: Geometry) -> tuple[int, int, int]:
    """(programs, tiles along rows, tiles along columns)."""
    tr, tc = tile_shape(config, g.itemsize)
    tiles_r, tiles_c = -(-g.rows // tr), -(-g.cols // tc)
    return g.batch * tiles_r * tiles_c, tiles_r, tiles_c


def run_arrays(config: RealignConfig, g: Geometry, xw, x_shift: int, ow, ob, out_shift: int, stream=0) -> None:
    """Launch on arrays: xw the 32-bit words from the one that holds x's first byte (x_shift bytes into it), ow and
    ob the output's words and bytes from the word that holds its first byte (out_shift bytes into it)."""
    programs, tiles_r, tiles_c = grid(config, g)
    if programs == 0:
        return
    k = kernel(config, g.itemsize)
    k[programs, WARP * config.num_warps, stream](xw, ow, ob, g.rows, g.cols, x_shift, g.x_row, g.x_batch, out_shift,
                                                 g.out_row, g.out_batch, tiles_r, tiles_c)


def _device_words(ptr: int, nbytes: int, typestr: str):
    n = nbytes if typestr == "|u1" else -(-nbytes // 4)
    return cuda.from_cuda_array_interface({"shape": (n,), "typestr": typestr, "data": (ptr, False), "version": 3,
                                           "strides": None}, owner=None, sync=False)


def run_pointers(config: RealignConfig, g: Geometry, x_ptr: int, out_ptr: int, stream: int) -> None:
    """Launch on raw device addresses on `stream` (a CUstream handle)."""
    x0, o0 = x_ptr & ~3, out_ptr & ~3
    xw = _device_words(x0, x_ptr - x0 + g.x_span(), "<u4")
    o_bytes = out_ptr - o0 + g.out_span()
    ow = _device_words(o0, o_bytes, "<u4")
    ob = _device_words(o0, o_bytes, "|u1")
    run_arrays(config, g, xw, x_ptr - x0, ow, ob, out_ptr - o0, cuda.external_stream(stream) if stream else 0)
