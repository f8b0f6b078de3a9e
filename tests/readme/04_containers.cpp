#include <layout/layout.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <span>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

int main() {
    layout::soa_vector<Particle> p;                            // a std::vector<Particle>, as SoA
    for (int i = 0; i < 100; ++i)
        p.push_back({float(i), 0, 0, 1, 0, 0, 1, i % 2 ? 1.f : -1.f});
    p.erase(p.begin());                                        // 99 left
    std::ranges::stable_sort(p, {}, [](const Particle& e) { return e.charge; });

    layout::aos_vector<Particle> a = p;                        // any layout from any layout
    layout::aosoa<Particle, 16> b(a.begin(), a.end());         // or from iterators

    std::span<float> mass = p.column<&Particle::mass>().span();   // SoA: a std::span
    float total = std::reduce(mass.begin(), mass.end());
    auto ax = a.column<&Particle::x>();                        // AoS: ax.stride() == 8
    auto bq = b.column<&Particle::charge>();                   // any layout: a range of float&
    std::ranges::replace(bq, -1.f, 0.f);
    std::printf("%g %g %g\n", total, ax[0], bq[0]);            // 99 2 0
}
