#include <layout/cuda/interop.hpp>
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
    float* mass = soa.view().column<&Particle::mass>().data();
    float total = thrust::reduce(thrust::device, mass, mass + soa.size());
    cuda::std::span<float> m = layout::cuda::column_span<&Particle::mass>(soa);

    // Any layout: a cuda::std::mdspan (AoS: layout_stride, stride 8 floats; AoSoA: a block mapping)
    scale<<<blocks, 256>>>(layout::cuda::column_mdspan<&Particle::mass>(soa), 2.0f);
    scale<<<blocks, 256>>>(layout::cuda::column_mdspan<&Particle::mass>(aos), 3.0f);
    float soa_total = thrust::reduce(thrust::device, m.data(), m.data() + m.size());
    std::printf("%g %g\n", total, soa_total);                  // 1.04858e+06 2.09715e+06
}
