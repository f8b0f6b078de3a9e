// Which layout for this kernel? layout::advise runs the functor on the host over a sample of
// elements, records what it reads and writes, and predicts each layout's cost on the GPU.
//
//   $ ./advise
//   kick on a 32-byte struct of 8 leaves: reads 5 leaves, writes 3 (64 calls traced)
//     layout  sectorB  dramB ...  bound     GPU time  vs best ...
//     soa        32.0   32.0 ...  bytes     373.4 us    1.00x ...
//     aosoa32    32.0   32.0 ...  bytes     389.7 us    1.04x ...
//     aos        64.0   64.0 ...  requests  752.5 us    2.01x ...
//     recommended: soa (or aosoa32: within 5%)
//       soa       bound by bytes: moves only what it uses (32 B per element), every warp ...
//       ...
//   predicted AoS / SoA time: 2.01x
#include <layout/advise.hpp>

#include <cstddef>
#include <cstdio>

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

/// v += (q / m) * E * dt: the same functor layout::for_each_index runs, on any layout.
struct kick {
    float ex, ey, ez, dt;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        const float a = q / m * dt;
        vx += a * ex;
        vy += a * ey;
        vz += a * ez;
    }
};

int main() {
    const auto advice = layout::advise<Particle>(kick{1.0f, 0.25f, -0.5f, 1e-3f});
    advice.print(stdout, "kick");
    std::printf("\npredicted AoS / SoA time: %.2fx\n", advice.ratio("aos", "soa"));
}
