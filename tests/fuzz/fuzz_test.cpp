// Differential fuzzing with fixed seeds, in CTest: byte streams from std::mt19937_64 drive
// layout_fuzz::differential (differential.hpp) for each element type, in host memory here and
// in a memory space whose allocations fail on demand in fuzz_test_failing.cpp (a second
// translation unit of the same program, so that the two compile in parallel). The budget and
// the other knobs are described in fuzz_runner.hpp: LAYOUT_FUZZ_OPS, LAYOUT_FUZZ_MAX_SIZE,
// LAYOUT_FUZZ_SECONDS, LAYOUT_FUZZ_SEED.
//
// A divergence aborts the program with the diverging operation, the layout, the element, the
// operations before it and the seed of the stream.

#include "fuzz/fuzz_runner.hpp"

#include <cstdint>
#include <vector>

namespace {

using namespace layout_fuzz;

TEST(differential, particle_host) { fuzz<Particle, layout::host_memory>(0); }
TEST(differential, mixed_host) { fuzz<Mixed, layout::host_memory>(1); }
TEST(differential, body_host) { fuzz<Body, layout::host_memory>(2); }

/// A seed reproduces its run: the same stream twice gives the same steps and sizes (and the
/// streams do grow the containers, so the comparisons are not all of empty containers).
TEST(differential, deterministic) {
    std::mt19937_64 g(7);
    std::vector<std::uint8_t> bytes(3000);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(g());
    const auto a =
        differential<Mixed>("deterministic", env_limits()).run(bytes.data(), bytes.size());
    const auto b =
        differential<Mixed>("deterministic", env_limits()).run(bytes.data(), bytes.size());
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_EQ(a.size_sum, b.size_sum);
    EXPECT_GT(a.max_size_seen, 20u) << "the stream never grew the containers";
}

TEST(differential, tiny_inputs_host) {
    tiny_inputs<Particle, layout::host_memory>();
    tiny_inputs<Mixed, layout::host_memory>();
    tiny_inputs<Body, layout::host_memory>();
}

} // namespace
