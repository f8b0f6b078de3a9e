// layout::mpi::device_migration_plan under mpirun -np 2 (a GPU per rank where there are two,
// else both on one): migrations planned on the GPU from device destinations (a device array,
// or a field of the element), in place, on a non-blocking stream, checked bit for bit against
// layout::mpi::migration_plan on host containers (which migrate_test checks against the
// single-rank reference); the staged and IPC transports always, NCCL where it is built
// (LAYOUT_TEST_NCCL) and there is a GPU per rank. Bad input: every rank throws, nothing moves.
#include "gpu_test.hpp"
#include "mpi_test_support.hpp"

#include <layout/layout.hpp>
#include <layout/mpi/device_migration.hpp>
#include <layout/mpi/ipc.hpp>
#include <layout/mpi/mpi.hpp>
#if defined(LAYOUT_TEST_NCCL)
#  include "nccl_world.hpp"
#endif

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using mpi_test::Particle;
namespace lp = layout::policy;

template <class Layout>
using host = layout::vector<Particle, Layout>;
template <class Layout>
using device = layout::vector<Particle, Layout, layout::cuda::device_memory>;
using device_ints = layout::vector<int, lp::aos, layout::cuda::device_memory>;

class device_migration : public layout_test::gpu_test {
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
        else if (mpi_test::world_rank() == 0)
            std::printf("NCCL needs one GPU per rank: %d GPU(s) for %d ranks; staged only\n",
                        devices, mpi_test::world_size());
#endif
    }

    cudaStream_t stream = nullptr;
};

host<lp::aos> elements(std::uint64_t seed, int rank, std::size_t n) {
    host<lp::aos> h;
    for (std::size_t i = 0; i < n; ++i) h.push_back(mpi_test::make(seed, rank, i));
    return h;
}

/// Destinations of one step: 4% dropped, the rest to any rank (self included).
std::vector<int> destinations(int rank, int size, std::size_t n, std::uint64_t seed) {
    std::vector<int> d;
    for (std::size_t i = 0; i < n; ++i) {
        const auto h = mpi_test::hash(seed, static_cast<std::uint64_t>(rank), i);
        d.push_back(h % 25 == 0 ? -1
                                : static_cast<int>((h >> 8) % static_cast<std::uint64_t>(size)));
    }
    return d;
}

template <class Layout, class Transport>
void matches_the_host_plan(Transport transport, cudaStream_t stream, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const auto start = elements(51, rank, 3000 + 700 * static_cast<std::size_t>(rank));
    host<lp::aos> model = start;
    device<Layout> c(start, s);
    layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
    for (int step = 0; step < 10; ++step) {
        const auto d =
            destinations(rank, size, model.size(), 60 + static_cast<std::uint64_t>(step));
        layout::mpi::migration_plan host_plan(MPI_COMM_WORLD, d);
        host_plan.migrate(model);
        const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
        plan.migrate(c, dd);
        EXPECT_EQ(plan.destination_size(), model.size()) << what << " step " << step;
        EXPECT_EQ(c.size(), model.size()) << what << " step " << step;
    }
    const host<lp::aos> got = c;
    mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), what);
}

TEST_F(device_migration, matches_the_host_plan_in_every_layout) {
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

// The destination as the element's own field (id here), read on the GPU in each layout.
template <class Layout, class Transport>
void destination_field(Transport transport, cudaStream_t stream, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    auto start = elements(71, rank, 2500);
    const auto d = destinations(rank, size, start.size(), 72);
    for (std::size_t i = 0; i < start.size(); ++i) {
        Particle p = start[i];
        p.id = d[i];
        start[i] = p;
    }
    host<lp::aos> model = start;
    layout::mpi::migration_plan(MPI_COMM_WORLD, d).migrate(model);
    device<Layout> c(start, s);
    layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
    plan.template migrate_by<&Particle::id>(c);
    const host<lp::aos> got = c;
    mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), what);
    // The deprecated spelling, migrate<Key>, forwards to migrate_by<Key> (its warning silenced
    // here alone).
    device<Layout> by_old_spelling(start, s);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    plan.template migrate<&Particle::id>(by_old_spelling);
