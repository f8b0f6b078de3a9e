// scatter on the GPU, dst[idx[i]] = src[i]: layout::cuda::scatter under aos, soa and aosoa<32>
// next to hand-written raw kernels, 32M 8-float Particles (and 32M floats), sorted (identity) and
// random (a random permutation: no two threads write one element) 32-bit indices. Bytes
// processed: 4 + 2 * sizeof(T) per element. See algorithms_bench.cuh.
#include "algorithms_bench.cuh"

int main(int argc, char** argv) {
    return algo_bench::main<algo_bench::op::scatter>(argc, argv, "scatter");
}
