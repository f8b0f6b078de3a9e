// particles.cu: the particles example on the GPU. The kernels of kernels.hpp run under aos, soa
// and aosoa<32> through the library (layout::cuda::for_each_index), next to hand-written raw
// kernels on the same memory. Each variant is verified against a double-precision host reference
// (every word of every element), then timed with CUDA events: warm-up, median of --reps runs.
// The device's float4 copy bandwidth is measured in the same run; one table compares everything.
//
//   particles_gpu [--n 33554432] [--reps 30] [--kernels drift,wide_drift,one_field,most_fields]
//   [--cpu]
//
// Without a usable CUDA device it says so and runs the CPU version (cpu_driver.hpp). The exit
// status is non-zero if any verification fails.
#include "cpu_driver.hpp"
#include "gpu_kernels.cuh"

#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <type_traits>
#include <vector>

namespace particles {

struct gpu_backend {
    template <class T, class L>
    using container = layout::vector<T, L, layout::cuda::device_memory>;

    template <class F, class View>
    void run_lib(const F& f, const View& v) const {
        layout::cuda::for_each_index<1>(v, f); // one per thread: the raw kernel's twin
    }
    template <class F, class View>
    static constexpr bool has_raw = std::is_invocable_v<gpu_raw_runner, const F&, const View&>;
    template <class F, class View>
    void run_raw(const F& f, const View& v) const {
        gpu_raw_runner{}(f, v);
    }
    template <class F, class View>
    void run_default(const F& f, const View& v) const {
        layout::cuda::for_each_index<layout::cuda::per_thread_auto>(v, f); // the layout's choice
    }
    /// f touches its own element only: AoS staged through shared memory (for_each_element).
    template <class F, class T>
    void run_element(const F& f, const device_view<T, aos>& v) const {
        layout::cuda::for_each_element(v, f);
    }
    void run_llama(const drift& f, const device_view<Particle, aos>& v) const {
        gpu_raw_runner{}.llama(f, v);
    }
    void sync() const {
        layout::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a kernel");
    }

    template <class Fn>
    double median_us(Fn&& fn, int warmup, int reps) const {
        return median_us_events(fn, warmup, reps);
    }
};

/// float4 copy of bytes bytes (read + written counted), checked, then timed.
inline double gpu_copy_gbps(std::size_t bytes, int warmup, int reps) {
    const std::size_t n4 = bytes / sizeof(float4);
    std::vector<float> host(n4 * 4);
    parallel_for(host.size(), [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) host[i] = static_cast<float>(i % 4093) + 0.25f;
    });
    float4 *src = nullptr, *dst = nullptr;
    layout::cuda::check(cudaMalloc(&src, n4 * sizeof(float4)), "cudaMalloc (copy source)");
    layout::cuda::check(cudaMalloc(&dst, n4 * sizeof(float4)), "cudaMalloc (copy destination)");
    layout::cuda::check(cudaMemcpy(src, host.data(), n4 * sizeof(float4), cudaMemcpyHostToDevice),
                        "cudaMemcpy");
    layout::cuda::check(cudaMemset(dst, 0xff, n4 * sizeof(float4)), "cudaMemset"); // poison: NaNs
    auto run = [&] {
        copy_float4<<<blocks_for(n4), threads_per_block>>>(src, dst, n4);
        layout::cuda::check_launch("copy_float4");
    };
    run();
    std::vector<float> back(host.size());
    layout::cuda::check(cudaMemcpy(back.data(), dst, n4 * sizeof(float4), cudaMemcpyDeviceToHost),
                        "cudaMemcpy");
    if (std::memcmp(back.data(), host.data(), host.size() * sizeof(float)) != 0) {
        std::printf("FAILED: copy_float4 copied wrongly\n");
        std::exit(1);
    }
    const double us = median_us_events(run, warmup, reps);
    cudaFree(src);
    cudaFree(dst);
    return 2.0 * double(n4 * sizeof(float4)) / (us * 1e3);
}

inline int run_gpu(options opt) {
    if (opt.n == 0) opt.n = std::size_t{32} << 20;
    if (opt.reps == 0) opt.reps = 30;
    if (opt.warmup < 0) opt.warmup = 3;
    int device = 0;
    layout::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp prop{};
    layout::cuda::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    std::printf("particles (GPU): %s, %d SMs, %.0f MB L2; n = %zu particles; median of %d runs "
                "after %d warm-up%s\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6, opt.n, opt.reps,
                opt.warmup,
                LAYOUT_CHECK_BOUNDS ? " [bounds checks ON: library timings include them]" : "");
    const std::size_t copy_bytes = opt.n * sizeof(Particle);
    const double copy = gpu_copy_gbps(copy_bytes, opt.warmup, opt.reps);
    std::printf("float4 device copy of %zu bytes: %.1f GB/s (read + written)\n", copy_bytes, copy);
    std::fflush(stdout);

    report rep;
    rep.granule = 32;
    run_cases(gpu_backend{}, opt, rep);
    char what[96];
    std::snprintf(what, sizeof what, "float4 device copy, %zu B", copy_bytes);
    print_table(rep, copy, what);
    return rep.all_ok ? 0 : 1;
}

} // namespace particles

int main(int argc, char** argv) {
    const particles::options opt = particles::parse_options(argc, argv);
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (opt.cpu || e != cudaSuccess || devices == 0) {
        if (!opt.cpu)
            std::printf("particles: no CUDA device found (%s); running the CPU version\n",
                        e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        (void)cudaGetLastError();
        return particles::run_cpu(opt);
    }
    try {
        return particles::run_gpu(opt);
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "particles: %s\n", ex.what());
        return 2;
    }
}
