// layout::mpi::device_halo_plan under mpirun -np 2 (a GPU per rank where there are two, else
// both on one): ghosts built from a device ghost list (repeats, self exports included) and
// gathered on a non-blocking stream, all fields and a subset, checked bit for bit against
// layout::mpi::halo_plan on host containers (which halo_test checks against the single-rank
// reference); staged and IPC always, NCCL where it is built (LAYOUT_TEST_NCCL) and there is a
// GPU per rank; gathers back to back with no host wait between them, each round's ghosts kept
// aside and checked afterwards; an element of 48 leaves (more columns than one launch of
// ipc_transport's copy kernel takes, a 1-byte leaf among them) in SoA, AoSoA and AoS;
// scatter_add against the host plan's, bit for bit; neighbours named (counts point to point).
// Bad input: every rank throws, nothing changes.
#include "gpu_test.hpp"
#include "mpi_test_support.hpp"

#include <layout/layout.hpp>
#include <layout/mpi/device_halo.hpp>
#include <layout/mpi/ipc.hpp>
#include <layout/mpi/mpi.hpp>
#if defined(LAYOUT_TEST_NCCL)
#  include "nccl_world.hpp"
#endif

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {

using mpi_test::Particle;
namespace lp = layout::policy;

template <class Layout>
using host = layout::vector<Particle, Layout>;
template <class Layout>
using device = layout::vector<Particle, Layout, layout::cuda::device_memory>;
template <class I>
using device_array = layout::vector<I, lp::aos, layout::cuda::device_memory>;

class device_halo : public layout_test::gpu_test {
protected:
    void SetUp() override {
        gpu_test::SetUp();
        if (IsSkipped()) return;
        ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    }
    void TearDown() override {
        if (stream) cudaStreamDestroy(stream);
        gpu_test::TearDown();
    }
    /// f(transport, name) for every transport this build and machine have (the same on every
    /// rank).
    template <class F>
    static void for_each_transport(F f) {
        f(layout::mpi::staged_transport(MPI_COMM_WORLD), "staged");
        f(layout::mpi::ipc_transport(MPI_COMM_WORLD), "ipc"); // ranks of one node
#if defined(LAYOUT_TEST_NCCL)
        int devices = 0;
        cudaGetDeviceCount(&devices);
        if (devices >= mpi_test::world_size())
            f(layout::mpi::nccl_transport(mpi_test::nccl_world()), "nccl");
#endif
    }
    cudaStream_t stream = nullptr;
};

host<lp::aos> elements(std::uint64_t seed, int rank, std::size_t n) {
    host<lp::aos> h;
    for (std::size_t i = 0; i < n; ++i) h.push_back(mpi_test::make(seed, rank, i));
    return h;
}

/// A ghost list: repeats and exports to this rank itself included.
struct ghost_list {
    std::vector<std::uint32_t> index;
    std::vector<int> rank;
};
ghost_list exports(int rank, int size, std::size_t owned, std::size_t n, std::uint64_t seed) {
    ghost_list g;
    for (std::size_t k = 0; k < n; ++k) {
        const auto h = mpi_test::hash(seed, static_cast<std::uint64_t>(rank), k);
        g.index.push_back(static_cast<std::uint32_t>(h % owned));
        g.rank.push_back(static_cast<int>((h >> 20) % static_cast<std::uint64_t>(size)));
    }
    return g;
}

template <class I>
device_array<I> to_device(const std::vector<I>& v, layout::stream_ref s) {
    return device_array<I>(layout::aos_vector<I>(v.begin(), v.end()), s);
}

template <class Layout, class Transport>
void matches_the_host_plan(Transport transport, cudaStream_t stream, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::size_t owned = 2000 + 300 * static_cast<std::size_t>(rank);
    const auto start = elements(61, rank, owned);
    const auto g = exports(rank, size, owned, 1500 + 100 * static_cast<std::size_t>(rank), 62);

    layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank);
    host<lp::aos> model = start;
    host_plan.gather(model);

    device<Layout> c(start, s);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                std::span<const int>(ranks.data(), ranks.size()));
    EXPECT_EQ(halo.ghost_count(), host_plan.ghost_count()) << what;
    halo.gather(c);
    {
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), what);
    }
    // New positions on the owners; only they travel, twice (the second gather reuses all).
    for (int round = 0; round < 2; ++round) {
        host<lp::aos> moved = start;
        for (std::size_t i = 0; i < owned; ++i) {
            Particle p = moved[i];
            p.pos = {static_cast<float>(i) + 0.5f * static_cast<float>(round), float(rank), 1.0f};
            moved[i] = p;
        }
        for (std::size_t i = 0; i < owned; ++i) model[i] = moved[i];
        host_plan.gather<&Particle::pos>(model);
        const host<Layout> owned_part = moved;
        const typename device<Layout>::view_type owned_view(c.view().storage(), owned);
        layout::cuda::copy(owned_part.view(), owned_view, s);
        halo.template gather<&Particle::pos>(c);
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), what);
    }
}

