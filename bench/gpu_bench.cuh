/// \file gpu_bench.cuh
/// Google Benchmark on the GPU for the particle kernels: each kernel under the library's three
/// layouts (layout::cuda::for_each_index) and as the hand-written raw kernel for each layout
/// (examples/particles/gpu_kernels.cuh), on the same data. One launch per iteration, timed with
/// CUDA events (UseManualTime, gpu_common.cuh); SetBytesProcessed counts useful bytes (each field
/// the kernel touches read once / written once per element).
///
/// Options besides Google Benchmark's: --n=N elements (default 33554432).
/// Without a CUDA device the program says so and exits 0.
#pragma once

#include "gpu_common.cuh"
#include "gpu_kernels.cuh"
#include "particle_bench.hpp"

#include <layout/layout.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace bench {

/// Registers `name`: launch(v, k) enqueues iteration k (0 for the warm-up launch, then 1, 2, ...)
/// on the view v of the input in layout L in device memory, timed with CUDA events.
template <class L, class T, class Launch>
void add_launch(const std::string& name, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                std::size_t useful_bytes_per_element, Launch launch) {
    benchmark::RegisterBenchmark(
        name.c_str(),
        [=](benchmark::State& state) {
            try {
                const auto v =
                    inputs<T, layout::cuda::device_memory>(n, make).template get<L>().view();
                std::size_t k = 0;
                time_launches(state, [&] { launch(v, k++); });
                state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                        static_cast<std::int64_t>(n * useful_bytes_per_element));
                state.counters["elements"] = static_cast<double>(n);
            } catch (const std::exception& e) {
                state.SkipWithError(e.what());
            }
        })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

/// Registers "<kernel>/<variant>" for the six variants; functor(k) is the functor of iteration k.
template <class T, class Functor>
void add_variants(const std::string& kernel, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                  std::size_t useful_bytes_per_element, Functor functor) {
    for_each_variant(kernel, [&]<class L>(const std::string& name, bool raw, L) {
        add_launch<L>(name, n, make, useful_bytes_per_element, [=](const auto& v, std::size_t k) {
            if (raw)
                particles::gpu_raw_runner{}(functor(k), v);
            else
                layout::cuda::for_each_index<1>(v, functor(k)); // the raw kernel's shape
        });
    });
}

} // namespace bench
