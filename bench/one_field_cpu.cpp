// One field on the host: mass *= c on 32-byte Particles and 64-byte WideParticles, 8M elements,
// one thread, the hand-written loops and layout::for_each_index under aos, soa and aosoa<32>.
// c alternates between 0.5 and 2 so that the values neither grow nor decay over iterations.
#include "cpu_bench.hpp"

int main(int argc, char** argv) {
    return bench::cpu_main(argc, argv, std::size_t{8} << 20, [](std::size_t n) {
        auto c = [](std::size_t k) { return scale_mass{k % 2 ? 0.5f : 2.0f}; };
        bench::add_variants<Particle>("one_field_p32", n, particles::random_particle,
                                      scale_mass::bytes<Particle>().useful_bytes(), c);
        bench::add_variants<WideParticle>("one_field_w64", n, particles::random_wide_particle,
                                          scale_mass::bytes<WideParticle>().useful_bytes(), c);
    });
}
