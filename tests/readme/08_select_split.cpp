#include <layout/layout.hpp>

#include <cstdio>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

// Hot and cold: x, y, z as an AoS of 12-byte elements, the other fields as SoA columns.
using hot_cold = layout::policy::split<layout::policy::aos, layout::policy::soa,
                                       &Particle::x, &Particle::y, &Particle::z>;

int main() {
    layout::vector<Particle, hot_cold> p(1000, Particle{0, 0, 0, 1, 2, 3, 1, 0});
    auto pos = p.select<&Particle::x, &Particle::y, &Particle::z>();   // some fields of each
    auto vel = p.select<&Particle::vx, &Particle::vy, &Particle::vz>();
    for (std::size_t i = 0; i < p.size(); ++i) {
        auto&& [x, y, z] = pos[i];                             // float& into the hot part
        auto [vx, vy, vz] = vel[i].load();                     // their values, a std::tuple
        x += vx * 0.5f;  y += vy * 0.5f;  z += vz * 0.5f;
    }
    layout::soa_vector<Particle> other(1000);                  // zeros
    layout::copy(pos, other.select<&Particle::x, &Particle::y, &Particle::z>());  // x, y, z alone
    Particle a = p[7], b = other[7];
    std::printf("%g %g %g, %g %g\n", a.x, a.y, a.z, b.z, b.vz);   // 0.5 1 1.5, 1.5 0
}