TEST_F(device_halo, matches_the_host_plan_in_every_layout) {
    for_each_transport([&](auto transport, const char* name) {
        matches_the_host_plan<lp::aos>(std::move(transport), stream,
                                       (std::string(name) + " aos").c_str());
    });
    for_each_transport([&](auto transport, const char* name) {
        matches_the_host_plan<lp::soa>(std::move(transport), stream,
                                       (std::string(name) + " soa").c_str());
    });
    for_each_transport([&](auto transport, const char* name) {
        matches_the_host_plan<lp::aosoa<32>>(std::move(transport), stream,
                                             (std::string(name) + " aosoa<32>").c_str());
    });
}

/// 48 leaves, a 1-byte one among them: through IPC a gather is a part per leaf and peer, more
/// than one launch of the transport's copy kernel takes (36), and the columns after the 1-byte
/// one land where they must still be read whole.
struct wide {
    std::array<float, 45> a;
    std::uint8_t small;
    std::array<double, 2> d;
};
wide make_wide(std::uint64_t seed, int rank, std::size_t i) {
    wide w{};
    for (std::size_t k = 0; k < w.a.size(); ++k)
        w.a[k] = static_cast<float>(mpi_test::hash(seed, static_cast<std::uint64_t>(rank), i, k) %
                                    100000) *
                 0.25f;
    w.small =
        static_cast<std::uint8_t>(mpi_test::hash(seed, 7, static_cast<std::uint64_t>(rank), i));
    w.d = {static_cast<double>(i) + 0.5 * rank, -static_cast<double>(i)};
    return w;
}
void expect_wide(const layout::vector<wide, lp::aos>& got,
                 const layout::vector<wide, lp::aos>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const wide g = got[i], w = want[i];
        if ((g.a != w.a || g.small != w.small || g.d != w.d) && wrong++ < 3)
            ADD_FAILURE() << what << ": element " << i << " differs (a[0] " << g.a[0] << " against "
                          << w.a[0] << ", small " << int(g.small) << " against " << int(w.small)
                          << ", d[0] " << g.d[0] << " against " << w.d[0] << ")";
    }
    EXPECT_EQ(wrong, 0u) << what;
}

template <class Layout, class Transport>
void wide_elements_match_the_host_plan(Transport transport, cudaStream_t stream,
                                       const std::string& what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::size_t owned = 1500 + 200 * static_cast<std::size_t>(rank);
    const auto g = exports(rank, size, owned, 1100, 71);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    layout::vector<wide, lp::aos> start;
    for (std::size_t i = 0; i < owned; ++i) start.push_back(make_wide(72, rank, i));
    layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank);
    layout::vector<wide, lp::aos> model = start;
    host_plan.gather(model);
    using device_wide = layout::vector<wide, Layout, layout::cuda::device_memory>;
    device_wide c(start, s);
    layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                std::span<const int>(ranks.data(), ranks.size()));
    halo.gather(c);
    expect_wide(layout::vector<wide, lp::aos>(c), model, what.c_str());
    // New values of the 45 floats on the owners; only they travel.
    layout::vector<wide, lp::aos> moved = start;
    for (std::size_t i = 0; i < owned; ++i) {
        wide w = moved[i];
        for (float& x : w.a) x = -x - 1.0f;
        moved[i] = w;
        model[i] = w;
    }
    host_plan.gather<&wide::a>(model);
    const layout::vector<wide, Layout> owned_part = moved;
    layout::cuda::copy(owned_part.view(),
                       typename device_wide::view_type(c.view().storage(), owned), s);
    halo.template gather<&wide::a>(c);
    expect_wide(layout::vector<wide, lp::aos>(c), model, (what + ", the floats again").c_str());
}

