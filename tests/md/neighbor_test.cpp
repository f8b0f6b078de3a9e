// The neighbor lists of examples/md against a brute-force O(N^2) search over random atoms in
// boxes of several shapes and origins: every pair within cutoff + skin (minimum image) is in
// the half list exactly once and in the full list exactly twice (i -> j and j -> i), nothing
// else is, and every neighbor stored before plain[i] is at its plain difference (no periodic
// image needed), which is what lets the force loop skip the minimum image for them. Wide grids
// (the half stencil) and short axes (the fallback) both, for every layout.
#include "host_backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

struct box_case {
    double lo[3], hi[3];
    double cutoff, skin;
    int atoms;
};

md::system random_system(const box_case& c, unsigned seed) {
    md::system s;
    std::mt19937_64 g(seed);
    for (int d = 0; d < 3; ++d) {
        s.box.lo[d] = c.lo[d];
        s.box.hi[d] = c.hi[d];
    }
    s.mass = {1.0};
    for (int i = 0; i < c.atoms; ++i) {
        md::atom<double> a{};
        double* x[3] = {&a.x.x, &a.x.y, &a.x.z};
        for (int d = 0; d < 3; ++d)
            *x[d] = std::uniform_real_distribution<double>(c.lo[d], c.hi[d])(g);
        a.type = 1;
        a.id = i + 1;
        s.atoms.push_back(a);
    }
    return s;
}

/// The unordered pair of atom ids {a, b} as one integer.
std::uint64_t pair_key(int a, int b) {
    return std::uint64_t(std::uint32_t(std::min(a, b))) << 32 | std::uint32_t(std::max(a, b));
}

double image(double d, double prd) {
    if (d > 0.5 * prd) return d - prd;
    if (d < -0.5 * prd) return d + prd;
    return d;
}

template <bool Half, class Layout>
void check_lists(const box_case& c, unsigned seed) {
    const md::system s = random_system(c, seed);
    md::options o;
    o.cutoff = c.cutoff;
    o.skin = c.skin;
    md::check_system(s, o);
    md::simulation<double, Layout, md::host_backend<Half>> sim(s, o);
    sim.rebuild_lists();

    // Brute force, by atom id: unordered pairs within reach, each as one integer (pair_key) in a
    // sorted vector: not std::set and std::map, which took most of the test's time unoptimized.
    const double reach_sq = (c.cutoff + c.skin) * (c.cutoff + c.skin);
    std::vector<std::uint64_t> expected;
    for (std::size_t i = 0; i < s.atoms.size(); ++i)
        for (std::size_t j = i + 1; j < s.atoms.size(); ++j) {
            const auto& a = s.atoms[i].x;
            const auto& b = s.atoms[j].x;
            const double dx = image(a.x - b.x, s.box.prd(0)), dy = image(a.y - b.y, s.box.prd(1)),
                         dz = image(a.z - b.z, s.box.prd(2));
            if (dx * dx + dy * dy + dz * dz < reach_sq)
                expected.push_back(pair_key(s.atoms[i].id, s.atoms[j].id));
        }

    // The lists, by atom id (the atoms are sorted by cell now).
    auto& atoms = sim.atoms();
    const md::neighbor_list list = sim.list();
    std::vector<std::uint64_t> seen; // once per listing
    std::size_t plain_wrong = 0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
        const md::atom<double> ai = atoms[i];
        ASSERT_LE(list.plain[i], list.count[i]);
        ASSERT_LE(list.count[i], list.capacity);
        for (std::size_t k = 0; k < list.count[i]; ++k) {
            const std::size_t j = list.neigh[i * list.stride_i + k * list.stride_k];
            const md::atom<double> aj = atoms[j];
            seen.push_back(pair_key(ai.id, aj.id));
            if (k < list.plain[i]) {
                const double d[3] = {ai.x.x - aj.x.x, ai.x.y - aj.x.y, ai.x.z - aj.x.z};
                for (int a = 0; a < 3; ++a) plain_wrong += image(d[a], s.box.prd(a)) != d[a];
            }
        }
    }
    EXPECT_EQ(plain_wrong, 0u) << "neighbors before plain[i] that need a periodic image";
    const std::size_t times = Half ? 1 : 2;
    std::sort(expected.begin(), expected.end()); // ids are unique: no pair twice
    std::sort(seen.begin(), seen.end());
    std::size_t missing = 0, wrong_count = 0, extra = 0;
    auto it = seen.begin();
    for (const auto& p : expected) {
        for (; it != seen.end() && *it < p; ++it) ++extra;
        std::size_t n = 0;
        for (; it != seen.end() && *it == p; ++it) ++n;
        if (n == 0)
            ++missing;
        else if (n != times)
            ++wrong_count;
    }
    extra += static_cast<std::size_t>(seen.end() - it);
    EXPECT_EQ(missing, 0u) << "pairs within reach missing from the list";
    EXPECT_EQ(wrong_count, 0u) << "pairs not listed exactly " << times << " time(s)";
    EXPECT_EQ(extra, 0u) << "pairs in the list that are not within reach";
    EXPECT_GT(expected.size(), 100u) << "the case should have pairs to find";
}

// Wide for the half list (cells half the reach: >= 5 per axis) and the full list (cells one
// reach wide, as on the GPU: >= 3); an off-origin,
// non-cubic box; a box with short axes (fallback paths); the reach nearly half the box on z.
const box_case cases[] = {
    {{0, 0, 0}, {12, 12, 12}, 2.5, 0.3, 1400},
    {{-3.5, 1.25, 7}, {9.5, 15.25, 18}, 2.5, 0.3, 1600},
    {{0, 0, 0}, {9, 12, 8.8}, 4.0, 0.3, 700},
    {{0, 0, 0}, {13, 11, 5.7}, 2.5, 0.3, 600},
};

template <bool Half, class Layout>
void check_all() {
    unsigned seed = 1;
    for (const auto& c : cases) {
        SCOPED_TRACE("case " + std::to_string(seed));
        check_lists<Half, Layout>(c, seed++);
    }
}

TEST(md_neighbor_lists, half_aos) { check_all<true, layout::policy::aos>(); }
TEST(md_neighbor_lists, half_soa) { check_all<true, layout::policy::soa>(); }
TEST(md_neighbor_lists, half_aosoa32) { check_all<true, layout::policy::aosoa<32>>(); }
TEST(md_neighbor_lists, full_aos) { check_all<false, layout::policy::aos>(); }
TEST(md_neighbor_lists, full_soa) { check_all<false, layout::policy::soa>(); }
TEST(md_neighbor_lists, full_aosoa32) { check_all<false, layout::policy::aosoa<32>>(); }

} // namespace
