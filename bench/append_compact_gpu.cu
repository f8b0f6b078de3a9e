// Particles born and dying on the device: layout::cuda::appender and layout::cuda::remove_if
// (and stable_partition) per layout, against hand-written code on raw arrays. Prints one table;
// every ratio is from this run.
//
//   append_compact_gpu [--n N] [--reps R] [--dead PERCENT]     (defaults: 33554432, 20, 10)
//
// append: one thread per slot of n; half of them (a hash of the index) append a new particle to
// an empty container of capacity n. Library: appender + push_back + finish(). Raw: the same
// kernel on raw arrays (AoS: Particle*, SoA: 8 float*, AoSoA<32>: blocks indexed by hand), with a
// counter that each thread bumps with atomicAdd (`raw`) or that a warp bumps once
// (`raw_warp`, coalesced_threads); both also zero the counter and read it back.
// remove_if: `dead` percent of n particles (mass below a threshold) are removed in place.
// Library: layout::cuda::remove_if(container, pred). Raw: CUB on raw arrays with temporaries
// allocated once: AoS cub::DeviceSelect::If over Particle*; SoA a flag kernel and
// cub::DeviceSelect::Flagged per column; AoSoA<32> the same over each leaf's lanes, through an
// index map written by hand (thrust's permutation_iterator: CUB takes no raw pointer there), and
// also set against the raw SoA (the same bytes in the fastest layout for it). stable_partition:
// the library's time, against the same raw select.
// Each timing (CUDA events, median of R) covers the whole operation up to the count on the host.
// ratio = library / best raw; the goal is <= 1.10.
#include <layout/cuda/algorithms.hpp>
#include <layout/layout.hpp>

#include <cooperative_groups.h>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};
constexpr int fields = 8;

using aos = layout::policy::aos;
using soa = layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;
template <class L>
using device = layout::vector<Particle, L, layout::cuda::device_memory>;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "append_compact_gpu: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

__host__ __device__ std::uint32_t hash(std::uint32_t i) {
    i ^= i >> 16;
    i *= 0x7feb352dU;
    i ^= i >> 15;
    i *= 0x846ca68bU;
    return i ^ (i >> 16);
}
__device__ bool born(std::size_t i) { return hash(std::uint32_t(i)) & 1; }
__device__ Particle newborn(std::size_t i) {
    const float f = float(i);
    return {f, f + 1, f + 2, 1, 2, 3, 1, -1};
}

/// Times op (CUDA events on the default stream, op included up to its host result): median.
template <class Reset, class Op>
double median_us(int reps, Reset&& reset, Op&& op) {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) { // the first run loads the kernels: not counted
        reset();
        check(cudaDeviceSynchronize(), "reset");
        check(cudaEventRecord(start), "cudaEventRecord");
        op();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (r) t.push_back(ms * 1000.0);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// ---- append -------------------------------------------------------------------------------------

template <class L>
__global__ void append_library(layout::cuda::append_view<Particle, L> out, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n && born(i)) out.push_back(newborn(i));
}

/// Where raw arrays put element s: AoS, SoA (8 columns of capacity elements), AoSoA<32>.
struct raw_aos {
    Particle* p;
    __device__ void store(std::size_t s, const Particle& v) const { p[s] = v; }
};
struct raw_soa {
    float* f[fields];
    __device__ void store(std::size_t s, const Particle& v) const {
        const float a[fields] = {v.x, v.y, v.z, v.vx, v.vy, v.vz, v.mass, v.charge};
#pragma unroll
        for (int k = 0; k < fields; ++k) f[k][s] = a[k];
    }
};
struct raw_aosoa {
    float* f;
    __device__ void store(std::size_t s, const Particle& v) const {
        const float a[fields] = {v.x, v.y, v.z, v.vx, v.vy, v.vz, v.mass, v.charge};
        float* block = f + (s / 32) * 32 * fields + s % 32;
#pragma unroll
        for (int k = 0; k < fields; ++k) block[k * 32] = a[k];
    }
};

