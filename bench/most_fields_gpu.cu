// Most fields on the GPU: a full time step of the 64-byte WideParticle (binning, kick, drift, new
// force, energy), which reads 14 and writes 12 of its 16 fields: AoS is hardly penalised.
// 32M elements, raw and library kernels under aos, soa and aosoa<32>.
#include "gpu_bench.cuh"

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        bench::add_variants<WideParticle>("most_fields", n, particles::random_wide_particle,
                                          integrate::bytes().useful_bytes(),
                                          [](std::size_t) { return particles::integrate_params; });
    });
}
