#include <layout/layout.hpp>

#include <cstdio>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };   // untouched plain struct

struct drift {                                                  // one kernel, any layout
    float dt;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];             // references into the layout
        x += vx * dt;  y += vy * dt;  z += vz * dt;
    }
};

int main() {
    layout::soa_vector<Particle> host(1000);              // host memory, std::vector-like
    host[7] = Particle{0, 0, 0, 1, 2, 3, 1, -1};          // whole-element store
    layout::aosoa<Particle, 32> chunks = host;            // another layout: converting copy
    layout::for_each_index(host.view(), drift{0.5f});     // the functor on the CPU, vectorized
    layout::for_each_index(chunks.view(), drift{0.5f});   // same functor, another layout
    layout::get<&Particle::vx>(host[7]) *= 2;             // one field by member pointer
    Particle p = host[7];                                 // whole-element load
    Particle c = chunks[7];
    std::printf("x %g %g, vx %g %g\n", p.x, c.x, p.vx, c.vx);   // x 0.5 0.5, vx 2 1
}