template <bool Warp, class Raw>
__global__ void append_raw(Raw out, unsigned long long* count, std::size_t capacity,
                           std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n || !born(i)) return;
    unsigned long long slot;
    if constexpr (Warp) {
        const auto g = cooperative_groups::coalesced_threads();
        unsigned long long first = 0;
        if (g.thread_rank() == 0) first = atomicAdd(count, g.size());
        slot = g.shfl(first, 0) + g.thread_rank();
    } else {
        slot = atomicAdd(count, 1ULL);
    }
    if (slot < capacity) out.store(slot, newborn(i));
}

template <bool Warp, class Raw>
std::size_t run_append_raw(Raw out, unsigned long long* count, std::size_t n) {
    check(cudaMemsetAsync(count, 0, sizeof *count), "cudaMemsetAsync");
    append_raw<Warp><<<unsigned((n + 255) / 256), 256>>>(out, count, n, n);
    unsigned long long h = 0;
    check(cudaMemcpyAsync(&h, count, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(0), "cudaStreamSynchronize");
    return h;
}

template <class L, class Raw>
void bench_append(const char* name, std::size_t n, int reps, Raw raw, unsigned long long* count) {
    device<L> c;
    c.reserve(n);
    std::size_t appended = 0;
    const double lib = median_us(
        reps, [&] { c.clear(); },
        [&] {
            layout::cuda::appender app(c);
            append_library<<<unsigned((n + 255) / 256), 256, 0, app.stream()>>>(app.view(), n);
            appended = app.finish().appended;
        });
    std::size_t raw_count = 0, warp_count = 0;
    const double naive = median_us(
        reps, [] {}, [&] { raw_count = run_append_raw<false>(raw, count, n); });
    const double warp = median_us(
        reps, [] {}, [&] { warp_count = run_append_raw<true>(raw, count, n); });
    if (appended != raw_count || appended != warp_count) {
        std::fprintf(stderr, "append %s: counts differ (%zu, %zu, %zu)\n", name, appended,
                     raw_count, warp_count);
        std::exit(1);
    }
    std::printf("%-16s %-10s %10.1f %10.1f %10.1f %8.3f\n", "append", name, lib, naive, warp,
                lib / std::min(naive, warp));
}

// ---- remove_if ----------------------------------------------------------------------------------

struct dead {
    float threshold;
    template <class P>
    __host__ __device__ bool operator()(const P& p) const {
        return layout::get<&Particle::mass>(p) < threshold;
    }
};
struct alive {
    float threshold;
    template <class P>
    __host__ __device__ bool operator()(const P& p) const {
        return !(layout::get<&Particle::mass>(p) < threshold);
    }
};
struct alive_aos {
    float threshold;
    __device__ bool operator()(const Particle& p) const { return !(p.mass < threshold); }
};
__global__ void alive_flags(const float* mass, float threshold, unsigned char* flags,
                            std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = !(mass[i] < threshold);
}

__global__ void alive_flags_aosoa(const float* blocks, float threshold, unsigned char* flags,
                                  std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = !(blocks[(i / 32) * 32 * fields + 6 * 32 + i % 32] < threshold);
}
/// Where element i's value of one leaf is among the floats of 32-lane blocks.
struct lane_of {
    int leaf;
    __host__ __device__ std::size_t operator()(std::size_t i) const {
        return (i / 32) * 32 * fields + std::size_t(leaf) * 32 + i % 32;
    }
};

__global__ void fill_particles(layout::view<Particle, aos, layout::cuda::device_memory> p) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    Particle v = newborn(i);
    v.mass = float(hash(std::uint32_t(i) ^ 0x9e3779b9U) % 1000) / 1000.0f; // [0, 1)
    p[i] = v;
}

