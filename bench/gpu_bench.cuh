/// \file gpu_bench.cuh
/// Google Benchmark on the GPU for the particle kernels: each kernel under the library's three
/// layouts (layout::cuda::for_each_index) and as the hand-written raw kernel for each layout
/// (examples/particles/gpu_kernels.cuh), on the same data. One launch per iteration, timed with
/// CUDA events (UseManualTime); SetBytesProcessed counts useful bytes (each field the kernel
/// touches read once / written once per element).
///
/// Options besides Google Benchmark's: --n=N elements (default 33554432).
/// Without a CUDA device the program says so and exits 0.
#pragma once

#include "gpu_kernels.cuh"

#include <layout/layout.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace bench {

using particles::aos;
using particles::aosoa32;
using particles::soa;

template <class T, class L>
using device_vector = layout::vector<T, L, layout::cuda::device_memory>;

/// The input, random with the example's fixed seed, in the three layouts in device memory.
template <class T>
struct device_inputs {
    device_vector<T, aos> in_aos;
    device_vector<T, soa> in_soa;
    device_vector<T, aosoa32> in_aosoa32;

    template <class L>
    device_vector<T, L>& get() {
        if constexpr (std::is_same_v<L, aos>)
            return in_aos;
        else if constexpr (std::is_same_v<L, soa>)
            return in_soa;
        else
            return in_aosoa32;
    }
};

/// Built on first use (so that --benchmark_filter allocates only what it runs), kept after.
template <class T>
device_inputs<T>& inputs(std::size_t n, T (*make)(std::uint64_t, std::size_t)) {
    static std::unique_ptr<device_inputs<T>> built;
    if (!built) {
        std::vector<T> input(n);
        particles::parallel_for(n, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) input[i] = make(particles::default_seed, i);
        });
        built = std::make_unique<device_inputs<T>>();
        built->in_aos = particles::to_layout<T, aos>(input);
        built->in_soa = particles::to_layout<T, soa>(input);
        built->in_aosoa32 = particles::to_layout<T, aosoa32>(input);
    }
    return *built;
}

/// Registers "<kernel>/<variant>" for the six variants; functor(k) is the functor of iteration k.
template <class T, class Functor>
void add_variants(const std::string& kernel, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                  std::size_t useful_bytes_per_element, Functor functor) {
    auto add = [&]<class L>(bool raw, L) {
        const std::string name = kernel + "/" + (raw ? "raw_" : "") + particles::layout_name(L{});
        benchmark::RegisterBenchmark(
            name.c_str(),
            [=](benchmark::State& state) {
                try {
                    const auto v = inputs<T>(n, make).template get<L>().view();
                    auto launch = [&](std::size_t k) {
                        if (raw)
                            particles::gpu_raw_runner{}(functor(k), v);
                        else
                            layout::cuda::for_each_index(v, functor(k));
                    };
                    cudaEvent_t start, stop;
                    layout::cuda::check(cudaEventCreate(&start), "cudaEventCreate");
                    layout::cuda::check(cudaEventCreate(&stop), "cudaEventCreate");
                    launch(0); // warm-up
                    layout::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                    std::size_t k = 0;
                    for (auto _ : state) {
                        layout::cuda::check(cudaEventRecord(start), "cudaEventRecord");
                        launch(++k);
                        layout::cuda::check(cudaEventRecord(stop), "cudaEventRecord");
                        layout::cuda::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
                        float ms = 0;
                        layout::cuda::check(cudaEventElapsedTime(&ms, start, stop),
                                            "cudaEventElapsedTime");
                        state.SetIterationTime(ms * 1e-3);
                    }
                    cudaEventDestroy(start);
                    cudaEventDestroy(stop);
                    state.SetBytesProcessed(
                        static_cast<std::int64_t>(state.iterations()) *
                        static_cast<std::int64_t>(n * useful_bytes_per_element));
                    state.counters["elements"] = static_cast<double>(n);
                } catch (const std::exception& e) {
                    state.SkipWithError(e.what());
                }
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    };
    for (bool raw : {true, false}) {
        add(raw, aos{});
        add(raw, soa{});
        add(raw, aosoa32{});
    }
}

/// main() of a GPU benchmark: parses --n=N, skips cleanly without a device, registers, runs.
inline int gpu_main(int argc, char** argv, std::size_t default_n,
                    const std::function<void(std::size_t)>& register_all) {
    std::size_t n = default_n;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--n=", 4) == 0)
            n = std::strtoull(argv[i] + 4, nullptr, 10);
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::printf("no CUDA device: GPU benchmark skipped\n");
        return 0;
    }
    register_all(n);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace bench
