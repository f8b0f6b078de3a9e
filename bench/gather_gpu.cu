// gather on the GPU, dst[i] = src[idx[i]]: layout::cuda::gather under aos, soa and aosoa<32> next
// to hand-written raw kernels, 32M 8-float Particles (and 32M floats), sorted (identity) and
// random (a random permutation) 32-bit indices. Bytes processed: 4 + 2 * sizeof(T) per element.
// See algorithms_bench.cuh.
#include "algorithms_bench.cuh"

int main(int argc, char** argv) {
    return algo_bench::main<algo_bench::op::gather>(argc, argv, "gather");
}
