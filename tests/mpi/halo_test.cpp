// layout::mpi::halo_plan under mpirun with 1 to 4 ranks. Every rank computes every rank's owned
// elements and exports, and so the reference: rank m's ghosts are, in order, the elements every
// rank s exports to m (s ascending, then s's export order); a scatter_add adds each ghost's
// contribution to its owner in that order (so sums of non-integers match bit for bit).
#include "mpi_test_support.hpp"

#include <layout/mpi/mpi.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using mpi_test::Particle;
using mpi_test::Vec3;
namespace lp = layout::policy;

struct exports {
    std::vector<std::size_t> index;
    std::vector<int> rank;
};

/// The world: each rank's owned elements and exports (random elements to random ranks, self and
/// repeats included; rank 1 exports nothing where it exists).
struct world {
    std::vector<std::vector<Particle>> owned;
    std::vector<exports> out;

    world(std::uint64_t seed, int size)
        : owned(static_cast<std::size_t>(size)), out(static_cast<std::size_t>(size)) {
        for (int r = 0; r < size; ++r) {
            const auto n = static_cast<std::size_t>(
                mpi_test::hash(seed, static_cast<std::uint64_t>(r), 0) % 200 + 1);
            for (std::size_t i = 0; i < n; ++i)
                owned[static_cast<std::size_t>(r)].push_back(mpi_test::make(seed, r, i));
            const auto m = r == 1
                               ? 0
                               : static_cast<std::size_t>(
                                     mpi_test::hash(seed, static_cast<std::uint64_t>(r), 1) % 150);
            for (std::size_t k = 0; k < m; ++k) {
                const auto h = mpi_test::hash(seed + 1, static_cast<std::uint64_t>(r), k);
                out[static_cast<std::size_t>(r)].index.push_back(h % n);
                out[static_cast<std::size_t>(r)].rank.push_back(
                    static_cast<int>((h >> 20) % static_cast<std::uint64_t>(size)));
            }
        }
    }

    /// (owner rank, export k) of each ghost of rank m, in ghost order.
    std::vector<std::pair<int, std::size_t>> ghosts_of(int m) const {
        std::vector<std::pair<int, std::size_t>> g;
        for (std::size_t s = 0; s < out.size(); ++s)
            for (std::size_t k = 0; k < out[s].rank.size(); ++k)
                if (out[s].rank[k] == m) g.emplace_back(static_cast<int>(s), k);
        return g;
    }

    /// Rank m's elements after a gather: its owned ones, then its ghosts' values.
    std::vector<Particle> after_gather(int m) const {
        std::vector<Particle> e = owned[static_cast<std::size_t>(m)];
        for (const auto& [s, k] : ghosts_of(m))
            e.push_back(
                owned[static_cast<std::size_t>(s)][out[static_cast<std::size_t>(s)].index[k]]);
        return e;
    }
};

template <class Layout>
class halo : public ::testing::Test {};
using layouts = ::testing::Types<lp::aos, lp::soa, lp::aosoa<8>>;
TYPED_TEST_SUITE(halo, layouts);

TYPED_TEST(halo, gather_appends_the_ghosts_in_owner_then_export_order) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const world w(21, size);
    const auto& own = w.owned[static_cast<std::size_t>(rank)];
    layout::vector<Particle, TypeParam> c(own.begin(), own.end());
    const auto& ex = w.out[static_cast<std::size_t>(rank)];
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, own.size(), ex.index, ex.rank);

    std::vector<Particle> expected = w.after_gather(rank);
    EXPECT_EQ(plan.ghost_count(), expected.size() - own.size());
    plan.gather(c);
    mpi_test::expect_elements(c, expected, "gather");

    // Again, with the owned elements changed: the ghosts follow, the container does not grow.
    const std::size_t allocations = plan.buffer_allocations();
    for (std::size_t i = 0; i < own.size(); ++i) {
        const Particle p = mpi_test::make(99, rank, i);
        c[i] = p;
        expected[i] = p;
    }
    std::size_t g = own.size();
    for (const auto& [s, k] : w.ghosts_of(rank))
        expected[g++] = mpi_test::make(99, s, w.out[static_cast<std::size_t>(s)].index[k]);
    plan.start_gather(c);
    plan.finish_gather(c);
    mpi_test::expect_elements(c, expected, "second gather");
    EXPECT_EQ(plan.buffer_allocations(), allocations);
}

