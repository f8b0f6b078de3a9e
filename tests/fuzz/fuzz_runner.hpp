/// \file fuzz_runner.hpp
/// What the fuzz_differential tests share: byte streams from fixed seeds (std::mt19937_64), run
/// through layout_fuzz::differential until an operation budget or a time limit is used up.
///
/// The budget, from the environment or else from compile definitions (see fuzz.cmake):
///   LAYOUT_FUZZ_OPS=n        operations applied to layout containers, in total over the six
///                            fuzz tests (default LAYOUT_FUZZ_OPS_DEFAULT: 6000000; 100000 in
///                            the sanitizer build)
///   LAYOUT_FUZZ_MAX_SIZE=n   largest container the streams grow (default
///                            LAYOUT_FUZZ_MAX_SIZE_DEFAULT: 300); a step costs O(size)
///   LAYOUT_FUZZ_SECONDS=s    run each test for s seconds instead of counting operations
///   LAYOUT_FUZZ_SEED=n       start from other seeds (default 0: the seeds CTest always uses)
#pragma once

#include "fuzz/differential.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#ifndef LAYOUT_FUZZ_OPS_DEFAULT
#  define LAYOUT_FUZZ_OPS_DEFAULT 6000000
#endif
#ifndef LAYOUT_FUZZ_MAX_SIZE_DEFAULT
#  define LAYOUT_FUZZ_MAX_SIZE_DEFAULT 300
#endif

namespace layout_fuzz {

inline constexpr int fuzz_tests = 6; // 3 element types x 2 memory spaces share the budget

inline std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* s = std::getenv(name);
    return s && *s ? std::strtoull(s, nullptr, 10) : fallback;
}

inline limits env_limits() {
    limits lim;
    lim.max_size = static_cast<std::size_t>(
        std::max<std::uint64_t>(8, env_u64("LAYOUT_FUZZ_MAX_SIZE", LAYOUT_FUZZ_MAX_SIZE_DEFAULT)));
    return lim;
}

/// Fuzzes T in Memory with this test's share of the budget. Streams are 64 to 8192 bytes (a
/// step reads 3 to 15 bytes), so that some runs stay small and others reach the size limit.
/// A divergence aborts the test program, naming the seed that reproduces it.
template <class T, class Memory>
void fuzz(int test_index) {
    const std::uint64_t budget = env_u64("LAYOUT_FUZZ_OPS", LAYOUT_FUZZ_OPS_DEFAULT) / fuzz_tests;
    const std::uint64_t seconds = env_u64("LAYOUT_FUZZ_SECONDS", 0);
    const std::uint64_t base_seed = env_u64("LAYOUT_FUZZ_SEED", 0);
    const limits lim = env_limits();
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };

    std::uint64_t streams = 0, steps = 0, ops = 0, failures = 0, size_sum = 0, max_size = 0;
    std::vector<std::uint8_t> bytes;
    for (std::uint64_t stream = 0;; ++stream) {
        if (seconds ? elapsed() >= static_cast<double>(seconds) : ops >= budget) break;
        const std::uint64_t seed =
            base_seed * 1000003u + stream * fuzz_tests + static_cast<unsigned>(test_index);
        std::mt19937_64 g(seed);
        bytes.resize(64 + g() % 8129);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(g());
        differential<T, Memory> driver(layout_test::type_name<T>() + ", LAYOUT_FUZZ_MAX_SIZE " +
                                           std::to_string(lim.max_size) + ", stream seed " +
                                           std::to_string(seed) + " (" +
                                           std::to_string(bytes.size()) + " bytes)",
                                       lim);
        const run_stats s = driver.run(bytes.data(), bytes.size());
        ++streams;
        steps += s.steps;
        ops += s.container_ops;
        failures += s.allocation_failures;
        size_sum += s.size_sum;
        max_size = std::max(max_size, s.max_size_seen);
    }
    std::printf("[ fuzz     ] %s, %s: %" PRIu64 " streams, %" PRIu64 " steps, %" PRIu64
                " container operations, %" PRIu64 " failed allocations, size mean %.0f max %" PRIu64
                ", %.1f s\n",
                layout_test::type_name<T>().c_str(),
                can_fail<Memory> ? "failing_memory" : "host_memory", streams, steps, ops, failures,
                steps ? static_cast<double>(size_sum) / static_cast<double>(steps) : 0.0, max_size,
                elapsed());
    ::testing::Test::RecordProperty("container_ops", std::to_string(ops));
    EXPECT_GT(ops, 0u);
    if constexpr (can_fail<Memory>) {
        if (steps > 1000) {
            EXPECT_GT(failures, 0u) << "no allocation ever failed";
        }
    }
}

/// Empty, one-byte and truncated inputs (what libFuzzer starts from) decode without trouble.
template <class T, class Memory>
void tiny_inputs() {
    for (std::size_t n = 0; n < 64; ++n) {
        const std::vector<std::uint8_t> bytes(n, static_cast<std::uint8_t>(n * 37));
        (void)differential<T, Memory>("tiny input").run(bytes.data(), bytes.size());
    }
}

} // namespace layout_fuzz
