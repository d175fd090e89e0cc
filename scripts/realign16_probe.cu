// Probe: 1- and 2-byte transposes whose rows start anywhere, each lane moving 16 aligned bytes.
// A tile owns TR input rows x TCB bytes of them and also loads HALO rows on each side, so that it can write every
// aligned 16-byte chunk that its output pieces touch whole (a chunk shared with the neighbouring tile is written
// by both, with the same bytes): no partial chunks except at the ends of the matrix's rows.
// 1. input pieces copied as the aligned 16-byte vectors that hold them;
// 2. each thread funnel-shifts G rows' words into place and byte-permutes them into G grouped words (one per
//    output row, G = 4 / E consecutive input rows each);
// 3. each thread writes one aligned 16-byte chunk of an output row, funnel-shifted from five grouped words.
// x and out are 16-byte aligned; x_off and o_off are the first element's byte within them.

typedef unsigned int u32;

// the least pitch p >= at with (g * p) % 32 an odd multiple of `step` (so 32 / step rows of g apart hit distinct
// banks)
__host__ __device__ constexpr int pitch(int at, int g, int step) {
    return ((g * at) % 32) % step == 0 && (((g * at) % 32) / step) % 2 == 1 ? at : pitch(at + 1, g, step);
}

template <int E, int TR, int TCB>
struct Shape {
    static constexpr int G = 4 / E;
    static constexpr int HALO = 16 / E;            // rows loaded beyond each end of the owned ones
    static constexpr int LR = TR + 2 * HALO;       // rows loaded
    static constexpr int TC = TCB / E;             // input columns (output rows) a tile
    static constexpr int NV = TCB / 16 + 1;        // 16-byte vectors that hold a piece
    static constexpr int RAWP = pitch(NV * 4 + 1, G, 8);
    static constexpr int GROUPS = LR / G;
    static constexpr int GRPP = pitch(GROUPS + 2, G, 4);  // grouped words of an output row, a spare before
    static constexpr int NM = (TR * E) / 16 + 1;   // 16-byte chunks that an owned output piece can touch
    static constexpr int SMEM = 4 * (LR * RAWP + TC * GRPP + LR);
};

