// Experiment behind bench/results/h100-2026-11-23/README.md (kept as evidence, not built): does
// the offset between SoA columns, or the work per thread, limit a six-column drift at ~95% of a
// float4 copy?
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(2);} } while (0)

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}
__global__ void drift(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                      const float* __restrict__ vx, const float* __restrict__ vy, const float* __restrict__ vz, size_t n, float dt) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) { x[i] += vx[i] * dt; y[i] += vy[i] * dt; z[i] += vz[i] * dt; }
}
template <int V>
__global__ void driftv(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                       const float* __restrict__ vx, const float* __restrict__ vy, const float* __restrict__ vz, size_t n, float dt) {
    using VT = std::conditional_t<V == 4, float4, float2>;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n / V) {
        VT a = ((VT*)x)[i], b = ((VT*)y)[i], c = ((VT*)z)[i];
        VT va = ((const VT*)vx)[i], vb = ((const VT*)vy)[i], vc = ((const VT*)vz)[i];
        a.x += va.x * dt; a.y += va.y * dt; b.x += vb.x * dt; b.y += vb.y * dt; c.x += vc.x * dt; c.y += vc.y * dt;
        if constexpr (V == 4) { a.z += va.z * dt; a.w += va.w * dt; b.z += vb.z * dt; b.w += vb.w * dt; c.z += vc.z * dt; c.w += vc.w * dt; }
        ((VT*)x)[i] = a; ((VT*)y)[i] = b; ((VT*)z)[i] = c;
    }
}
// grid-stride version with fewer blocks
__global__ void drift_gs(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                         const float* __restrict__ vx, const float* __restrict__ vy, const float* __restrict__ vz, size_t n, float dt) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        x[i] += vx[i] * dt; y[i] += vy[i] * dt; z[i] += vz[i] * dt;
    }
}

int main() {
    const size_t n = 33554432, col = n * 4;
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    auto time = [&](auto launch) {
        for (int i = 0; i < 3; ++i) launch();
        std::vector<float> ms(30);
        for (auto& t : ms) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&t, a, b); }
        std::nth_element(ms.begin(), ms.begin() + 15, ms.end());
        return ms[15];
    };
    char* big; CK(cudaMalloc(&big, 8 * (col + 65536 * 2) + (1 << 20)));
    CK(cudaMemset(big, 0, 8 * (col + 65536 * 2) + (1 << 20)));
    float4* cin; float4* cout; CK(cudaMalloc(&cin, 1 << 30)); CK(cudaMalloc(&cout, 1 << 30));
    CK(cudaMemset(cin, 0, 1 << 30));
    for (int round = 0; round < 2; ++round) {
        const size_t n4 = (size_t(1) << 30) / 16;
        float cms = time([&] { copy4<<<(n4 + 255) / 256, 256>>>(cin, cout, n4); });
        double copy = 2.0 * (1 << 30) / (cms * 1e6);
        printf("round %d: float4 copy %.1f GB/s\n", round, copy);
        auto report = [&](const char* name, float ms) { double gb = 36.0 * n / (ms * 1e6); printf("  %-28s %7.1f us %7.1f GB/s %5.1f%%\n", name, ms * 1e3, gb, 100 * gb / copy); };
        for (size_t stagger : {size_t(0), size_t(128), size_t(256), size_t(1024), size_t(4096), size_t(65536 + 128)}) {
            float* c[6]; for (int k = 0; k < 6; ++k) c[k] = (float*)(big + k * (col + stagger));
            char name[64]; snprintf(name, sizeof name, "stagger %zu", stagger);
            report(name, time([&] { drift<<<(n + 255) / 256, 256>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
            if (stagger == 128) {
                report("  float2/thread", time([&] { driftv<2><<<(n / 2 + 255) / 256, 256>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
                report("  float4/thread", time([&] { driftv<4><<<(n / 4 + 255) / 256, 256>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
                report("  grid-stride 132x8x256", time([&] { drift_gs<<<132 * 8, 256>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
                report("  block 512", time([&] { drift<<<(n + 511) / 512, 512>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
                report("  block 128", time([&] { drift<<<(n + 127) / 128, 128>>>(c[0], c[1], c[2], c[3], c[4], c[5], n, 0.01f); }));
            }
        }
        float* s[6]; for (int k = 0; k < 6; ++k) CK(cudaMalloc(&s[k], col));
        for (int k = 0; k < 6; ++k) CK(cudaMemset(s[k], 0, col));
        report("separate cudaMallocs", time([&] { drift<<<(n + 255) / 256, 256>>>(s[0], s[1], s[2], s[3], s[4], s[5], n, 0.01f); }));
        for (int k = 0; k < 6; ++k) cudaFree(s[k]);
    }
}