// Through IPC: SoA, a part per leaf and peer; AoSoA, the same in runs of 32 lanes (a block of
// 6,304 bytes); AoS, whole elements first, then the 45 floats as one column of 180-byte values
// (a run of leaves next to each other in the element) 200 bytes apart.
TEST_F(device_halo, elements_of_many_leaves_match_the_host_plan) {
    for_each_transport([&](auto transport, const char* name) {
        wide_elements_match_the_host_plan<lp::soa>(std::move(transport), stream,
                                                   std::string(name) + " soa");
    });
    for_each_transport([&](auto transport, const char* name) {
        wide_elements_match_the_host_plan<lp::aosoa<32>>(std::move(transport), stream,
                                                         std::string(name) + " aosoa<32>");
    });
    for_each_transport([&](auto transport, const char* name) {
        wide_elements_match_the_host_plan<lp::aos>(std::move(transport), stream,
                                                   std::string(name) + " aos");
    });
}

TEST_F(device_halo, repeated_gathers_allocate_nothing) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::size_t owned = 3000;
    const auto g = exports(rank, size, owned, 900, 63);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    for_each_transport([&](auto transport, const char* name) {
        device<lp::soa> c(elements(64, rank, owned), s);
        layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
        halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                    std::span<const int>(ranks.data(), ranks.size()));
        halo.gather(c);
        const std::size_t warm = halo.allocations();
        for (int step = 0; step < 5; ++step)
            halo.template gather<&Particle::pos, &Particle::mass>(c);
        EXPECT_EQ(halo.allocations(), warm) << name;
    });
}

/// Gathers back to back with no host wait between them: each round queues new owned elements
/// (a device-to-device copy), a gather of every field and a copy of the ghosts aside, and only
/// then does the host look: every round's ghosts against the host plan's. A transport that let
/// a message overwrite one its peer had not yet copied out (ipc_transport's landing blocks, in
/// turn) would show here as a round holding another round's ghosts.
template <class Layout, class Transport>
void back_to_back_gathers(Transport transport, cudaStream_t stream, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    constexpr int rounds = 8;
    const std::size_t owned = 40000 + 1000 * static_cast<std::size_t>(rank);
    const auto g = exports(rank, size, owned, 30000, 67);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank);
    const std::size_t ghosts = host_plan.ghost_count();

    std::vector<device<Layout>> owned_by_round, ghosts_by_round;
    std::vector<std::vector<Particle>> expected;
    owned_by_round.reserve(rounds);
    ghosts_by_round.reserve(rounds);
    for (int k = 0; k < rounds; ++k) {
        host<lp::aos> model = elements(68 + static_cast<std::uint64_t>(k), rank, owned);
        owned_by_round.emplace_back(model, s);
        host_plan.gather(model);
        expected.emplace_back(model.begin() + static_cast<std::ptrdiff_t>(owned), model.end());
        ghosts_by_round.emplace_back(ghosts, Particle{}, s);
    }
    device<Layout> c(elements(67, rank, owned), s);
    layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                std::span<const int>(ranks.data(), ranks.size()));
    ASSERT_EQ(halo.ghost_count(), ghosts) << what;
    halo.gather(c);
    using view = typename device<Layout>::view_type;
    for (int k = 0; k < rounds; ++k) {
        layout::cuda::copy(owned_by_round[k].cview(), view(c.view().storage(), owned), s);
        halo.gather(c);
        layout::cuda::copy(layout::view<const Particle, Layout, layout::cuda::device_memory>(
                               c.view().storage().advanced(owned), ghosts),
                           ghosts_by_round[k].view(), s);
    }
    for (int k = 0; k < rounds; ++k) {
        const host<lp::aos> got = ghosts_by_round[k];
        mpi_test::expect_elements(got, expected[k],
                                  (std::string(what) + ", round " + std::to_string(k)).c_str());
    }
}

