"""Probe kernels that measure the constants of the lab's speed model on the user's GPU.

tiles: each thread loads K elements of a tile, optionally waits at a barrier, then stores them, so a block
holds K loads a thread in flight (Little's law: bytes in flight against bandwidth and latency).
sectors: a warp's load touches 32 / G rows of G consecutive elements, its store is contiguous, so one request
costs up to 32 sectors. rows: partial-sector stores in the naive transposes' pattern, a sector's parts
from the warps of one block or from several blocks. shared: warps read shared memory with a chosen bank conflict,
many times.
"""

from __future__ import annotations

from numba import cuda, float32, uint32

from .kernels import u32


def make_tiles(loads: int, barrier: bool):
    """Blocks of 32 x H threads copy 32-column tiles of H * LOADS rows of a matrix: each thread loads LOADS
    elements H rows apart, optionally waits at a barrier, then stores them. Tiles are taken grid-stride, so a
    grid of (SMs x resident blocks) keeps every block resident for the whole run."""
    K, UK = loads, u32(loads)
    BARRIER = barrier

    @cuda.jit
    def tiles(out, x):
        vals = cuda.local.array(K, float32)
        n_rows, n_cols = uint32(x.shape[0]), uint32(x.shape[1])
        tx, ty, h = uint32(cuda.threadIdx.x), uint32(cuda.threadIdx.y), uint32(cuda.blockDim.y)
        tile_rows = uint32(h * UK)
        tiles_x = uint32(n_cols // uint32(32))
        count = uint32(tiles_x * (n_rows // tile_rows))
        t = uint32(cuda.blockIdx.x)
        while t < count:
            col = uint32(uint32(t % tiles_x) * uint32(32) + tx)
            row = uint32(uint32(t // tiles_x) * tile_rows + ty)
            for i in range(K):
                vals[i] = x[uint32(row + uint32(i) * h), col]
            if BARRIER:
                cuda.syncthreads()
            for i in range(K):
                out[uint32(row + uint32(i) * h), col] = vals[i]
            if BARRIER:
                cuda.syncthreads()
            t = uint32(t + uint32(cuda.gridDim.x))

    return tiles


def make_sectors(group: int, pitch: int):
    """Warp w moves 32 elements: it loads lanes in 32 / G rows of G elements of a matrix with PITCH columns and
    stores 32 consecutive elements."""
    G, ROWS, P = u32(group), u32(32 // group), u32(pitch)
    BLOCKS_PER_BAND = u32(pitch // group)

    @cuda.jit
    def sectors(out, x, warps):
        lane = uint32(cuda.threadIdx.x % uint32(32))
        w = uint32((uint32(cuda.blockIdx.x) * uint32(cuda.blockDim.x) + uint32(cuda.threadIdx.x)) // uint32(32))
        step = uint32(uint32(cuda.gridDim.x) * uint32(cuda.blockDim.x) // uint32(32))
        while w < uint32(warps):
            band, block = uint32(w // BLOCKS_PER_BAND), uint32(w % BLOCKS_PER_BAND)
            row = uint32(band * ROWS + lane // G)
            far = uint32(row * P + block * G + lane % G)
            near = uint32(w * uint32(32) + lane)
            out[near] = x[far]
            w = uint32(w + step)

    return sectors


def make_rows(spread: int, bands: int):
    """Warp w reads 32 consecutive float32 and writes them down column `col` of 32 output rows (4 bytes of 32
    sectors), the warps side by side in launch order 32 rows apart (BANDS bands of 32 rows, then the next 8
    columns), as naive transposes write. The 8 warps that fill a sector are SPREAD warps apart: 1, the 8 warps of
    one 256-thread block (naive-rows); 16 or more, 8 different blocks (naive-1d, whose sectors are filled from 8
    input rows)."""
    F, B = u32(spread), u32(bands)

    @cuda.jit
    def rows(out, x, warps):
        lane = uint32(cuda.threadIdx.x % uint32(32))
        w = uint32((uint32(cuda.blockIdx.x) * uint32(cuda.blockDim.x) + uint32(cuda.threadIdx.x)) // uint32(32))
        if w < warps:  # w = (a x 8 + part) x F + r: sector a x F + r, its part-th 4 bytes
            sector = uint32(uint32(w // uint32(F * uint32(8))) * F + w % F)
            band, group = uint32(sector % B), uint32(sector // B)
            col = uint32(group * uint32(8) + uint32(w // F) % uint32(8))
            out[uint32(band * uint32(32) + lane), col] = x[uint32(w * uint32(32) + lane)]

    return rows


def make_shared(stride: int, rounds: int):
    """Each warp reads shared words lane * STRIDE + r (mod 1024), eight independent reads a round r: STRIDE 1
    is conflict-free, 32 a 32-way conflict."""
    S, R = u32(stride), u32(rounds)

    @cuda.jit
    def shared(out):
        buf = cuda.shared.array(1024, float32)
        t = uint32(cuda.threadIdx.x)
        lane = uint32(t % uint32(32))
        i = t
        while i < uint32(1024):
            buf[i] = float32(i)
            i = uint32(i + uint32(cuda.blockDim.x))
        cuda.syncthreads()
        a0 = float32(0)
        a1 = float32(0)
        a2 = float32(0)
        a3 = float32(0)
        base = uint32(lane * S)
        m = uint32(1023)
        r = uint32(0)
        while r < R:  # the word moves with r, so no read repeats and none can be hoisted out of the loop
            o = uint32(base + r)
            a0 += buf[uint32(o & m)]
            a1 += buf[uint32(uint32(o + uint32(128)) & m)]
            a2 += buf[uint32(uint32(o + uint32(256)) & m)]
            a3 += buf[uint32(uint32(o + uint32(384)) & m)]
            a0 += buf[uint32(uint32(o + uint32(512)) & m)]
            a1 += buf[uint32(uint32(o + uint32(640)) & m)]
            a2 += buf[uint32(uint32(o + uint32(768)) & m)]
            a3 += buf[uint32(uint32(o + uint32(896)) & m)]
            r = uint32(r + uint32(1))
        out[uint32(cuda.blockIdx.x) * uint32(cuda.blockDim.x) + t] = a0 + a1 + a2 + a3

    return shared


SHARED_READS_PER_ROUND = 8


SEGMENT_THREADS = 256


def make_segments(width: int, height: int, order: str):
    """Blocks of 256 threads move H x W tiles of a float32 matrix, K = W * H / 256 loads a thread, one tile a
    block. Reads are rows of W elements; ORDER says where a tile's bytes go:
    - "copy": the same place (a copy, both sides in the input's row order);
    - "transpose": the transposed tile's place, written in rows of H elements (the DRAM pattern of a tiled
      transpose without its shuffle: consecutive blocks write W rows apart);
    - "diagonal": as "transpose", with tiles numbered along diagonals (consecutive blocks read and write rows
      apart)."""
    if width * height % SEGMENT_THREADS or order not in ("copy", "transpose", "diagonal"):
        raise ValueError(f"segments: {height}x{width} tiles, order {order!r}")
    K = width * height // SEGMENT_THREADS
    W, H, T = u32(width), u32(height), u32(SEGMENT_THREADS)
    TRANSPOSE, DIAGONAL = order != "copy", order == "diagonal"

    @cuda.jit
    def segments(out, x):
        vals = cuda.local.array(K, float32)
        tiles_x = uint32(uint32(x.shape[1]) // W)
        tiles_y = uint32(uint32(x.shape[0]) // H)
        count = uint32(tiles_x * tiles_y)
        tid = uint32(cuda.threadIdx.x)
        t = uint32(cuda.blockIdx.x)
        while t < count:
            tr, tc = uint32(t // tiles_x), uint32(t % tiles_x)
            if DIAGONAL:
                tr = uint32(t % tiles_y)
                tc = uint32(uint32(t // tiles_y + tr) % tiles_x)
            for i in range(K):
                f = uint32(uint32(i) * T + tid)
                vals[i] = x[uint32(tr * H + f // W), uint32(tc * W + f % W)]
            for i in range(K):
                f = uint32(uint32(i) * T + tid)
                if TRANSPOSE:
                    out[uint32(tc * W + f // H), uint32(tr * H + f % H)] = vals[i]
                else:
                    out[uint32(tr * H + f // W), uint32(tc * W + f % W)] = vals[i]
            t = uint32(t + uint32(cuda.gridDim.x))

    return segments
