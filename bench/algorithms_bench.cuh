/// \file algorithms_bench.cuh
/// Google Benchmark of layout::cuda::gather and scatter (bench/gather_gpu.cu, scatter_gpu.cu):
/// each layout next to a hand-written raw kernel of the same copy, on the same buffers, with
/// sorted (identity) and random (a random permutation) indices.
///
///   <op>/Particle/{raw_,}{aos,soa,aosoa32}/{sorted,random}   8-float, 32-byte Particle
///   <op>/Particle/raw_aos_float4/{sorted,random}             AoS copied as two float4
///   <op>/float/{raw,layout}/{sorted,random}                  one column of floats
///
/// One launch per iteration, timed with CUDA events (UseManualTime). SetBytesProcessed counts
/// each index read once and each element read once and written once: n * (4 + 2 * sizeof(T)).
/// Before timing, every variant's output is poisoned, computed once and checked on the device
/// against its definition (dst[i] == src[idx[i]] leaf by leaf for gather, dst[idx[i]] == src[i]
/// for scatter); a mismatch fails the benchmark (SkipWithError) instead of timing wrong code.
///
/// Options besides Google Benchmark's: --n=N elements (default 33554432). Without a CUDA device
/// the program says so and exits 0.
#pragma once

// Benchmarks time the copy kernel alone: no index validation pass, whatever the build type.
#undef LAYOUT_CHECK_BOUNDS
#define LAYOUT_CHECK_BOUNDS 0

#include "gpu_common.cuh"

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/error.hpp>
#include <layout/cuda/vector.hpp>
#include <layout/layout.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace algo_bench {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};
static_assert(sizeof(Particle) == 32);

using index_t = std::uint32_t;
using bench::device_vector;
using layout::cuda::check;
using layout::cuda::check_launch;
using device = layout::cuda::device_memory;
namespace policy = layout::policy;
using aosoa32 = policy::aosoa<32>;

enum class op { gather, scatter };

inline constexpr unsigned threads = 256;
inline unsigned blocks_for(std::size_t n) {
    return static_cast<unsigned>((n + threads - 1) / threads);
}

// ---- raw kernels: what a user would write by hand for each layout -------------------------------

template <op Op>
__device__ __forceinline__ void raw_pair(std::size_t i, index_t k, std::size_t& from,
                                         std::size_t& to) {
    from = Op == op::gather ? k : i;
    to = Op == op::gather ? i : k;
}

template <op Op>
__global__ void raw_aos(const Particle* __restrict__ src, const index_t* __restrict__ idx,
                        Particle* __restrict__ dst, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    std::size_t from, to;
    raw_pair<Op>(i, idx[i], from, to);
    dst[to] = src[from];
}

/// The AoS copy a performance engineer would write: two 16-byte accesses per 32-byte Particle.
template <op Op>
__global__ void raw_aos_float4(const float4* __restrict__ src, const index_t* __restrict__ idx,
                               float4* __restrict__ dst, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    std::size_t from, to;
    raw_pair<Op>(i, idx[i], from, to);
    const float4 a = src[2 * from], b = src[2 * from + 1];
    dst[2 * to] = a;
    dst[2 * to + 1] = b;
}

template <op Op>
__global__ void
raw_soa(const float* __restrict__ sx, const float* __restrict__ sy, const float* __restrict__ sz,
        const float* __restrict__ svx, const float* __restrict__ svy, const float* __restrict__ svz,
        const float* __restrict__ sm, const float* __restrict__ sq, const index_t* __restrict__ idx,
        float* __restrict__ dx, float* __restrict__ dy, float* __restrict__ dz,
        float* __restrict__ dvx, float* __restrict__ dvy, float* __restrict__ dvz,
        float* __restrict__ dm, float* __restrict__ dq, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    std::size_t from, to;
    raw_pair<Op>(i, idx[i], from, to);
    dx[to] = sx[from];
    dy[to] = sy[from];
    dz[to] = sz[from];
    dvx[to] = svx[from];
    dvy[to] = svy[from];
    dvz[to] = svz[from];
    dm[to] = sm[from];
    dq[to] = sq[from];
}

