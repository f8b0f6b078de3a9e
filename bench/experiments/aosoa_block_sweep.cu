// Experiment (#19): is AoSoA<32>'s one_field ceiling (83-84% of the float4 copy on the H100) the
// block size? The library's for_each_index (the layout's default elements per thread) runs
// one_field (mass *= c) and drift (6 of 8 fields) over Particle under aosoa<N> for
// N = 32 ... 1024 and under soa, with the float4 copy in the same run; each result is checked
// against the host loop over the same functor (to a few ulp: the device contracts drift's
// x + vx * dt into one FMA, the host does not). With N lanes a block of Particle is 32 N bytes
// and one_field reads 4 N of them: 128 B of every 1 KB at N = 32, 4 KB of every 32 KB at 1024.
//   nvcc -std=c++20 -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr -Iinclude -Iexamples/particles \
//        bench/experiments/aosoa_block_sweep.cu -o /tmp/aosoa_block_sweep && /tmp/aosoa_block_sweep
#include "kernels.hpp"

#include <layout/advise/layout_name.hpp>
#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

constexpr std::size_t n = std::size_t{1} << 25; // 32 Mi particles, 1 GiB
constexpr int reps = 30;

template <class Fn>
float median_ms(Fn&& fn) {
    for (int r = 0; r < 3; ++r) fn();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms(reps);
    for (auto& m : ms) {
        cudaEventRecord(a);
        fn();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&m, a, b);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return ms[reps / 2];
}

__global__ void copy4(const float4* __restrict__ s, float4* __restrict__ d, std::size_t count) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < count) d[i] = s[i];
}

int failures = 0;

/// Runs f once on the device and on the host from the same values, compares every element,
/// then times it on the device.
template <class L, class F>
float run(const std::vector<Particle>& values, const F& f) {
    layout::vector<Particle, L> host(values.begin(), values.end());
    layout::vector<Particle, L, layout::cuda::device_memory> dev = host;
    layout::cuda::for_each_index(dev.view(), f);
    layout::for_each_index(host.view(), f);
    const layout::vector<Particle, L> back = dev;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const Particle a = back[i].load(), b = host[i].load();
        const float fa[] = {a.x, a.y, a.z, a.vx, a.vy, a.vz, a.mass, a.charge};
        const float fb[] = {b.x, b.y, b.z, b.vx, b.vy, b.vz, b.mass, b.charge};
        bool same = true;
        for (int k = 0; k < 8; ++k)
            same = same && std::fabs(fa[k] - fb[k]) <= 4e-7f * std::fabs(fb[k]);
        if (!same) {
            std::printf("MISMATCH %s element %zu\n", layout::advisor::layout_name<L>::get().c_str(),
                        i);
            ++failures;
            break;
        }
    }
    return median_ms([&] { layout::cuda::for_each_index(dev.view(), f); });
}

int main() {
    float4 *s, *d;
    cudaMalloc(&s, n * 32);
    cudaMalloc(&d, n * 32);
    cudaMemset(s, 1, n * 32);
    const std::size_t n4 = n * 32 / sizeof(float4);
    const float copy_ms = median_ms([&] { copy4<<<unsigned((n4 + 255) / 256), 256>>>(s, d, n4); });
    cudaFree(s);
    cudaFree(d);
    const double copy_gbs = 2.0 * n * 32 / copy_ms / 1e6;

    std::mt19937 g(7);
    std::uniform_real_distribution<float> u(1.0f, 2.0f);
    std::vector<Particle> values(n);
    for (auto& p : values) p = {u(g), u(g), u(g), u(g), u(g), u(g), u(g), u(g)};

    std::printf("float4 copy %.1f GB/s (%.3f ms for 2 GiB moved)\n", copy_gbs, copy_ms);
    std::printf("%-12s %12s %14s %12s %14s\n", "layout", "one_field ms", "one_field%copy",
                "drift ms", "drift%copy");
    auto row = [&]<class L>(L) {
        const float of = run<L>(values, scale_mass{1.0001f});
        const float dr = run<L>(values, drift{0.001f});
        std::printf("%-12s %12.3f %13.1f%% %12.3f %13.1f%%\n",
                    layout::advisor::layout_name<L>::get().c_str(), of,
                    100.0 * 8.0 * n / of / 1e6 / copy_gbs, dr,
                    100.0 * 36.0 * n / dr / 1e6 / copy_gbs);
    };
    row(layout::policy::soa{});
    row(layout::policy::aosoa<32>{});
    row(layout::policy::aosoa<64>{});
    row(layout::policy::aosoa<128>{});
    row(layout::policy::aosoa<256>{});
    row(layout::policy::aosoa<1024>{});
    row(layout::policy::soa{});
    row(layout::policy::aosoa<32>{});
    return failures == 0 ? 0 : 1;
}