#pragma GCC diagnostic pop
    const host<lp::aos> got_old = by_old_spelling;
    mpi_test::expect_elements(got_old, std::vector<Particle>(model.begin(), model.end()), what);
}

TEST_F(device_migration, takes_the_destination_from_a_field_of_the_element) {
    for_each_transport([&](auto transport, const char* name) {
        destination_field<lp::soa>(std::move(transport), stream,
                                   (std::string(name) + " soa").c_str());
    });
    for_each_transport([&](auto transport, const char* name) {
        destination_field<lp::aosoa<32>>(std::move(transport), stream,
                                         (std::string(name) + " aosoa<32>").c_str());
    });
}

// The same destinations every step (sizes that fit): nothing allocated after the first two.
TEST_F(device_migration, a_reused_plan_allocates_nothing_once_warm) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::size_t n = 4000;
    // Every rank sends rank r's i-th element to (r + i) % size: each keeps n.
    std::vector<int> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<int>((rank + i) % std::size_t(size));
    const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
    for_each_transport([&](auto transport, const char* name) {
        device<lp::soa> c(elements(81, rank, n), s);
        layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
        std::size_t warm = 0;
        for (int step = 0; step < 6; ++step) {
            if (step == 2) warm = plan.allocations();
            plan.migrate(c, dd);
            ASSERT_EQ(c.size(), n) << name;
        }
        EXPECT_EQ(plan.allocations(), warm) << name;
    });
}

/// Runs f on every rank; expects every rank to throw, rank `wrong` its own `Own` exception
/// naming `needle`, the others layout::mpi::error naming rank `wrong`.
template <class Own, class F>
void every_rank_throws(F f, int wrong, const std::string& needle) {
    const int rank = mpi_test::world_rank();
    bool threw = false;
    try {
        f();
    } catch (const std::exception& e) {
        threw = true;
        const auto* agreed = dynamic_cast<const layout::mpi::error*>(&e);
        if (rank == wrong) {
            EXPECT_NE(dynamic_cast<const Own*>(&e), nullptr) << e.what();
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        } else {
            ASSERT_NE(agreed, nullptr) << e.what();
            EXPECT_EQ(agreed->failing_rank(), wrong) << e.what();
        }
    }
    EXPECT_TRUE(threw) << "rank " << rank << " did not throw";
}

TEST_F(device_migration, bad_input_makes_every_rank_throw_and_moves_nothing) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const auto start = elements(91, rank, 1500);
    auto d = destinations(rank, size, start.size(), 92);
    const int wrong = size - 1;
    const auto unchanged = [&](const device<lp::soa>& c, const char* what) {
        const host<lp::aos> back = c;
        mpi_test::expect_elements(back, std::vector<Particle>(start.begin(), start.end()), what);
    };
    for_each_transport([&](auto transport, const char* name) {
        device<lp::soa> c(start, s);
        layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
        { // a destination out of range on one rank
            auto bad = d;
            if (rank == wrong) bad[777] = size + 3;
            const device_ints dd(layout::aos_vector<int>(bad.begin(), bad.end()), s);
            every_rank_throws<layout::mpi::error>([&] { plan.migrate(c, dd); }, wrong,
                                                  "destination of element 777 is " +
                                                      std::to_string(size + 3));
            unchanged(c, name);
        }
        { // fewer destinations than elements on one rank
            const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
            const std::span<const int> shorter(dd.data(), rank == wrong ? d.size() - 1 : d.size());
            every_rank_throws<layout::mpi::error>([&] { plan.migrate(c, shorter); }, wrong,
                                                  std::to_string(d.size() - 1) + " destinations");
            unchanged(c, name);
        }
        { // a container on another stream than the plan's: that rank's invalid_argument
            device<lp::soa> other(start, layout::stream_ref{});
            const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
            every_rank_throws<std::invalid_argument>(
                [&] {
                    if (rank == wrong)
                        plan.migrate(other, dd);
                    else
                        plan.migrate(c, dd);
                },
                wrong, "another stream");
            unchanged(c, name);
        }
        { // and after all that, the plan still works
            const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
            host<lp::aos> model = start;
            layout::mpi::migration_plan(MPI_COMM_WORLD, d).migrate(model);
            plan.migrate(c, dd);
            const host<lp::aos> got = c;
            mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), name);
        }
    });
}

