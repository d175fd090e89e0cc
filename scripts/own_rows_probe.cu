// Probe: 1- and 2-byte transposes in which every 32-byte output sector has one writer. Tile t of output row c
// owns the bytes from the 32-byte boundary at or before t*256 bytes past the row's start to the next such boundary
// 256 bytes on, so the tile reads 32 bytes of input rows (H rows) before its own. Three passes through shared
// memory: aligned 16-byte loads of each input row's piece as they lie; 4-byte words funnel-shifted to the piece's
// first element and byte-permuted into output words; each output row's aligned 16-byte chunks funnel-shifted from
// five words at that row's own offset.
#ifdef __CUDACC_RTC__
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uintptr_t;
#else
#include <cstdint>
#endif

#define TC 64    // input columns (output rows) a tile
#define TRB 256  // output bytes a row a tile
#define THREADS 256

template <int E>
struct Shape {
    static constexpr int K = 4 / E;                 // elements a word
    static constexpr int TR = TRB / E;              // output elements a row a tile
    static constexpr int H = 32 / E;                // halo rows (elements of the largest row shift)
    static constexpr int NR = TR + H;               // input rows a tile reads
    static constexpr int TCB = TC * E;              // bytes of each input row a tile reads
    static constexpr int NV = (TCB + 15 + 15) / 16; // 16-byte vectors that can cover them
    static constexpr int SI = NV * 4;               // words a shared input row (4 mod 8: rows 4 apart 16 banks)
    static constexpr int SO = NR / K + 1;           // words a shared output row (odd)
};

__device__ __forceinline__ uint32_t shift_words(uint32_t lo, uint32_t hi, uint32_t bits) {
    return __funnelshift_r(lo, hi, bits);
}

template <int E>
__device__ __forceinline__ void transpose_words(const uint32_t (&w)[4 / E], uint32_t (&o)[4 / E]);

template <>
__device__ __forceinline__ void transpose_words<1>(const uint32_t (&w)[4], uint32_t (&o)[4]) {
    // w[k] holds row k's bytes of columns 0..3; o[m] gets column m's bytes of rows 0..3
    uint32_t a = __byte_perm(w[0], w[1], 0x5140);  // r0c0 r1c0 r0c1 r1c1
    uint32_t b = __byte_perm(w[2], w[3], 0x5140);  // r2c0 r3c0 r2c1 r3c1
    uint32_t c = __byte_perm(w[0], w[1], 0x7362);  // r0c2 r1c2 r0c3 r1c3
    uint32_t d = __byte_perm(w[2], w[3], 0x7362);
    o[0] = __byte_perm(a, b, 0x5410);
    o[1] = __byte_perm(a, b, 0x7632);
    o[2] = __byte_perm(c, d, 0x5410);
    o[3] = __byte_perm(c, d, 0x7632);
}

template <>
__device__ __forceinline__ void transpose_words<2>(const uint32_t (&w)[2], uint32_t (&o)[2]) {
    o[0] = __byte_perm(w[0], w[1], 0x5410);
    o[1] = __byte_perm(w[0], w[1], 0x7632);
}

// One aligned 16-byte chunk of an output row whose first element is `first`: whole where all of it lies in the row,
// else element by element
template <int E, typename I>
__device__ __forceinline__ void store_chunk(uint8_t* dst, const uint4& val, I first, I rows) {
    if (first >= 0 && first + 16 / E <= rows) {
        *reinterpret_cast<uint4*>(dst) = val;
        return;
    }
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&val);
    for (int j = 0; j < 16; j += E) {
        const I r = first + j / E;
        if (r < 0 || r >= rows) continue;
        if (E == 1) dst[j] = bytes[j];
        else *reinterpret_cast<uint16_t*>(dst + j) = *reinterpret_cast<const uint16_t*>(bytes + j);
    }
}

