#include <layout/algorithms.hpp>
#include <layout/layout.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

int main() {
    layout::soa_vector<Particle> p(8);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = Particle{float(i), 0, 0, 0, 0, 0, 1, 0};

    std::vector<std::uint32_t> idx = {7, 0, 3};
    layout::aos_vector<Particle> picked(idx.size());
    layout::gather(p, idx, picked);                    // picked[k] = p[idx[k]]: x = 7, 0, 3
    layout::scatter(picked, idx, p);                   // p[idx[k]] = picked[k]

    std::vector<unsigned> cell = {2, 0, 2, 1, 0, 1, 2, 0};        // the cell of each particle
    auto bins = layout::bin_by_key(cell, 3, p);        // p reordered by cell, stably
    // cell c holds p[bins.offsets[c]] .. p[bins.offsets[c + 1] - 1]
    std::printf("offsets %zu %zu %zu %zu, x", bins.offsets[0], bins.offsets[1], bins.offsets[2],
                bins.offsets[3]);
    for (std::size_t i = 0; i < p.size(); ++i) std::printf(" %g", Particle(p[i]).x);
    std::printf("\n");                                 // offsets 0 3 5 8, x 1 4 7 3 5 0 2 6
}