TEST_F(device_halo, gathers_back_to_back_each_see_their_own_elements) {
    for_each_transport([&](auto transport, const char* name) {
        back_to_back_gathers<lp::aos>(std::move(transport), stream,
                                      (std::string(name) + " aos").c_str());
    });
    for_each_transport([&](auto transport, const char* name) {
        back_to_back_gathers<lp::soa>(std::move(transport), stream,
                                      (std::string(name) + " soa").c_str());
    });
}

/// Expects every rank to have thrown layout::mpi::error naming rank `wrong` (and `needle` there).
void every_rank_threw(const std::function<void()>& f, int wrong, const std::string& needle) {
    const int rank = mpi_test::world_rank();
    try {
        f();
        ADD_FAILURE() << "rank " << rank << " did not throw";
    } catch (const layout::mpi::error& e) {
        EXPECT_EQ(e.failing_rank(), wrong) << e.what();
        if (rank == wrong)
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST_F(device_halo, bad_input_makes_every_rank_throw_and_changes_nothing) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const int wrong = size - 1;
    const layout::stream_ref s(stream);
    const std::size_t owned = 1200;
    const auto start = elements(65, rank, owned);
    const auto g = exports(rank, size, owned, 700, 66);
    for_each_transport([&](auto transport, const char* name) {
        layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
        { // an export past the owned elements, on one rank
            auto bad = g;
            if (rank == wrong) bad.index[333] = static_cast<std::uint32_t>(owned);
            const auto index = to_device(bad.index, s);
            const auto ranks = to_device(bad.rank, s);
            every_rank_threw(
                [&] {
                    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                                std::span<const int>(ranks.data(), ranks.size()));
                },
                wrong, "export 333 names an element past");
        }
        { // a rank out of range
            auto bad = g;
            if (rank == wrong) bad.rank[44] = size;
            const auto index = to_device(bad.index, s);
            const auto ranks = to_device(bad.rank, s);
            every_rank_threw(
                [&] {
                    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                                std::span<const int>(ranks.data(), ranks.size()));
                },
                wrong, "export 44 names rank " + std::to_string(size));
        }
        const auto index = to_device(g.index, s);
        const auto ranks = to_device(g.rank, s);
        halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                    std::span<const int>(ranks.data(), ranks.size()));
        { // a container resized between update and gather, on one rank
            device<lp::aos> c(start, s);
            if (rank == wrong) c.resize(owned - 1);
            const host<lp::aos> before = c;
            every_rank_threw([&] { halo.gather(c); }, wrong, "resized since update");
            const host<lp::aos> after = c;
            mpi_test::expect_elements(after, std::vector<Particle>(before.begin(), before.end()),
                                      name);
        }
        { // and the plan still works
            layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank);
            host<lp::aos> model = start;
            host_plan.gather(model);
            device<lp::aos> c(start, s);
            halo.gather(c);
            const host<lp::aos> got = c;
            mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), name);
        }
    });
}

/// scatter_add: each ghost holds a contribution (new mass and position; finite, as the owners'
/// values); the device plan adds them on their owners as the host plan does, bit for bit (the
/// same order), twice (the second
/// reuses the grouping by owner), with fewer fields the second time. A container of the wrong
/// size on one rank: every rank throws and nothing changes.
template <class Layout, class Transport>
void scatter_add_matches_the_host_plan(Transport transport, cudaStream_t stream,
                                       const std::string& what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const int wrong = size - 1;
    const layout::stream_ref s(stream);
    const std::size_t owned = 1800 + 250 * static_cast<std::size_t>(rank);
    const auto g = exports(rank, size, owned, 1300 + 90 * static_cast<std::size_t>(rank), 82);
    layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank);
    host<lp::aos> model = elements(81, rank, owned);
    host_plan.gather(model);
    // Finite values to add (make()'s leaves take any bits, NaNs among them, whose payloads a GPU
    // and a CPU do not carry alike through a sum): the owners' and the ghosts' contributions.
    for (std::size_t i = 0; i < model.size(); ++i) {
        Particle p = model[i];
        const auto h = mpi_test::hash(83, static_cast<std::uint64_t>(rank), i);
        p.mass = static_cast<double>(h % 1000003) * 1e-3 + 0.1;
        p.pos = {static_cast<float>(h % 977) * 0.37f, -static_cast<float>(h % 313) * 0.11f,
                 static_cast<float>(i) * 1e-3f};
        model[i] = p;
    }
    device<Layout> c(model, s);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), s);
    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                std::span<const int>(ranks.data(), ranks.size()));
    ASSERT_EQ(halo.ghost_count(), host_plan.ghost_count()) << what;
    host_plan.scatter_add<&Particle::mass, &Particle::pos>(model);
    halo.template scatter_add<&Particle::mass, &Particle::pos>(c);
    {
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  what.c_str());
    }
    host_plan.scatter_add<&Particle::mass>(model);
    halo.template scatter_add<&Particle::mass>(c);
    {
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  (what + ", again").c_str());
    }
    {
        device<Layout> short_one(model, s);
        if (rank == wrong) short_one.resize(owned);
        const host<lp::aos> before = short_one;
        every_rank_threw([&] { halo.template scatter_add<&Particle::mass>(short_one); }, wrong,
                         "gather first");
        const host<lp::aos> after = short_one;
        mpi_test::expect_elements(after, std::vector<Particle>(before.begin(), before.end()),
                                  (what + ", after a wrong size").c_str());
    }
}