/// AoSoA<32> of 8 floats: blocks of 256 floats, leaf l of element e at
/// (e / 32) * 256 + l * 32 + e % 32.
template <op Op>
__global__ void raw_aosoa32(const float* __restrict__ src, const index_t* __restrict__ idx,
                            float* __restrict__ dst, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    std::size_t from, to;
    raw_pair<Op>(i, idx[i], from, to);
    const float* s = src + from / 32 * 256 + from % 32;
    float* d = dst + to / 32 * 256 + to % 32;
#pragma unroll
    for (int l = 0; l < 8; ++l) d[l * 32] = s[l * 32];
}

template <op Op>
__global__ void raw_float(const float* __restrict__ src, const index_t* __restrict__ idx,
                          float* __restrict__ dst, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    std::size_t from, to;
    raw_pair<Op>(i, idx[i], from, to);
    dst[to] = src[from];
}

// ---- data -----------------------------------------------------------------------------------------

__device__ __forceinline__ float hashed(std::size_t i, unsigned salt) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return 1.0f + static_cast<float>(h & 0xFFFFFF) / 16777216.0f; // [1, 2): never zero
}

template <class L, class M>
__global__ void fill_particles(layout::view<Particle, L, M> v) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= v.size()) return;
    v[i] = Particle{hashed(i, 1), hashed(i, 2), hashed(i, 3), hashed(i, 4),
                    hashed(i, 5), hashed(i, 6), hashed(i, 7), hashed(i, 8)};
}
template <class L, class M>
__global__ void fill_floats(layout::view<float, L, M> v) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < v.size()) v[i] = hashed(i, 9);
}

/// Counts the elements where the output breaks the definition of Op.
template <op Op, class T, class L, class M>
__global__ void count_wrong(layout::view<const T, L, M> src, const index_t* idx,
                            layout::view<const T, L, M> dst, std::size_t n,
                            unsigned long long* wrong) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::size_t from = Op == op::gather ? idx[i] : i, to = Op == op::gather ? i : idx[i];
    if (!(dst[to] == src[from])) atomicAdd(wrong, 1ull);
}

/// Source and destination of one (element type, layout), filled once, kept for the run.
template <class T, class L>
struct buffers {
    device_vector<T, L> src, dst;
    static buffers& get(std::size_t n) {
        static std::unique_ptr<buffers> built;
        if (!built) {
            built.reset(new buffers{device_vector<T, L>(n), device_vector<T, L>(n)});
            if constexpr (std::is_same_v<T, Particle>)
                fill_particles<<<blocks_for(n), threads>>>(built->src.view());
            else
                fill_floats<<<blocks_for(n), threads>>>(built->src.view());
            check_launch("fill");
            check(cudaDeviceSynchronize(), "fill");
        }
        return *built;
    }
};

/// The index sets: the identity ("sorted") and one random permutation ("random").
inline const layout::cuda::aos_vector<index_t>& indices(std::size_t n, bool random) {
    static std::unique_ptr<layout::cuda::aos_vector<index_t>> sorted, shuffled;
    auto& slot = random ? shuffled : sorted;
    if (!slot) {
        std::vector<index_t> h(n);
        std::iota(h.begin(), h.end(), index_t{0});
        if (random) std::shuffle(h.begin(), h.end(), std::mt19937_64(20261122));
        slot = std::make_unique<layout::cuda::aos_vector<index_t>>(
            layout::aos_vector<index_t>(h.begin(), h.end()));
    }
    return *slot;
}

// ---- one benchmark ----------------------------------------------------------------------------------

/// Who does the copy: the library, the plain raw kernel of the layout, or (AoS Particle only)
/// the raw kernel with float4 accesses.
enum class variant { library, raw, raw_float4 };