TYPED_TEST(halo, gather_of_chosen_fields_leaves_the_others_alone) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const world w(22, size);
    const auto& own = w.owned[static_cast<std::size_t>(rank)];
    const auto& ex = w.out[static_cast<std::size_t>(rank)];
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, own.size(), ex.index, ex.rank);
    layout::vector<Particle, TypeParam> c(own.begin(), own.end());
    Particle sentinel{};
    sentinel.mass = -1;
    sentinel.tag = 7;
    c.resize(own.size() + plan.ghost_count(), sentinel);
    auto by_keys = c;
    // The core's keys, and MPI's deprecated spelling of the same fields (its warning silenced
    // here alone).
    plan.template gather<&Particle::pos, layout::path<&Particle::cell, 2>>(by_keys);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    plan.template gather<layout::mpi::select<layout::mpi::path<&Particle::pos>,
                                             layout::mpi::path<&Particle::cell, 2>>>(c);
#pragma GCC diagnostic pop
    std::vector<Particle> expected = own;
    for (const auto& [s, k] : w.ghosts_of(rank)) {
        const Particle& o =
            w.owned[static_cast<std::size_t>(s)][w.out[static_cast<std::size_t>(s)].index[k]];
        Particle e = sentinel;
        e.pos = o.pos;
        e.cell[2] = o.cell[2];
        expected.push_back(e);
    }
    mpi_test::expect_elements(c, expected, "gather of pos and cell[2]");
    mpi_test::expect_elements(by_keys, expected, "gather<&P::pos, layout::path<&P::cell, 2>>");
}

TYPED_TEST(halo, scatter_add_sums_ghost_contributions_on_the_owner_in_ghost_order) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const world w(23, size);
    const auto& own = w.owned[static_cast<std::size_t>(rank)];
    const auto& ex = w.out[static_cast<std::size_t>(rank)];
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, own.size(), ex.index, ex.rank);

    // Owned: mass and pos are small numbers; ghost j of rank m contributes values of (m, j)
    // that do not add exactly, so another order of addition gives other bits.
    auto owned_value = [](int r, std::size_t i) {
        Particle p = mpi_test::make(5, r, i);
        p.mass = 1.0 / static_cast<double>(i + 3);
        p.pos = {0.1f * static_cast<float>(i), 1.0f, -2.0f};
        p.id = static_cast<std::int32_t>(i);
        return p;
    };
    auto contribution = [](int m, std::size_t j) {
        Particle p{};
        p.mass = 1.0 / static_cast<double>(7 * j + static_cast<std::size_t>(m) + 11);
        p.pos = {0.3f / static_cast<float>(j + 1), static_cast<float>(m), 0.7f};
        p.id = static_cast<std::int32_t>(j + 1);
        return p;
    };
    layout::vector<Particle, TypeParam> c(own.size() + plan.ghost_count());
    for (std::size_t i = 0; i < own.size(); ++i) c[i] = owned_value(rank, i);
    for (std::size_t j = 0; j < plan.ghost_count(); ++j) c[own.size() + j] = contribution(rank, j);
    auto by_keys = c;
    plan.template scatter_add<&Particle::pos, &Particle::mass, &Particle::id>(by_keys);
    // MPI's deprecated spelling of the same fields (its warning silenced here alone).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    plan.template scatter_add<layout::mpi::fields<&Particle::pos, &Particle::mass, &Particle::id>>(
        c);
#pragma GCC diagnostic pop

    // Reference: for each holder m ascending, its ghosts of this rank's elements in order.
    std::vector<Particle> expected(own.size());
    for (std::size_t i = 0; i < own.size(); ++i) expected[i] = owned_value(rank, i);
    for (int m = 0; m < size; ++m) {
        const auto ghosts = w.ghosts_of(m);
        for (std::size_t j = 0; j < ghosts.size(); ++j) {
            if (ghosts[j].first != rank) continue;
            Particle& o = expected[ex.index[ghosts[j].second]];
            const Particle add = contribution(m, j);
            o.pos.x += add.pos.x;
            o.pos.y += add.pos.y;
            o.pos.z += add.pos.z;
            o.mass += add.mass;
            o.id += add.id;
        }
    }
    for (std::size_t j = 0; j < plan.ghost_count(); ++j) expected.push_back(contribution(rank, j));
    mpi_test::expect_elements(c, expected, "scatter_add");
    mpi_test::expect_elements(by_keys, expected, "scatter_add<&P::pos, &P::mass, &P::id>");
}