TEST_F(device_migration, ranks_running_different_plans_all_throw) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    if (size < 2) GTEST_SKIP() << "needs two ranks";
    const layout::stream_ref s(stream);
    const auto start = elements(95, rank, 1000);
    const auto d = destinations(rank, size, start.size(), 96);
    const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
    device<lp::aos> c(start, s);
    layout::mpi::device_migration_plan a(MPI_COMM_WORLD,
                                         layout::mpi::staged_transport(MPI_COMM_WORLD), s);
    layout::mpi::device_migration_plan b(MPI_COMM_WORLD,
                                         layout::mpi::staged_transport(MPI_COMM_WORLD), s);
    try {
        (rank == 0 ? a : b).migrate(c, dd);
        ADD_FAILURE() << "rank " << rank << " did not throw";
    } catch (const layout::mpi::error& e) {
        EXPECT_NE(std::string(e.what()).find("mismatched plans"), std::string::npos) << e.what();
    }
    const host<lp::aos> back = c;
    mpi_test::expect_elements(back, std::vector<Particle>(start.begin(), start.end()),
                              "after mismatched plans");
}

// One plan through migrations that grow from a few thousand elements to 150,000 (megabytes a
// peer): the IPC transport's landing blocks grow, their new handles travel, and every
// migration still matches the host plan's, in place (AoS) and packed (SoA).
template <class Layout, class Transport>
void grows_with_the_messages(Transport transport, cudaStream_t stream, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
    std::uint64_t seed = 300;
    for (std::size_t n : {2000, 60000, 150000, 40000, 150000}) {
        host<lp::aos> model = elements(++seed, rank, n);
        device<Layout> c(model, s);
        const auto d = destinations(rank, size, n, ++seed);
        layout::mpi::migration_plan(MPI_COMM_WORLD, d).migrate(model);
        const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
        plan.migrate(c, dd);
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), what);
    }
}

TEST_F(device_migration, messages_that_outgrow_the_transport_blocks) {
    for_each_transport([&](auto transport, const char* name) {
        grows_with_the_messages<lp::aos>(std::move(transport), stream, name);
    });
    for_each_transport([&](auto transport, const char* name) {
        grows_with_the_messages<lp::soa>(std::move(transport), stream, name);
    });
}

