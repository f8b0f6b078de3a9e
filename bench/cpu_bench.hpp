/// \file cpu_bench.hpp
/// Google Benchmark on the host for the particle kernels: each kernel under the library's three
/// layouts (layout::for_each_index) and as the hand-written loop for each layout
/// (examples/particles/cpu_driver.hpp), on the same data, one thread (exec::serial; bench/cpu's
/// cpu_ratios compares all threads too). SetBytesProcessed counts
/// useful bytes (each field the kernel touches read once / written once per element).
///
/// Options besides Google Benchmark's: --n=N elements (default 8388608).
#pragma once

#include "bench_main.hpp"
#include "cpu_driver.hpp"
#include "particle_bench.hpp"

#include <layout/layout.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace bench {

/// Registers "<kernel>/<variant>" for the six variants; functor(k) is the functor of iteration k.
template <class T, class Functor>
void add_variants(const std::string& kernel, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                  std::size_t useful_bytes_per_element, Functor functor) {
    for_each_variant(kernel, [&]<class L>(const std::string& name, bool raw, L) {
        benchmark::RegisterBenchmark(
            name.c_str(),
            [=](benchmark::State& state) {
                const auto v = inputs<T, layout::host_memory>(n, make).template get<L>().view();
                std::size_t k = 0;
                for (auto _ : state) {
                    if (raw)
                        particles::cpu_raw_runner{}(functor(++k), v);
                    else
                        layout::for_each_index(layout::exec::serial, v, functor(++k));
                    benchmark::ClobberMemory();
                }
                state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                        static_cast<std::int64_t>(n * useful_bytes_per_element));
                state.counters["elements"] = static_cast<double>(n);
            })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    });
}

/// main() of a host benchmark: parses --n=N, registers, runs.
template <class Register>
int cpu_main(int argc, char** argv, std::size_t default_n, Register&& register_all) {
    const auto n = initialize(argc, argv, default_n);
    return n ? register_and_run(*n, register_all) : 1;
}

} // namespace bench