TEST(halo, neighbours_only_a_ring_of_ghosts) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    // Each rank exports its first and last 3 elements to its left and right neighbours (itself,
    // as a periodic image, when it is alone).
    const std::size_t owned = 10;
    auto element = [](int r, std::size_t i) { return mpi_test::make(25, r, i); };
    layout::vector<Particle, lp::aosoa<4>> c;
    for (std::size_t i = 0; i < owned; ++i) c.push_back(element(rank, i));
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    std::vector<std::size_t> index;
    std::vector<int> ranks;
    for (std::size_t i = 0; i < 3; ++i) {
        index.push_back(i);
        ranks.push_back(left);
        index.push_back(owned - 1 - i);
        ranks.push_back(right);
    }
    const std::vector<int> neighbours{left, right};
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, owned, index, ranks, neighbours);
    plan.gather(c);
    // Expected ghosts: for each source s ascending, s's exports to this rank in export order.
    std::vector<Particle> expected;
    for (std::size_t i = 0; i < owned; ++i) expected.push_back(element(rank, i));
    for (int s = 0; s < size; ++s) {
        const int s_left = (s + size - 1) % size, s_right = (s + 1) % size;
        for (std::size_t i = 0; i < 3; ++i) {
            if (s_left == rank) expected.push_back(element(s, i));
            if (s_right == rank) expected.push_back(element(s, owned - 1 - i));
        }
    }
    mpi_test::expect_elements(c, expected, "ring");
}

TEST(halo_errors, bad_exports_and_wrong_sizes_are_refused_everywhere) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const world w(24, size);
    const auto& own = w.owned[static_cast<std::size_t>(rank)];
    auto ex = w.out[static_cast<std::size_t>(rank)];
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, own.size(), ex.index, ex.rank);
    auto refused = [&](auto f, int failing, const char* what) {
        try {
            f();
            ADD_FAILURE() << what << ": no exception";
        } catch (const layout::mpi::error& e) {
            EXPECT_EQ(e.failing_rank(), failing) << what << ": " << e.what();
        }
    };
    // An export of an element that is not owned, on the last rank.
    auto bad = ex;
    bad.index.push_back(rank == size - 1 ? own.size() : 0);
    bad.rank.push_back(rank);
    refused([&] { plan.update(own.size(), bad.index, bad.rank); }, size - 1, "index");
    // A rank of -1 (no dropping in a halo), on rank 0.
    bad = ex;
    bad.index.push_back(0);
    bad.rank.push_back(rank == 0 ? -1 : rank);
    refused([&] { plan.update(own.size(), bad.index, bad.rank); }, 0, "rank -1");
    // A container of the wrong size for scatter_add (owned only), on rank 0.
    layout::vector<Particle, lp::soa> c(own.begin(), own.end());
    plan.gather(c);
    if (rank == 0) c.pop_back();
    refused([&] { plan.scatter_add<&Particle::mass>(c); }, 0, "size");
    // The plan still works.
    if (rank == 0) c.push_back(Particle{});
    plan.gather(c);
    mpi_test::expect_elements(c, w.after_gather(rank), "after refusals");
}

// A container resized between start and finish: finish throws on that rank (the received
// elements are discarded), and the plan stays usable for every later exchange on every rank.
TEST(halo_errors, a_resize_between_start_and_finish_leaves_the_plan_usable) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const world w(31, size);
    const auto& own = w.owned[static_cast<std::size_t>(rank)];
    const auto& ex = w.out[static_cast<std::size_t>(rank)];
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, own.size(), ex.index, ex.rank);
    const std::vector<Particle> expected = w.after_gather(rank);
    layout::vector<Particle, lp::aosoa<8>> c(own.begin(), own.end());
    auto resized_on_rank_0 = [&](auto start, auto finish, const char* what) {
        start();
        if (rank == 0) c.push_back(Particle{});
        if (rank == 0) {
            EXPECT_THROW(finish(), layout::mpi::error) << what;
            c.pop_back();
        } else {
            finish();
        }
    };
    resized_on_rank_0([&] { plan.start_gather(c); }, [&] { plan.finish_gather(c); }, "gather");
    plan.gather(c);
    mpi_test::expect_elements(c, expected, "gather after a resized gather");
    resized_on_rank_0([&] { plan.start_scatter_add(c); }, [&] { plan.finish_scatter_add(c); },
                      "scatter_add");
    // The other ranks added rank 0's ghosts to their owned elements; the plan still runs.
    EXPECT_NO_THROW(plan.scatter_add<&Particle::mass>(c));
    EXPECT_NO_THROW(plan.update(own.size(), ex.index, ex.rank));
    layout::vector<Particle, lp::aosoa<8>> fresh(own.begin(), own.end());
    plan.gather(fresh);
    mpi_test::expect_elements(fresh, expected, "gather after a resized scatter_add");
}

} // namespace
