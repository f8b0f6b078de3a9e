// No rank left hanging (#15): every allocation of a plan's collective call fails in turn on one
// rank (a replaced global operator new, tests/common/failing_new.hpp). Every time, that rank
// must throw its own std::bad_alloc and every other rank a layout::mpi::error naming it, and the
// containers must be as they were: the same call repeated afterwards gives what the call gives
// where nothing fails. Where a rank could throw after the others had passed the agreement, they
// waited for its messages forever: CMake gives this test a short TIMEOUT.
#include "common/failing_new.hpp"
#include "mpi_test_support.hpp"

#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <new>
#include <vector>

namespace {

using mpi_test::Particle;
using mpi_test::world_rank;
using mpi_test::world_size;

template <class C>
std::vector<Particle> elements(const C& c) {
    std::vector<Particle> out;
    for (std::size_t i = 0; i < c.size(); ++i) out.push_back(c[i]);
    return out;
}

/// Runs call(c) with the k-th allocation failing on the last rank, for k = 1, 2, ... until the
/// call makes fewer than k allocations there. `fresh` makes the container and whatever the call
/// needs besides (outside the failing window); `call` is collective.
template <class C>
void every_allocation_fails_in_turn(const std::function<C()>& fresh,
                                    const std::function<void(C&)>& call) {
    const int rank = world_rank(), failing = world_size() - 1;
    C expected = fresh();
    call(expected); // where nothing fails
    long k = 1;
    for (; k < 1000; ++k) {
        C c = fresh();
        const std::vector<Particle> before = elements(c);
        bool bad_alloc = false, mpi_error = false;
        int named = -2;
        failing_new::countdown = rank == failing ? k : 0;
        try {
            call(c);
        } catch (const std::bad_alloc&) {
            bad_alloc = true;
        } catch (const layout::mpi::error& e) {
            mpi_error = true;
            named = e.failing_rank();
        }
        failing_new::countdown = 0;
        const bool fired = mpi_test::all_ranks(!(rank == failing && bad_alloc)) == false;
        if (!fired) {
            EXPECT_FALSE(bad_alloc || mpi_error) << "allocation " << k
                                                 << ": an exception with "
                                                    "no failed allocation";
            mpi_test::expect_elements(c, elements(expected), "nothing failed");
            break;
        }
        if (rank == failing) {
            EXPECT_TRUE(bad_alloc) << "allocation " << k << ": the failing rank's own exception";
        } else {
            EXPECT_TRUE(mpi_error) << "allocation " << k << " failed on rank " << failing
                                   << ": this rank must throw layout::mpi::error";
            EXPECT_EQ(named, failing) << "allocation " << k;
        }
        mpi_test::expect_elements(c, before, "after a failure: as before");
        call(c); // and the plan still works
        mpi_test::expect_elements(c, elements(expected), "the call repeated");
    }
    EXPECT_GT(k, 1) << "the call allocated nothing on the failing rank: nothing was tested";
}

/// Elements of this rank; element i goes to rank (i * 7 + rank) % size (self included).
template <class L>
layout::vector<Particle, L> start(std::size_t n) {
    layout::vector<Particle, L> c;
    for (std::size_t i = 0; i < n; ++i) c.push_back(mpi_test::make(3, world_rank(), i));
    return c;
}
std::vector<int> destinations(std::size_t n) {
    std::vector<int> d(n);
    for (std::size_t i = 0; i < n; ++i)
        d[i] = static_cast<int>((i * 7 + static_cast<std::size_t>(world_rank())) %
                                static_cast<std::size_t>(world_size()));
    return d;
}

template <class L>
void migrations() {
    const std::size_t n = 40 + 5 * static_cast<std::size_t>(world_rank());
    const std::vector<int> to = destinations(n);
    using C = layout::vector<Particle, L>;
    // The plan made inside the window: construction and update allocate too.
    every_allocation_fails_in_turn<C>([&] { return start<L>(n); },
                                      [&](C& c) {
                                          layout::mpi::migration_plan plan(MPI_COMM_WORLD, to);
                                          plan.migrate(c);
                                      });
    // A plan made once and reused: its buffers grow inside the window.
    std::vector<layout::mpi::migration_plan> plan;
    every_allocation_fails_in_turn<C>(
        [&] {
            plan.clear();
            plan.emplace_back(MPI_COMM_WORLD, to);
            return start<L>(n);
        },
        [&](C& c) { plan[0].migrate(c); });
    // Into another container, which grows.
    every_allocation_fails_in_turn<C>(
        [&] {
            plan.clear();
            plan.emplace_back(MPI_COMM_WORLD, to);
            return start<L>(n);
        },
        [&](C& c) {
            C out;
            plan[0].migrate(c, out);
            c = out;
        });
}

TEST(AllocationFailure, MigrationAos) { migrations<layout::policy::aos>(); }
TEST(AllocationFailure, MigrationSoa) { migrations<layout::policy::soa>(); }
TEST(AllocationFailure, MigrationAosoa) { migrations<layout::policy::aosoa<8>>(); }

TEST(AllocationFailure, Halo) {
    using C = layout::vector<Particle, layout::policy::soa>;
    const std::size_t n = 30;
    // Every third element to the next rank, every fifth to this rank (a periodic image).
    std::vector<std::size_t> index;
    std::vector<int> rank;
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 3 == 0) index.push_back(i), rank.push_back((world_rank() + 1) % world_size());
        if (i % 5 == 0) index.push_back(i), rank.push_back(world_rank());
    }
    std::vector<layout::mpi::halo_plan> halo;
    auto fresh = [&] {
        halo.clear();
        halo.emplace_back(MPI_COMM_WORLD, n, index, rank);
        return start<layout::policy::soa>(n);
    };
    every_allocation_fails_in_turn<C>(fresh, [&](C& c) { halo[0].gather(c); });
    // The gather makes the buffers 1 byte per element wide: the scatter_add's 4 must grow them.
    every_allocation_fails_in_turn<C>(
        [&] {
            C c = fresh();
            halo[0].gather<&Particle::kind>(c);
            return c;
        },
        [&](C& c) { halo[0].scatter_add<&Particle::id>(c); });
    every_allocation_fails_in_turn<C>(fresh, [&](C& c) {
        layout::mpi::halo_plan h(MPI_COMM_WORLD, n, index, rank);
        h.gather<&Particle::pos>(c);
    });
}

} // namespace