// Containers of different layouts on different ranks: through the staged transport (messages
// always arrive packed) the migration is the host plan's; through a transport that receives in
// place (NCCL, IPC), where AoS receives whole elements into its block and SoA packed columns
// (NCCL) or columns into its columns (IPC), every rank throws and nothing moves.
TEST_F(device_migration, ranks_with_different_layouts) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    if (size < 2) GTEST_SKIP() << "needs two ranks";
    const layout::stream_ref s(stream);
    const auto start = elements(97, rank, 1200);
    const auto d = destinations(rank, size, start.size(), 98);
    const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
    host<lp::aos> model = start;
    layout::mpi::migration_plan(MPI_COMM_WORLD, d).migrate(model);
    for_each_transport([&](auto transport, const char* name) {
        constexpr bool in_place =
            layout::mpi::detail::receives_in_place_v<std::decay_t<decltype(transport)>>;
        device<lp::soa> soa(start, s);
        device<lp::aos> aos(start, s);
        layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
        auto run = [&] {
            if (rank == 0)
                plan.migrate(soa, dd);
            else
                plan.migrate(aos, dd);
        };
        const host<lp::aos> before = rank == 0 ? host<lp::aos>(soa) : host<lp::aos>(aos);
        if (!in_place) {
            run();
            const host<lp::aos> got = rank == 0 ? host<lp::aos>(soa) : host<lp::aos>(aos);
            mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()), name);
            return;
        }
        try {
            run();
            ADD_FAILURE() << "rank " << rank << " did not throw";
        } catch (const layout::mpi::error& e) {
            EXPECT_NE(std::string(e.what()).find("mismatched fields"), std::string::npos)
                << e.what();
        }
        const host<lp::aos> after = rank == 0 ? host<lp::aos>(soa) : host<lp::aos>(aos);
        mpi_test::expect_elements(after, std::vector<Particle>(before.begin(), before.end()),
                                  (std::string("after different layouts through ") + name).c_str());
    });
}

// A plan with neighbours (a ring: each rank and either side): over migrations whose sizes grow
// and shrink, the same elements as the host plan's (counts point to point, room agreed); on 4
// ranks or more, a destination two ranks away makes every rank throw and moves nothing; on 2 or
// more, lists that are not symmetric make every rank throw at construction.
template <class Layout, class Transport>
void with_neighbours(Transport transport, cudaStream_t stream, const std::string& what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const layout::stream_ref s(stream);
    const std::vector<int> neighbours = {(rank + 1) % size, (rank + size - 1) % size};
    layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), neighbours, s);
    host<lp::aos> model = elements(121, rank, 3000);
    device<Layout> c(model, s);
    std::uint64_t seed = 122;
    for (std::size_t grow : {0, 40000, 0, 90000, 0}) {
        // Ranks add elements between migrations, so the messages outgrow the transport's blocks.
        const auto more = elements(++seed, rank, grow);
        for (const Particle& p : more) model.push_back(p);
        c = device<Layout>(model, s);
        auto d = destinations(rank, size, model.size(), ++seed);
        for (int& r : d)
            if (r >= 0) r = (rank + r % 3 - 1 + size) % size; // this rank or either side
        layout::mpi::migration_plan(MPI_COMM_WORLD, d).migrate(model);
        const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
        plan.migrate(c, dd);
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  (what + ", grown by " + std::to_string(grow)).c_str());
    }
    if (size >= 4) {
        const int wrong = size - 1;
        auto d = destinations(rank, size, model.size(), 140);
        for (int& r : d)
            if (r >= 0) r = (rank + r % 3 - 1 + size) % size;
        if (rank == wrong) d[17] = (rank + 2) % size;
        const device_ints dd(layout::aos_vector<int>(d.begin(), d.end()), s);
        every_rank_throws<layout::mpi::error>([&] { plan.migrate(c, dd); }, wrong,
                                              "not one of this rank's neighbours");
        const host<lp::aos> after = c;
        mpi_test::expect_elements(after, std::vector<Particle>(model.begin(), model.end()),
                                  (what + ", after a destination past the neighbours").c_str());
    }
}

TEST_F(device_migration, with_neighbours_matches_the_host_plan) {
    for_each_transport([&](auto transport, const char* name) {
        with_neighbours<lp::soa>(std::move(transport), stream, std::string(name) + " soa");
    });
    for_each_transport([&](auto transport, const char* name) {
        with_neighbours<lp::aos>(std::move(transport), stream, std::string(name) + " aos");
    });
    if (mpi_test::world_size() < 2) return;
    mpi_test::expect_one_way_neighbours_refused([&](const std::vector<int>& neighbours) {
        layout::mpi::device_migration_plan plan(
            MPI_COMM_WORLD, layout::mpi::staged_transport(MPI_COMM_WORLD), neighbours, stream);
    });
}

} // namespace
