// One field on the GPU: mass *= c on 32-byte Particles and 64-byte WideParticles, 32M elements,
// raw and library kernels under aos, soa and aosoa<32>. Useful bytes: 4 read + 4 written per
// element; AoS moves a 32-byte sector each way for them (the 8x sector bound).
// c alternates between 0.5 and 2 so that the values neither grow nor decay over iterations.
#include "gpu_bench.cuh"

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        auto c = [](std::size_t k) { return scale_mass{k % 2 ? 0.5f : 2.0f}; };
        bench::add_variants<Particle>("one_field_p32", n, particles::random_particle,
                                      scale_mass::bytes<Particle>().useful_bytes(), c);
        bench::add_variants<WideParticle>("one_field_w64", n, particles::random_wide_particle,
                                          scale_mass::bytes<WideParticle>().useful_bytes(), c);
    });
}
