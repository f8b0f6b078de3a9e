/// \file cpu_bench.hpp
/// Google Benchmark on the host for the particle kernels: each kernel under the library's three
/// layouts (layout::for_each_index) and as the hand-written loop for each layout
/// (examples/particles/cpu_driver.hpp), on the same data, one thread. SetBytesProcessed counts
/// useful bytes (each field the kernel touches read once / written once per element).
///
/// Options besides Google Benchmark's: --n=N elements (default 8388608).
#pragma once

#include "cpu_driver.hpp"

#include <layout/layout.hpp>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace bench {

using particles::aos;
using particles::aosoa32;
using particles::soa;

template <class T>
struct host_inputs {
    layout::vector<T, aos> in_aos;
    layout::vector<T, soa> in_soa;
    layout::vector<T, aosoa32> in_aosoa32;

    template <class L>
    layout::vector<T, L>& get() {
        if constexpr (std::is_same_v<L, aos>)
            return in_aos;
        else if constexpr (std::is_same_v<L, soa>)
            return in_soa;
        else
            return in_aosoa32;
    }
};

/// Built on first use, kept after.
template <class T>
host_inputs<T>& inputs(std::size_t n, T (*make)(std::uint64_t, std::size_t)) {
    static std::unique_ptr<host_inputs<T>> built;
    if (!built) {
        std::vector<T> input(n);
        particles::parallel_for(n, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) input[i] = make(particles::default_seed, i);
        });
        built = std::make_unique<host_inputs<T>>();
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
                const auto v = inputs<T>(n, make).template get<L>().view();
                std::size_t k = 0;
                for (auto _ : state) {
                    if (raw)
                        particles::cpu_raw_runner{}(functor(++k), v);
                    else
                        layout::for_each_index(v, functor(++k));
                    benchmark::ClobberMemory();
                }
                state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                        static_cast<std::int64_t>(n * useful_bytes_per_element));
                state.counters["elements"] = static_cast<double>(n);
            })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    };
    for (bool raw : {true, false}) {
        add(raw, aos{});
        add(raw, soa{});
        add(raw, aosoa32{});
    }
}

inline int cpu_main(int argc, char** argv, std::size_t default_n,
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
    register_all(n);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace bench
