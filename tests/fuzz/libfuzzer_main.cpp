// libFuzzer target for the differential driver (differential.hpp): the first byte of an input
// picks the element type (Particle, Mixed, Body) and the memory space (host memory, or one
// whose allocations fail on demand); the rest is the operation sequence. A divergence from the
// std::vector model aborts, and libFuzzer saves the input as crash-<sha1>.
//
// Built with -fsanitize=fuzzer,address,undefined when LAYOUT_BUILD_FUZZER is ON (clang only):
//   bash scripts/fuzz.sh [seconds]
// Replay one input:  build/fuzz/tests/layout_fuzzer crash-<sha1>
// At exit it prints the number of inputs, steps and container operations it ran.

#include "fuzz/differential.hpp"

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

using namespace layout_fuzz;

/// Runs one input for the element type and memory space its first byte picks.
run_stats run_any(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return {};
    const std::uint8_t pick = data[0];
    ++data, --size;
    switch (pick % 6) {
    case 0:
        return differential<Particle>("libFuzzer input").run(data, size);
    case 1:
        return differential<Mixed>("libFuzzer input").run(data, size);
    case 2:
        return differential<Body>("libFuzzer input").run(data, size);
    case 3:
        return differential<Particle, failing_memory>("libFuzzer input").run(data, size);
    case 4:
        return differential<Mixed, failing_memory>("libFuzzer input").run(data, size);
    default:
        return differential<Body, failing_memory>("libFuzzer input").run(data, size);
    }
}

run_stats total;
std::uint64_t inputs = 0;

void print_total() {
    std::fprintf(stderr,
                 "layout_fuzz: %" PRIu64 " inputs, %" PRIu64 " steps, %" PRIu64
                 " container operations, %" PRIu64 " failed allocations, no divergence\n",
                 inputs, total.steps, total.container_ops, total.allocation_failures);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    std::atexit(print_total);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const run_stats s = run_any(data, size);
    ++inputs;
    total.steps += s.steps;
    total.container_ops += s.container_ops;
    total.allocation_failures += s.allocation_failures;
    return 0;
}
