#include <layout/layout.hpp>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cstdio>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

template <class Column>
__global__ void scale(Column m, float s) {                    // one column, any layout
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m.extent(0)) m(i) *= s;
}

int main() {
    layout::cuda::soa_vector<Particle> soa(1 << 20, Particle{0, 0, 0, 0, 0, 0, 1, 0});
    layout::cuda::aos_vector<Particle> aos = soa;
    unsigned blocks = (soa.size() + 255) / 256;

    // SoA: a column is an array in device memory, for thrust, CUB, cuBLAS...
    auto m = soa.column<&Particle::mass>();                  // m.data(), m.size(), m.stride() == 1
    float total = thrust::reduce(thrust::device, m.data(), m.data() + m.size());

    // Any layout: a cuda::std::mdspan (AoS: layout_stride, stride 8 floats; AoSoA: a block mapping)
    scale<<<blocks, 256>>>(soa.column<&Particle::mass>().mdspan(), 2.0f);
    scale<<<blocks, 256>>>(aos.column<&Particle::mass>().mdspan(), 3.0f);
    float soa_total = thrust::reduce(thrust::device, m.data(), m.data() + m.size());
    std::printf("%g %g\n", total, soa_total);                  // 1.04858e+06 2.09715e+06
}