template <int E>
__global__ void __launch_bounds__(THREADS) own_rows(const uint8_t* __restrict__ x, uint8_t* __restrict__ out,
                                                   long long rows, long long cols, long long in_pitch,
                                                   long long out_pitch, long long in_batch, long long out_batch) {
    using S = Shape<E>;
    __shared__ __align__(16) uint32_t sin[S::NR * S::SI];
    __shared__ uint32_t sout[TC * S::SO];
    const int tid = threadIdx.x;
    const long long t = blockIdx.x;
    const long long c0 = (long long)blockIdx.y * TC;
    const long long b = blockIdx.z;
    const long long r0 = t * S::TR - S::H;  // input row of shared row 0
    const uint8_t* xb = x + (b * in_batch) * E;
    uint8_t* ob = out + (b * out_batch) * E;
    const long long valid_cols = cols - c0 < TC ? cols - c0 : TC;
    const int valid_bytes = (int)valid_cols * E;

    // 1. each input row's piece as the aligned vectors that hold it
    for (int u = tid; u < S::NR * S::NV; u += THREADS) {
        const int i = u / S::NV, v = u - i * S::NV;
        const long long r = r0 + i;
        if (r < 0 || r >= rows) continue;
        const uintptr_t start = (uintptr_t)(xb + (r * in_pitch + c0) * E);
        const int a = (int)(start & 15);
        if (v * 16 >= a + valid_bytes) continue;
        const uint4 q = *reinterpret_cast<const uint4*>(start - a + 16 * v);
        *reinterpret_cast<uint4*>(&sin[i * S::SI + 4 * v]) = q;
    }
    __syncthreads();

    // 2. K rows x K columns a unit: words shifted to the piece's first element, permuted into output words
    constexpr int K = S::K, GROUPS = S::NR / K, QS = TC / K;
    for (int u = tid; u < GROUPS * QS; u += THREADS) {
        const int g = u / QS, q = u - g * QS;
        uint32_t w[K], o[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int i = g * K + k;
            const int a = (int)((uintptr_t)(xb + ((r0 + i) * in_pitch + c0) * E) & 15) + q * 4;
            const uint32_t* row = &sin[i * S::SI + (a >> 2)];
            w[k] = shift_words(row[0], row[1], (a & 3) * 8);
        }
        transpose_words<E>(w, o);
#pragma unroll
        for (int m = 0; m < K; ++m) sout[(q * K + m) * S::SO + g] = o[m];
    }
    __syncthreads();

    // 3. each output row's aligned chunks, shifted from its own offset
    constexpr int CHUNKS = TRB / 16;
    for (int u = tid; u < TC * CHUNKS; u += THREADS) {
        const int c = u / CHUNKS, v = u - c * CHUNKS;
        if (c >= valid_cols) break;  // c only grows with u
        uint8_t* row_start = ob + ((c0 + c) * out_pitch) * E;
        const int s = (int)((uintptr_t)row_start & 31);
        const long long first = t * S::TR - s / E + v * (16 / E);  // output element of the chunk's first byte
        const int off = 32 - s + 16 * v;                            // its byte in the shared row
        const uint32_t* src = &sout[c * S::SO + (off >> 2)];
        const uint32_t bits = (off & 3) * 8;
        uint4 val;
        val.x = shift_words(src[0], src[1], bits);
        val.y = shift_words(src[1], src[2], bits);
        val.z = shift_words(src[2], src[3], bits);
        val.w = shift_words(src[3], src[4], bits);
        store_chunk<E, long long>(row_start + first * E, val, first, rows);
    }
}


// The same three passes in persistent blocks that load the next tile (cp.async, 16 bytes from global memory to
// shared memory) while they permute and store this one; each row's shift is computed once, when its load is issued.
__device__ __forceinline__ void copy16_async(void* smem, const void* global) {
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global));
}
__device__ __forceinline__ void commit_async() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void wait_async_but_one() { asm volatile("cp.async.wait_group 1;\n" ::); }

template <int E, typename I>
__device__ __forceinline__ void issue_tile(const uint8_t* x, uint32_t* sin, unsigned char* shifts, int tile,
                                           int row_tiles, int col_tiles, long long rows, long long cols,
                                           long long in_pitch, long long in_batch) {
    using S = Shape<E>;
    const int t = tile % row_tiles, rest = tile / row_tiles;
    const int ct = rest % col_tiles, b = rest / col_tiles;
    const I r0 = (I)t * S::TR - S::H, c0 = (I)ct * TC;
    const uint8_t* xb = x + ((long long)b * in_batch + (long long)c0) * E;
    const long long valid_cols = cols - c0 < TC ? cols - c0 : TC;
    const int valid_bytes = (int)valid_cols * E;
    // each warp takes 32 / NV rows a step, a lane one vector of one of them (lanes past the last row idle)
    constexpr int WARP_ROWS = 32 / S::NV, STEP_ROWS = WARP_ROWS * (THREADS / 32);
    static_assert(S::NR % STEP_ROWS == 0, "rows a tile: whole steps");
    const int lane = threadIdx.x & 31, lane_row = lane / S::NV, v = lane - lane_row * S::NV;
    if (lane_row >= WARP_ROWS) return commit_async();
    int i = (threadIdx.x >> 5) * WARP_ROWS + lane_row;
    I r = r0 + i;
    const uint8_t* start = xb + r * (I)in_pitch * E;
    const I step = (I)STEP_ROWS * (I)in_pitch * E;
#pragma unroll 2
    for (; i < S::NR; i += STEP_ROWS, r += STEP_ROWS, start += step) {
        const int a = (int)((uintptr_t)start & 15);
        if (v == 0) shifts[i] = (unsigned char)a;
        if (r >= 0 && r < (I)rows && v * 16 < a + valid_bytes)
            copy16_async(&sin[i * S::SI + 4 * v], start - a + 16 * v);
    }
    commit_async();
}

