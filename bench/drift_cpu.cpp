// drift on the host: x += vx * dt (x, y, z) on 32-byte Particles, 8M elements, one thread, the
// hand-written loops and layout::for_each_index under aos, soa and aosoa<32>.
#include "cpu_bench.hpp"

int main(int argc, char** argv) {
    return bench::cpu_main(argc, argv, std::size_t{8} << 20, [](std::size_t n) {
        bench::add_variants<Particle>("drift", n, particles::random_particle,
                                      drift::bytes().useful_bytes(),
                                      [](std::size_t) { return particles::drift_params; });
    });
}