std::size_t read_back(const std::int64_t* count) {
    std::int64_t h = 0;
    check(cudaMemcpyAsync(&h, count, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(0), "cudaStreamSynchronize");
    return static_cast<std::size_t>(h);
}

struct raw_select {
    std::size_t n;
    float threshold;
    device<aos> aos_work;
    device<soa> soa_work;
    device<aosoa32> aosoa_work;
    unsigned char* flags;
    std::int64_t* count;
    void* temp;
    std::size_t temp_bytes;

    std::size_t aos_if() {
        std::size_t bytes = temp_bytes;
        check(cub::DeviceSelect::If(temp, bytes, aos_work.view().data(), count, std::int64_t(n),
                                    alive_aos{threshold}),
              "cub::DeviceSelect::If");
        return read_back(count);
    }
    std::size_t soa_flagged() {
        alive_flags<<<unsigned((n + 255) / 256), 256>>>(soa_work.column<&Particle::mass>().data(),
                                                        threshold, flags, n);
        auto s = soa_work.view().storage();
        for (int k = 0; k < fields; ++k) {
            std::size_t bytes = temp_bytes;
            check(cub::DeviceSelect::Flagged(temp, bytes, static_cast<float*>(s.columns[k]), flags,
                                             count, std::int64_t(n)),
                  "cub::DeviceSelect::Flagged");
        }
        return read_back(count);
    }
    std::size_t aosoa_flagged() {
        float* blocks = reinterpret_cast<float*>(aosoa_work.view().data());
        alive_flags_aosoa<<<unsigned((n + 255) / 256), 256>>>(blocks, threshold, flags, n);
        for (int k = 0; k < fields; ++k) {
            const auto leaf = thrust::make_permutation_iterator(
                blocks, thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0),
                                                        lane_of{k}));
            std::size_t bytes = temp_bytes;
            check(cub::DeviceSelect::Flagged(temp, bytes, leaf, flags, count, std::int64_t(n)),
                  "cub::DeviceSelect::Flagged");
        }
        return read_back(count);
    }
};

template <class L>
void bench_remove(const char* name, const device<aos>& input, raw_select& raw, double raw_us,
                  std::size_t raw_kept, const char* against, int reps) {
    device<L> c;
    std::size_t kept = 0, first = 0;
    const dead pred{raw.threshold};
    const double lib = median_us(
        reps, [&] { c = input; }, [&] { kept = layout::cuda::remove_if(c, pred); });
    const double part = median_us(
        reps, [&] { c = input; },
        [&] { first = layout::cuda::stable_partition(c, alive{raw.threshold}); });
    if (kept != raw_kept || first != raw_kept) {
        std::fprintf(stderr, "remove_if %s: kept %zu / %zu, raw %zu\n", name, kept, first,
                     raw_kept);
        std::exit(1);
    }
    std::printf("%-16s %-10s %10.1f %10.1f %10s %8.3f   (raw: %s)\n", "remove_if", name, lib,
                raw_us, "", lib / raw_us, against);
    std::printf("%-16s %-10s %10.1f %10.1f %10s %8.3f   (raw: %s select)\n", "stable_partition",
                name, part, raw_us, "", part / raw_us, against);
}

} // namespace