template <int E, int TR, int TCB, int NT>
__global__ void __launch_bounds__(NT) realign16(const unsigned char* __restrict__ x, unsigned char* __restrict__ out,
        long long rows, long long cols, long long x_off, long long x_row, long long x_batch, long long o_off,
        long long o_row, long long o_batch, long long tiles_r, long long tiles_c, int rows_first) {
    using S = Shape<E, TR, TCB>;
    constexpr int G = S::G, HALO = S::HALO, LR = S::LR, TC = S::TC, NV = S::NV, RAWP = S::RAWP;
    constexpr int GROUPS = S::GROUPS, GRPP = S::GRPP, NM = S::NM;
#ifndef HOST_EMULATION
    extern __shared__ __align__(16) u32 smem[];
#else
    u32* smem = host_smem;  // the host test's buffer, poisoned before each block
#endif
    u32* raw = smem;                      // LR x RAWP
    u32* grp = smem + LR * RAWP;          // TC x GRPP
    int* shift = reinterpret_cast<int*>(grp + TC * GRPP);

    long long pid = blockIdx.x;
    long long per = tiles_r * tiles_c;
    long long b = pid / per;
    long long rest = pid - b * per;
    // rows_first: consecutive blocks take consecutive row tiles; otherwise consecutive column tiles
    long long tr, tc;
    if (rows_first) { tc = rest / tiles_r; tr = rest - tc * tiles_r; }
    else { tr = rest / tiles_c; tc = rest - tr * tiles_c; }
    long long r0 = tr * TR, c0 = tc * TC;
    int vcols = (int)min((long long)TC, cols - c0);
    int vb = vcols * E;
    long long xbase = x_off + b * x_batch + c0 * E;

    // 1. loads: rows r0 - HALO .. r0 + TR + HALO - 1 where they exist
    for (int t = threadIdx.x; t < LR * NV; t += NT) {
        int i = t / NV, v = t - i * NV;
        long long r = r0 - HALO + i;
        long long start = xbase + r * x_row;
        int s = (int)(start & 15);
        if (r >= 0 && r < rows && 16 * v - s < vb) {
            uint4 q = *reinterpret_cast<const uint4*>(x + (start - s) + 16 * v);
            u32* to = &raw[i * RAWP + 4 * v];
            to[0] = q.x; to[1] = q.y; to[2] = q.z; to[3] = q.w;
        }
        if (v == 0) shift[i] = s;  // every row's, so that step 2 reads within its row
    }
    __syncthreads();
    // 2. group: G rows x one aligned word of the piece -> G grouped words (a warp: 8 words x 4 groups)
    constexpr int CWB = TCB / 32;
    for (int t = threadIdx.x; t < GROUPS * (TCB / 4); t += NT) {
        int l = t & 31, q = t >> 5;
        int cw = (q % CWB) * 8 + (l & 7), g = (q / CWB) * 4 + (l >> 3);
        u32 a[G];
#pragma unroll
        for (int p = 0; p < G; ++p) {
            int row = g * G + p;
            int s = shift[row];
            int w = cw + (s >> 2);
            a[p] = __funnelshift_r(raw[row * RAWP + w], raw[row * RAWP + w + 1], 8 * (s & 3));
        }
        u32* to = &grp[cw * G * GRPP + g + 1];
        if (E == 1) {
            u32 t0 = __byte_perm(a[0], a[1], 0x5140), t1 = __byte_perm(a[G > 2 ? 2 : 0], a[G > 3 ? 3 : 0], 0x5140);
            u32 t2 = __byte_perm(a[0], a[1], 0x7362), t3 = __byte_perm(a[G > 2 ? 2 : 0], a[G > 3 ? 3 : 0], 0x7362);
            to[0] = __byte_perm(t0, t1, 0x5410);
            to[GRPP] = __byte_perm(t0, t1, 0x7632);
            to[2 * GRPP] = __byte_perm(t2, t3, 0x5410);
            to[3 * GRPP] = __byte_perm(t2, t3, 0x7632);
        } else {
            to[0] = __byte_perm(a[0], a[1], 0x5410);
            to[GRPP] = __byte_perm(a[0], a[1], 0x7632);
        }
    }
    __syncthreads();
    // 3. stores: every aligned 16-byte chunk that an owned output piece touches, whole where it lies inside the
    // matrix's output row
    long long obase = o_off + b * o_batch + c0 * o_row + r0 * E;
    long long before = r0 * E, after = (rows - r0) * E;  // the output row's bytes, counted from the owned piece
    int len = (int)min((long long)TR * E, after);
    for (int t = threadIdx.x; t < TC * NM; t += NT) {
        int j = t / NM, m = t - j * NM;
        if (j >= vcols) continue;
        long long start = obase + j * o_row;
        int so = (int)(start & 15);
        int first = 16 * m - so;            // the chunk's first byte within the owned piece
        if (first >= len) continue;
        int sw = so >> 2, sb = so & 3;
        const u32* row = &grp[j * GRPP + 1];
        u32 w[4];
#pragma unroll
        for (int n = 0; n < 4; ++n) {
            int u = 4 * m + n - sw + HALO * E / 4;  // grouped word holding the chunk word's last bytes
            w[n] = __funnelshift_rc(row[u - 1], row[u], 8 * (4 - sb));
        }
        unsigned char* dst = out + (start - so) + 16 * m;
        if (first >= -before && first + 16 <= after) {
            *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
        } else {  // at an end of the output row: its bytes only
#pragma unroll
            for (int k = 0; k < 16; ++k)
                if (first + k >= -before && first + k < after) dst[k] = (unsigned char)(w[k >> 2] >> (8 * (k & 3)));
        }
    }
}
