// The fuzz_differential tests in failing_memory (differential.hpp): any operation may run with
// its first, second or third allocation failing, and must then leave both containers exactly as
// they were; every block must be freed once, with its size. See fuzz_test.cpp.

#include "fuzz/fuzz_runner.hpp"

namespace {

using namespace layout_fuzz;

TEST(differential, particle_failing_allocations) { fuzz<Particle, failing_memory>(3); }
TEST(differential, mixed_failing_allocations) { fuzz<Mixed, failing_memory>(4); }
TEST(differential, body_failing_allocations) { fuzz<Body, failing_memory>(5); }

TEST(differential, tiny_inputs_failing_allocations) {
    tiny_inputs<Particle, failing_memory>();
    tiny_inputs<Mixed, failing_memory>();
    tiny_inputs<Body, failing_memory>();
}

} // namespace