int main(int argc, char** argv) {
    std::size_t n = std::size_t{1} << 25;
    int reps = 20, dead_percent = 10;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!std::strcmp(argv[a], "--n"))
            n = std::strtoull(argv[a + 1], nullptr, 10);
        else if (!std::strcmp(argv[a], "--reps"))
            reps = std::atoi(argv[a + 1]);
        else if (!std::strcmp(argv[a], "--dead"))
            dead_percent = std::atoi(argv[a + 1]);
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("append_compact_gpu: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("append_compact_gpu: %s, n = %zu, %d reps (median), %d%% dead\n", prop.name, n,
                reps, dead_percent);
    std::printf("%-16s %-10s %10s %10s %10s %8s\n", "operation", "layout", "library_us", "raw_us",
                "raw_warp_us", "ratio");

    unsigned long long* count = nullptr;
    check(cudaMalloc(&count, sizeof *count), "cudaMalloc");
    {
        // Raw arrays for append, n elements in each layout's shape.
        device<aos> a;
        device<soa> s;
        device<aosoa32> b;
        a.reserve(n);
        s.reserve(n);
        b.reserve(n);
        bench_append<aos>("aos", n, reps, raw_aos{a.view().data()}, count);
        raw_soa columns{};
        for (int k = 0; k < fields; ++k)
            columns.f[k] = static_cast<float*>(s.view().storage().columns[k]);
        bench_append<soa>("soa", n, reps, columns, count);
        bench_append<aosoa32>("aosoa32", n, reps,
                              raw_aosoa{reinterpret_cast<float*>(b.view().data())}, count);
    }
    {
        device<aos> input(n);
        fill_particles<<<unsigned((n + 255) / 256), 256>>>(input.view());
        check(cudaGetLastError(), "fill_particles");
        raw_select raw{
            n, float(dead_percent) / 100.0f, input, input, input, nullptr, nullptr, nullptr, 0};
        check(cudaMalloc(&raw.flags, n), "cudaMalloc");
        check(cudaMalloc(&raw.count, sizeof(std::int64_t)), "cudaMalloc");
        std::size_t if_bytes = 0, flagged_bytes = 0;
        check(cub::DeviceSelect::If(nullptr, if_bytes, raw.aos_work.view().data(), raw.count,
                                    std::int64_t(n), alive_aos{raw.threshold}),
              "cub::DeviceSelect::If");
        check(cub::DeviceSelect::Flagged(nullptr, flagged_bytes, static_cast<float*>(nullptr),
                                         raw.flags, raw.count, std::int64_t(n)),
              "cub::DeviceSelect::Flagged");
        std::size_t lanes_bytes = 0;
        const auto any_leaf = thrust::make_permutation_iterator(
            static_cast<float*>(nullptr),
            thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), lane_of{0}));
        check(cub::DeviceSelect::Flagged(nullptr, lanes_bytes, any_leaf, raw.flags, raw.count,
                                         std::int64_t(n)),
              "cub::DeviceSelect::Flagged");
        raw.temp_bytes = std::max({if_bytes, flagged_bytes, lanes_bytes});
        check(cudaMalloc(&raw.temp, raw.temp_bytes), "cudaMalloc");
        const device<soa> soa_input = input;
        const device<aosoa32> aosoa_input = input;
        std::size_t aos_kept = 0, soa_kept = 0, aosoa_kept = 0;
        const double aos_us = median_us(
            reps, [&] { raw.aos_work = input; }, [&] { aos_kept = raw.aos_if(); });
        const double soa_us = median_us(
            reps, [&] { raw.soa_work = soa_input; }, [&] { soa_kept = raw.soa_flagged(); });
        const double aosoa_us = median_us(
            reps, [&] { raw.aosoa_work = aosoa_input; }, [&] { aosoa_kept = raw.aosoa_flagged(); });
        if (aos_kept != soa_kept || aosoa_kept != soa_kept) {
            std::fprintf(stderr, "raw selects disagree: %zu, %zu, %zu\n", aos_kept, soa_kept,
                         aosoa_kept);
            return 1;
        }
        { // the raw AoSoA select kept what the raw AoS one kept, in order
            const layout::vector<Particle, aos> a = raw.aos_work, b = raw.aosoa_work;
            for (std::size_t i = 0; i < aos_kept; ++i)
                if (std::memcmp(&a.data()[i], &b.data()[i], sizeof(Particle)) != 0) {
                    std::fprintf(stderr, "raw AoSoA select differs at %zu\n", i);
                    return 1;
                }
        }
        std::printf("%-16s %-10s %10s %10.1f %10s %8s   (raw AoS: DeviceSelect::If)\n", "remove_if",
                    "raw aos", "", aos_us, "", "");
        std::printf("%-16s %-10s %10s %10.1f %10s %8s   (raw SoA: flags + Flagged per column)\n",
                    "remove_if", "raw soa", "", soa_us, "", "");
        std::printf(
            "%-16s %-10s %10s %10.1f %10s %8s   (raw AoSoA: flags + Flagged per leaf's lanes)\n",
            "remove_if", "raw aosoa", "", aosoa_us, "", "");
        bench_remove<aos>("aos", input, raw, aos_us, aos_kept, "AoS If", reps);
        bench_remove<soa>("soa", input, raw, soa_us, soa_kept, "SoA Flagged", reps);
        bench_remove<aosoa32>("aosoa32", input, raw, aosoa_us, aosoa_kept, "AoSoA Flagged", reps);
        bench_remove<aosoa32>("aosoa32", input, raw, soa_us, soa_kept, "SoA Flagged", reps);
        cudaFree(raw.flags);
        cudaFree(raw.count);
        cudaFree(raw.temp);
    }
    cudaFree(count);
    return 0;
}
