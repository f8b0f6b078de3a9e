// drift on the GPU: x += vx * dt (x, y, z) on 32-byte Particles, 32M elements, raw and library
// kernels under aos, soa and aosoa<32>. Useful bytes: 24 read + 12 written per element.
#include "gpu_bench.cuh"

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        bench::add_variants<Particle>("drift", n, particles::random_particle,
                                      drift::bytes().useful_bytes(),
                                      [](std::size_t) { return particles::drift_params; });
    });
}