template <int E, typename I, int P>
__global__ void __launch_bounds__(THREADS) own_rows_pipe(const uint8_t* __restrict__ x, uint8_t* __restrict__ out,
                                                        long long rows, long long cols, long long in_pitch,
                                                        long long out_pitch, long long in_batch,
                                                        long long out_batch, int row_tiles, int col_tiles,
                                                        int tiles) {
    using S = Shape<E>;
    extern __shared__ __align__(16) uint32_t smem[];
    uint32_t* sout = smem + 2 * S::NR * S::SI;
    unsigned char* shift_base = reinterpret_cast<unsigned char*>(sout + TC * S::SO);
    const int tid = threadIdx.x;
    int tile = blockIdx.x, cur = 0;
    if (tile < tiles) issue_tile<E, I>(x, smem, shift_base, tile, row_tiles, col_tiles, rows, cols, in_pitch, in_batch);
    for (; tile < tiles; tile += gridDim.x, cur ^= 1) {
        __syncthreads();  // the last tile's passes 2 and 3 are done: its buffers may be reused
        const int next = tile + gridDim.x;
        if (next < tiles)
            issue_tile<E, I>(x, smem + (cur ^ 1) * S::NR * S::SI, shift_base + (cur ^ 1) * S::NR, next, row_tiles, col_tiles, rows, cols, in_pitch,
                          in_batch);
        else
            commit_async();
        wait_async_but_one();
        __syncthreads();
        const int t = tile % row_tiles, rest = tile / row_tiles;
        const int ct = rest % col_tiles, b = rest / col_tiles;
        const I c0 = (I)ct * TC;
        const I valid_cols = (I)cols - c0 < TC ? (I)cols - c0 : TC;
        constexpr int K = S::K, GROUPS = S::NR / K, QS = TC / K;
        const uint32_t* in_rows = smem + cur * S::NR * S::SI;
        const unsigned char* sh = shift_base + cur * S::NR;
        constexpr int QP = QS / P;  // units a row group, P words of each of K rows a unit
        for (int u = tid; u < GROUPS * QP; u += THREADS) {
            const int g = u / QP, q = u - g * QP;
            uint32_t w[P][K], o[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int i = g * K + k;
                const int a = sh[i] + q * 4 * P;
                const uint32_t* row = &in_rows[i * S::SI + (a >> 2)];
                const uint32_t bits = (a & 3) * 8;
                uint32_t x[P + 1];
#pragma unroll
                for (int j = 0; j <= P; ++j) x[j] = row[j];
#pragma unroll
                for (int j = 0; j < P; ++j) w[j][k] = shift_words(x[j], x[j + 1], bits);
            }
#pragma unroll
            for (int j = 0; j < P; ++j) {
                transpose_words<E>(w[j], o);
#pragma unroll
                for (int m = 0; m < K; ++m) sout[((q * P + j) * K + m) * S::SO + g] = o[m];
            }
        }
        __syncthreads();
        constexpr int CHUNKS = TRB / 16, ROWS_A_STEP = THREADS / CHUNKS;
        const int v = tid % CHUNKS;  // each thread keeps its chunk and steps down the rows
        const I step = (I)ROWS_A_STEP * (I)out_pitch * E;
        const I tile_first = (I)t * S::TR + v * (16 / E);
        uint8_t* row_start = out + ((long long)b * out_batch + ((long long)c0 + tid / CHUNKS) * out_pitch) * E;
        for (int c = tid / CHUNKS; c < valid_cols; c += ROWS_A_STEP, row_start += step) {
            const int s = (int)((uintptr_t)row_start & 31);
            const I first = tile_first - s / E;
            const int off = 32 - s + 16 * v;
            const uint32_t* src = &sout[c * S::SO + (off >> 2)];
            const uint32_t bits = (off & 3) * 8;
            uint4 val;
            val.x = shift_words(src[0], src[1], bits);
            val.y = shift_words(src[1], src[2], bits);
            val.z = shift_words(src[2], src[3], bits);
            val.w = shift_words(src[3], src[4], bits);
            store_chunk<E, I>(row_start + first * E, val, first, (I)rows);
        }
    }
}

template <int E>
constexpr int pipe_smem_bytes() {
    using S = Shape<E>;
    return (2 * S::NR * S::SI + TC * S::SO) * 4 + 2 * S::NR;
}

template __global__ void own_rows<1>(const uint8_t*, uint8_t*, long long, long long, long long, long long, long long,
                                     long long);
template __global__ void own_rows<2>(const uint8_t*, uint8_t*, long long, long long, long long, long long, long long,
                                     long long);
template __global__ void own_rows_pipe<1, long long, 1>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
template __global__ void own_rows_pipe<1, int, 1>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
template __global__ void own_rows_pipe<1, int, 2>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
template __global__ void own_rows_pipe<2, long long, 1>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
template __global__ void own_rows_pipe<2, int, 1>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
template __global__ void own_rows_pipe<2, int, 2>(const uint8_t*, uint8_t*, long long, long long, long long,
                                                    long long, long long, long long, int, int, int);
