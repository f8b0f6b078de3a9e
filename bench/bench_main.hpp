/// \file bench_main.hpp
/// The main() of every benchmark program, host and GPU (cpu_main in cpu_bench.hpp, gpu_main in
/// gpu_common.cuh): --n=N elements besides Google Benchmark's options, then register and run.
///
///     const auto n = bench::initialize(argc, argv, std::size_t{8} << 20);   // --n=N or 8M
///     if (!n) return 1;                                 // an option Google Benchmark rejected
///     return bench::register_and_run(*n, [](std::size_t n) { /* RegisterBenchmark(...) */ });
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <type_traits>

namespace bench {

/// Takes --n=N out of the arguments and hands the rest to Google Benchmark. Returns N (default_n
/// without --n), or nothing where Google Benchmark reports an argument it does not know.
inline std::optional<std::size_t> initialize(int& argc, char** argv, std::size_t default_n) {
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
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return std::nullopt;
    return n;
}

/// register_all(n), then runs what it registered; returns main()'s exit status. register_all
/// returns void, or an int: a non-zero one is the exit status, and nothing runs.
template <class Register>
int register_and_run(std::size_t n, Register&& register_all) {
    if constexpr (std::is_void_v<std::invoke_result_t<Register&, std::size_t>>) {
        register_all(n);
    } else {
        if (const int status = register_all(n); status != 0) return status;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace bench
