#include <layout/layout.hpp>   // with nvcc, this also brings the layout::cuda containers

#include <cstdio>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

template <class View>
__global__ void drift(View p, float dt) {                      // your own kernel, any layout
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    auto&& [x, y, z, vx, vy, vz, m, q] = p[i];                 // the same proxy as on the host
    x += vx * dt;  y += vy * dt;  z += vz * dt;
}

int main() {
    layout::aosoa<Particle, 32> host(1 << 20, Particle{0, 0, 0, 1, 2, 3, 1, 0});
    layout::cuda::aosoa<Particle, 32> dev = host;              // device memory: one copy
    unsigned blocks = (dev.size() + 255) / 256;
    drift<<<blocks, 256>>>(dev.view(), 0.5f);                  // a view goes by value
    layout::cuda::soa_vector<Particle> soa = dev;              // converted on the GPU
    drift<<<blocks, 256>>>(soa.view(), 0.5f);                  // swap the type: nothing else changes
    layout::soa_vector<Particle> back = soa;                   // and back to the host
    Particle p = back[7];
    std::printf("x %g, y %g, z %g\n", p.x, p.y, p.z);          // x 1, y 2, z 3
}
