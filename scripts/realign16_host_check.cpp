// Probe check: realign16 emulated on the host, one thread a block (its loops then cover every task, and the
// barriers separate the steps as on the GPU), shared memory poisoned before each block; bit-exact against the
// input, poison outside the output kept. g++ -std=c++17 -fsanitize=address,undefined realign16_host_check.cpp

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <vector>
#include <algorithm>
using std::min;
struct uint4 { unsigned x, y, z, w; };
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
struct dim { unsigned x; };
static dim blockIdx, threadIdx;
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(n)
#define __restrict__
#define __syncthreads()
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) { s &= 31; return (unsigned)((((uint64_t)hi << 32) | lo) >> s); }
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) { s = s > 32 ? 32 : s; return (unsigned)((((uint64_t)hi << 32) | lo) >> s); }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t p = ((uint64_t)y << 32) | x; unsigned r = 0;
    for (int n = 0; n < 4; ++n) r |= (unsigned)((p >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
    return r;
}
#define HOST_EMULATION
static unsigned host_smem[1 << 16];
#include "realign16_probe.cu"

template <int E, int TR, int TCB>
int run(long long B, long long M, long long N, int xoff, int ooff, unsigned seed) {
    constexpr int TC = TCB / E;
    srand(seed);
    size_t xbytes = B * M * N * E + xoff + 64, obytes = B * M * N * E + ooff + 64;
    unsigned char *xb = (unsigned char*)aligned_alloc(16, (xbytes + 15) / 16 * 16), *ob = (unsigned char*)aligned_alloc(16, (obytes + 15) / 16 * 16);
    for (size_t i = 0; i < xbytes; ++i) xb[i] = rand() & 255;
    memset(ob, 0xA5, obytes);
    long long tr = (M + TR - 1) / TR, tc = (N + TC - 1) / TC;
    threadIdx.x = 0;
    for (long long p = 0; p < B * tr * tc; ++p) {
        blockIdx.x = (unsigned)p;
        for (auto& v : host_smem) v = (unsigned)rand() * 2654435761u;
        realign16<E, TR, TCB, 1>(xb, ob, M, N, xoff, N * E, M * N * E, ooff, M * E, M * N * E, tr, tc, (int)(seed & 1));
    }
    int bad = 0;
    for (long long b = 0; b < B; ++b) for (long long i = 0; i < M; ++i) for (long long j = 0; j < N; ++j)
        for (int e = 0; e < E; ++e) {
            unsigned char want = xb[xoff + b * M * N * E + i * N * E + j * E + e];
            unsigned char got = ob[ooff + b * M * N * E + j * M * E + i * E + e];
            if (want != got) { if (bad < 3) printf("  bad b%lld i%lld j%lld e%d want %d got %d\n", b, i, j, e, want, got); ++bad; }
        }
    for (size_t k = 0; k < (size_t)ooff; ++k) if (ob[k] != 0xA5) ++bad;
    for (size_t k = ooff + B * M * N * E; k < obytes; ++k) if (ob[k] != 0xA5) ++bad;
    free(xb); free(ob);
    return bad;
}
int main(int argc, char** argv) {
    unsigned seed = argc > 1 ? atoi(argv[1]) : 1;
    srand(seed);
    int fails = 0;
    for (int trial = 0; trial < 6; ++trial) {
        long long B = 1 + rand() % 2, M = 1 + rand() % 300, N = 1 + rand() % 300;
        int xo = rand() % 16, oo = rand() % 16;
        int r[8] = {run<1, 256, 64>(B, M, N, xo, oo, seed + trial), run<1, 256, 128>(B, M, N, xo, oo, seed + trial),
                    run<1, 64, 32>(B, M, N, xo, oo, seed + trial), run<1, 128, 64>(B, M, N, xo, oo, seed + trial),
                    run<1, 512, 128>(B, M, N, xo, oo, seed + trial), run<2, 128, 64>(B, M, N, xo & ~1, oo & ~1, seed + trial),
                    run<2, 32, 64>(B, M, N, xo & ~1, oo & ~1, seed + trial), run<2, 256, 128>(B, M, N, xo & ~1, oo & ~1, seed + trial)};
        printf("B%lld M%lld N%lld xo%d oo%d:", B, M, N, xo, oo);
        for (int k = 0; k < 8; ++k) { printf(" %d", r[k]); fails += r[k] != 0; }
        printf("\n");
    }
    printf("fails %d\n", fails);
    return fails != 0;
}