TEST_F(device_halo, scatter_add_matches_the_host_plan_in_every_layout) {
    for_each_transport([&](auto transport, const char* name) {
        scatter_add_matches_the_host_plan<lp::aos>(std::move(transport), stream,
                                                   std::string(name) + " aos");
    });
    for_each_transport([&](auto transport, const char* name) {
        scatter_add_matches_the_host_plan<lp::soa>(std::move(transport), stream,
                                                   std::string(name) + " soa");
    });
    for_each_transport([&](auto transport, const char* name) {
        scatter_add_matches_the_host_plan<lp::aosoa<32>>(std::move(transport), stream,
                                                         std::string(name) + " aosoa<32>");
    });
}

/// Neighbours named at construction (a ring: the ranks either side): exports to them and to
/// this rank only, counts point to point; gathers and a scatter_add as the host plan built with
/// the same neighbours. An export to a rank that is not a neighbour (4 ranks and more): every
/// rank throws. Lists that are not symmetric (2 ranks and more): construction throws everywhere.
template <class Transport>
void with_neighbours(Transport transport, cudaStream_t stream, const std::string& what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::vector<int> neighbours = {(rank + 1) % size, (rank + size - 1) % size};
    const std::size_t owned = 1600 + 100 * static_cast<std::size_t>(rank);
    auto g = exports(rank, size, owned, 1200, 92);
    for (int& r : g.rank) r = (rank + (r % 3) - 1 + size) % size; // this rank or either side
    layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, g.index, g.rank, neighbours);
    host<lp::aos> model = elements(91, rank, owned);
    host_plan.gather(model);
    const auto index = to_device(g.index, s);
    const auto ranks = to_device(g.rank, s);
    device<lp::soa> c(elements(91, rank, owned), s);
    layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, std::move(transport), neighbours, s);
    halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                std::span<const int>(ranks.data(), ranks.size()));
    ASSERT_EQ(halo.ghost_count(), host_plan.ghost_count()) << what;
    halo.gather(c);
    {
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  what.c_str());
    }
    host_plan.scatter_add<&Particle::id>(model);
    halo.template scatter_add<&Particle::id>(c);
    {
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  (what + ", scatter_add").c_str());
    }
    if (size >= 4) {
        const int wrong = size - 1;
        auto bad = g;
        if (rank == wrong) bad.rank[17] = (rank + 2) % size;
        const auto bad_ranks = to_device(bad.rank, s);
        every_rank_threw(
            [&] {
                halo.update(owned, std::span<const std::uint32_t>(index.data(), index.size()),
                            std::span<const int>(bad_ranks.data(), bad_ranks.size()));
            },
            wrong, "not one of this rank's neighbours");
    }
}

TEST_F(device_halo, with_neighbours_matches_the_host_plan) {
    for_each_transport([&](auto transport, const char* name) {
        with_neighbours(std::move(transport), stream, name);
    });
    if (mpi_test::world_size() < 2) return;
    mpi_test::expect_one_way_neighbours_refused([&](const std::vector<int>& neighbours) {
        layout::mpi::device_halo_plan halo(
            MPI_COMM_WORLD, layout::mpi::staged_transport(MPI_COMM_WORLD), neighbours, stream);
    });
}

} // namespace