template <op Op, class T, class L>
void launch(variant who, const layout::view<const T, L, device>& s, const index_t* idx,
            const layout::view<T, L, device>& d, std::size_t n) {
    if (who == variant::library) {
        if constexpr (Op == op::gather)
            layout::cuda::gather(s, idx, n, d);
        else
            layout::cuda::scatter(s, idx, n, d);
        return;
    }
    if constexpr (std::is_same_v<T, float>) {
        raw_float<Op><<<blocks_for(n), threads>>>(s.storage().data, idx, d.storage().data, n);
    } else if constexpr (std::is_same_v<L, policy::aos>) {
        if (who == variant::raw_float4)
            raw_aos_float4<Op>
                <<<blocks_for(n), threads>>>(reinterpret_cast<const float4*>(s.storage().data), idx,
                                             reinterpret_cast<float4*>(d.storage().data), n);
        else
            raw_aos<Op><<<blocks_for(n), threads>>>(s.storage().data, idx, d.storage().data, n);
    } else if constexpr (std::is_same_v<L, policy::soa>) {
        auto c = [](auto* p) { return static_cast<const float*>(p); };
        auto m = [](auto* p) { return static_cast<float*>(p); };
        const auto& sc = s.storage().columns;
        const auto& dc = d.storage().columns;
        raw_soa<Op><<<blocks_for(n), threads>>>(
            c(sc[0]), c(sc[1]), c(sc[2]), c(sc[3]), c(sc[4]), c(sc[5]), c(sc[6]), c(sc[7]), idx,
            m(dc[0]), m(dc[1]), m(dc[2]), m(dc[3]), m(dc[4]), m(dc[5]), m(dc[6]), m(dc[7]), n);
    } else {
        raw_aosoa32<Op>
            <<<blocks_for(n), threads>>>(reinterpret_cast<const float*>(s.storage().data), idx,
                                         reinterpret_cast<float*>(d.storage().data), n);
    }
    check_launch("raw kernel");
}

template <op Op, class T, class L>
void run(benchmark::State& state, std::size_t n, variant who, bool random) {
    try {
        auto& b = buffers<T, L>::get(n);
        const index_t* idx = indices(n, random).view().storage().data;
        const layout::view<const T, L, device> s = b.src.cview();
        const layout::view<T, L, device> d = b.dst.view();

        // Correct first: poison, run once, check every element on the device.
        layout::detail::for_each_run(d, layout::view<const T, L, device>(d), n,
                                     [](void* p, const void*, std::size_t bytes) {
                                         check(cudaMemset(p, 0xff, bytes), "cudaMemset");
                                     });
        launch<Op>(who, s, idx, d, n);
        unsigned long long* wrong = nullptr;
        check(cudaMallocManaged(&wrong, sizeof *wrong), "cudaMallocManaged");
        *wrong = 0;
        count_wrong<Op>
            <<<blocks_for(n), threads>>>(s, idx, layout::view<const T, L, device>(d), n, wrong);
        check_launch("count_wrong");
        check(cudaDeviceSynchronize(), "check");
        const unsigned long long bad = *wrong;
        check(cudaFree(wrong), "cudaFree");
        if (bad) {
            state.SkipWithError((std::to_string(bad) + " wrong elements").c_str());
            return;
        }

        bench::time_launches(state, [&] { launch<Op>(who, s, idx, d, n); });
        state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                static_cast<std::int64_t>(n * (sizeof(index_t) + 2 * sizeof(T))));
        state.counters["elements"] = static_cast<double>(n);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

template <op Op, class T, class L>
void add(const std::string& prefix, const char* name_of_variant, variant who, std::size_t n) {
    for (bool random : {false, true}) {
        const std::string name = prefix + name_of_variant + (random ? "/random" : "/sorted");
        benchmark::RegisterBenchmark(
            name.c_str(), [=](benchmark::State& state) { run<Op, T, L>(state, n, who, random); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
}

template <op Op>
void register_all(const char* name, std::size_t n) {
    const std::string p = std::string(name) + "/Particle/";
    add<Op, Particle, policy::aos>(p, "raw_aos", variant::raw, n);
    add<Op, Particle, policy::aos>(p, "raw_aos_float4", variant::raw_float4, n);
    add<Op, Particle, policy::aos>(p, "aos", variant::library, n);
    add<Op, Particle, policy::soa>(p, "raw_soa", variant::raw, n);
    add<Op, Particle, policy::soa>(p, "soa", variant::library, n);
    add<Op, Particle, aosoa32>(p, "raw_aosoa32", variant::raw, n);
    add<Op, Particle, aosoa32>(p, "aosoa32", variant::library, n);
    const std::string f = std::string(name) + "/float/";
    add<Op, float, policy::aos>(f, "raw", variant::raw, n);
    add<Op, float, policy::aos>(f, "layout", variant::library, n);
}

/// main(): parses --n=N, skips cleanly without a device, registers, runs (bench::gpu_main).
template <op Op>
int main(int argc, char** argv, const char* name) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [name](std::size_t n) {
        if (n == 0 || n > 0xffffffffu) {
            std::fprintf(stderr, "--n must be in [1, 2^32 - 1] (32-bit indices)\n");
            return 2;
        }
        register_all<Op>(name, n);
        return 0;
    });
}

} // namespace algo_bench
