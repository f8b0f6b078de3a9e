#include <layout/cuda/algorithms.hpp>
#include <layout/layout.hpp>

#include <cstdio>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

template <class View, class Out>
__global__ void split(View p, Out born) {                      // heavy particles split in two
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    Particle parent = p[i];
    if (parent.mass < 2) return;
    Particle child = parent;
    child.mass = parent.mass / 2;
    if (born.push_back(child))                                 // false: no room, counted
        layout::get<&Particle::mass>(p[i]) = parent.mass / 2;
}

struct dead {                                                  // a predicate over the proxy
    template <class P>
    __host__ __device__ bool operator()(const P& p) const {
        return layout::get<&Particle::mass>(p) < 1;
    }
};

int main() {
    layout::soa_vector<Particle> host;
    for (int i = 0; i < 1000; ++i) host.push_back({float(i), 0, 0, 0, 0, 0, float(i % 4), 0});
    layout::cuda::soa_vector<Particle> p = host;
    p.reserve(1400);                                           // room for 400 newborns

    layout::cuda::appender born(p);                            // appends after p's 1000
    split<<<4, 256, 0, born.stream()>>>(p.view(), born.view());
    auto [appended, dropped] = born.finish();                  // p.size() == 1400

    std::size_t alive = layout::cuda::remove_if(p, dead{});    // in place, in order; resized
    std::printf("%zu born, %zu dropped, %zu alive\n", appended, dropped, alive);   // 400 born, 100 dropped, 1150 alive
}
