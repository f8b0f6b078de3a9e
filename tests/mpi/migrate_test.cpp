// layout::mpi::migration_plan under mpirun with 1 to 4 ranks. Every rank computes the whole
// world's elements and destinations (mpi_test::make is a function of rank and index), and so the
// single-rank reference of each migration: rank m must hold, in order, every element whose
// destination is m, ordered by source rank, then source index. Checked bit for bit, for every
// pair of layouts, and across 12 migrations in a row.
#include "mpi_test_support.hpp"

#include <layout/mpi/detail/receive_mode.hpp>
#include <layout/mpi/mpi.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// Counts MPI_Alltoall calls (the PMPI profiling interface: this definition takes the place of
// the library's, which stays reachable as PMPI_Alltoall), to check that a plan with neighbours
// exchanges its counts with them alone.
namespace {
int alltoall_calls = 0;
}
extern "C" int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    ++alltoall_calls;
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

namespace {

using mpi_test::Particle;
using mpi_test::Vec3;
namespace lp = layout::policy;

/// Destination of element i of rank r in some scenario, given the world size.
using destination_fn = std::function<int(int r, std::size_t i, int size)>;

/// The world: every rank's elements, as every rank computes it.
struct world {
    std::vector<std::vector<Particle>> held;

    world(std::uint64_t seed, int size, const std::function<std::size_t(int)>& count) {
        held.resize(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r)
            for (std::size_t i = 0; i < count(r); ++i)
                held[static_cast<std::size_t>(r)].push_back(mpi_test::make(seed, r, i));
    }

    std::vector<int> destinations(int r, const destination_fn& to) const {
        std::vector<int> d;
        for (std::size_t i = 0; i < held[static_cast<std::size_t>(r)].size(); ++i)
            d.push_back(to(r, i, static_cast<int>(held.size())));
        return d;
    }

    /// The single-rank reference: what each rank holds after the migration.
    void migrate(const destination_fn& to) {
        const int size = static_cast<int>(held.size());
        std::vector<std::vector<Particle>> next(held.size());
        for (int s = 0; s < size; ++s)
            for (std::size_t i = 0; i < held[static_cast<std::size_t>(s)].size(); ++i) {
                const int d = to(s, i, size);
                if (d >= 0)
                    next[static_cast<std::size_t>(d)].push_back(
                        held[static_cast<std::size_t>(s)][i]);
            }
        held = std::move(next);
    }
};

template <class Layout>
using particles = layout::vector<Particle, Layout>;

template <class Layout>
particles<Layout> mine(const world& w, int rank) {
    const auto& h = w.held[static_cast<std::size_t>(rank)];
    return particles<Layout>(h.begin(), h.end());
}

// ---- scenarios ----------------------------------------------------------------------------------

std::size_t random_count(int r) {
    return static_cast<std::size_t>(mpi_test::hash(7, static_cast<std::uint64_t>(r), 0) % 300);
}

/// Random ranks, about 5% dropped; rank 1 starts empty (where it exists).
const destination_fn random_destinations = [](int r, std::size_t i, int size) {
    const auto h = mpi_test::hash(11, static_cast<std::uint64_t>(r), i);
    return h % 20 == 0 ? -1 : static_cast<int>((h >> 8) % static_cast<std::uint64_t>(size));
};
std::size_t count_with_empty_rank(int r) { return r == 1 ? 0 : random_count(r); }

const destination_fn all_to_last = [](int, std::size_t, int size) { return size - 1; };
const destination_fn stay = [](int r, std::size_t, int) { return r; };

template <class Pair>
class migrate_pairs : public ::testing::Test {};

template <class From, class To>
struct layout_pair {
    using from = From;
    using to = To;
};
using pairs =
    ::testing::Types<layout_pair<lp::aos, lp::aos>, layout_pair<lp::aos, lp::soa>,
                     layout_pair<lp::aos, lp::aosoa<8>>, layout_pair<lp::soa, lp::aos>,
                     layout_pair<lp::soa, lp::soa>, layout_pair<lp::soa, lp::aosoa<8>>,
                     layout_pair<lp::aosoa<8>, lp::aos>, layout_pair<lp::aosoa<8>, lp::soa>,
                     layout_pair<lp::aosoa<3>, lp::aosoa<8>>>;
TYPED_TEST_SUITE(migrate_pairs, pairs);

template <class From, class To>
void check_scenario(std::uint64_t seed, const std::function<std::size_t(int)>& count,
                    const destination_fn& to, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(seed, size, count);
    auto src = mine<From>(w, rank);
    particles<To> dst;
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, w.destinations(rank, to));
    plan.migrate(src, dst);
    EXPECT_EQ(plan.destination_size(), dst.size()) << what;
    // Bit for bit: operator== would call a NaN leaf different from itself.
    mpi_test::expect_elements(src, w.held[static_cast<std::size_t>(rank)], "the source");
    w.migrate(to);
    mpi_test::expect_elements(dst, w.held[static_cast<std::size_t>(rank)], what);
}

TYPED_TEST(migrate_pairs, random_destinations_with_an_empty_rank) {
    check_scenario<typename TypeParam::from, typename TypeParam::to>(1, count_with_empty_rank,
                                                                     random_destinations, "random");
}
TYPED_TEST(migrate_pairs, all_to_one) {
    check_scenario<typename TypeParam::from, typename TypeParam::to>(2, random_count, all_to_last,
                                                                     "all to one");
}
TYPED_TEST(migrate_pairs, self_sends_only) {
    check_scenario<typename TypeParam::from, typename TypeParam::to>(3, random_count, stay, "stay");
}
TYPED_TEST(migrate_pairs, every_rank_empty) {
    check_scenario<typename TypeParam::from, typename TypeParam::to>(
        4, [](int) { return std::size_t{0}; }, random_destinations, "empty");
}

// ---- repeated migrations, in place, buffers reused ------------------------------------------------

template <class Layout>
class migrate_layouts : public ::testing::Test {};
using layouts = ::testing::Types<lp::aos, lp::soa, lp::aosoa<8>>;
TYPED_TEST_SUITE(migrate_layouts, layouts);

TYPED_TEST(migrate_layouts, twelve_migrations_in_place_match_the_reference) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(5, size, random_count);
    auto c = mine<TypeParam>(w, rank);
    std::vector<int> none;
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, none);
    for (int step = 0; step < 12; ++step) {
        const destination_fn to = [step](int r, std::size_t i, int s) {
            const auto h = mpi_test::hash(100 + static_cast<std::uint64_t>(step),
                                          static_cast<std::uint64_t>(r), i);
            // Mostly stay (as particles do), sometimes drop, else anywhere.
            return h % 50 == 0
                       ? -1
                       : (h % 10 < 7 ? r
                                     : static_cast<int>((h >> 8) % static_cast<std::uint64_t>(s)));
        };
        // Top each rank up so that the world does not drain away through the drops.
        for (std::size_t k = 0; k < 5; ++k) {
            const Particle p = mpi_test::make(1000 + static_cast<std::uint64_t>(step), rank, k);
            c.push_back(p);
        }
        for (int r = 0; r < size; ++r)
            for (std::size_t k = 0; k < 5; ++k)
                w.held[static_cast<std::size_t>(r)].push_back(
                    mpi_test::make(1000 + static_cast<std::uint64_t>(step), r, k));
        plan.update(w.destinations(rank, to));
        plan.migrate(c);
        w.migrate(to);
        mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)],
                                  ("step " + std::to_string(step)).c_str());
    }
}

TYPED_TEST(migrate_layouts, a_reused_plan_allocates_nothing_when_sizes_fit) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(6, size, random_count);
    const auto original = mine<TypeParam>(w, rank);
    const auto d = w.destinations(rank, random_destinations);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
    auto c = original;
    plan.migrate(c);
    const std::size_t allocations = plan.buffer_allocations();
    for (int k = 0; k < 10; ++k) {
        c = original;
        plan.update(d);
        plan.migrate(c);
        // Fewer fields travel: smaller messages, still no allocation.
        auto e = original;
        plan.update(d);
        plan.migrate<&Particle::pos>(original, e);
    }
    EXPECT_EQ(plan.buffer_allocations(), allocations);
    w.migrate(random_destinations);
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "after reuse");
}

// ---- how the device plans' messages arrive (compile time) ----------------------------------------

// Whole AoS elements land in the destination itself only where the transport writes exactly its
// ranges (NCCL, IPC) and every leaf travels; the leaves go from where the source keeps them to
// where the destination does (SoA's columns, AoSoA's runs of lanes, AoS's leaves) where the
// transport also reads and writes elements where they are (IPC); everything else arrives packed
// (a split layout's leaves have no one address rule). The mode is part of the agreed signature,
// so ranks that would receive differently disagree (and all throw).
struct writes_in_place {
    static constexpr bool receives_in_place = true;
};
struct gathers_in_place {
    static constexpr bool receives_in_place = true;
    static constexpr bool gathers = true;
};
struct buffered {};
namespace md = layout::mpi::detail;
template <class Transport, class L, class S = md::every_leaf>
constexpr md::receive_mode mode_of = md::receive_mode_of<Transport, Particle, S, L>();
static_assert(mode_of<writes_in_place, lp::aos> == md::receive_mode::elements);
static_assert(mode_of<buffered, lp::aos> == md::receive_mode::packed);
static_assert(mode_of<writes_in_place, lp::aos, md::keys<&Particle::pos>> ==
              md::receive_mode::packed);
static_assert(mode_of<writes_in_place, lp::soa> == md::receive_mode::packed);
static_assert(mode_of<writes_in_place, lp::aosoa<8>> == md::receive_mode::packed);
static_assert(mode_of<writes_in_place, lp::split<lp::aos, lp::soa, &Particle::pos>> ==
              md::receive_mode::packed);
static_assert(mode_of<gathers_in_place, lp::aos> == md::receive_mode::elements);
static_assert(mode_of<gathers_in_place, lp::soa> == md::receive_mode::columns);
static_assert(mode_of<gathers_in_place, lp::soa, md::keys<&Particle::pos>> ==
              md::receive_mode::columns);
static_assert(mode_of<gathers_in_place, lp::aos, md::keys<&Particle::pos>> ==
              md::receive_mode::element_runs);
static_assert(mode_of<gathers_in_place, lp::aosoa<8>> == md::receive_mode::columns);
static_assert(mode_of<gathers_in_place, lp::aosoa<32>, md::keys<&Particle::pos>> ==
              md::receive_mode::columns);
static_assert(mode_of<gathers_in_place, lp::split<lp::aos, lp::soa, &Particle::pos>> ==
              md::receive_mode::packed);
static_assert(md::with_mode(12345, md::receive_mode::packed) == 12345);
static_assert(md::with_mode(12345, md::receive_mode::columns) !=
              md::with_mode(12345, md::receive_mode::elements));
static_assert(md::with_mode(12345, md::receive_mode::columns) !=
              md::with_mode(12345, md::receive_mode::element_runs));
static_assert(md::with_mode(12345, md::receive_mode::elements) != 12345);
static_assert(md::with_mode(12345, md::receive_mode::elements) > 0);

// What the gathering transport's copy kernel computes for value i of a leaf (ipc_kernels.hpp's
// blocked_column): from + i * element, or with lanes from + (i / lanes) * block + (i % lanes) *
// element. Checked against the view's own addresses for every leaf of every layout it takes.
struct column_address {
    const std::byte* from;
    std::byte* to;
    std::size_t element, lanes, block;
    const std::byte* value(std::size_t i) const {
        return lanes == 0 ? from + i * element : from + i / lanes * block + i % lanes * element;
    }
};
template <class L>
void leaf_columns_address_every_value(std::size_t n) {
    const layout::vector<Particle, L> a(n);
    layout::vector<Particle, L> b(n);
    const auto from = a.view();
    const auto to = b.view();
    std::size_t wrong = 0;
    [&]<std::size_t... Leaf>(std::index_sequence<Leaf...>) {
        const auto leaf = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
            const auto c = md::leaf_column<column_address, K>(from, to);
            EXPECT_EQ(c.element, sizeof(layout::leaf_t<Particle, K>));
            for (std::size_t i = 0; i < n; ++i) {
                const auto* want =
                    reinterpret_cast<const std::byte*>(&from.storage().at(i).template leaf<K>());
                const auto* want_to =
                    reinterpret_cast<const std::byte*>(&to.storage().at(i).template leaf<K>());
                const column_address dst{c.to, nullptr, c.element, c.lanes, c.block};
                wrong += (c.value(i) != want) + (dst.value(i) != want_to);
            }
        };
        (leaf(std::integral_constant<std::size_t, Leaf>{}), ...);
    }(std::make_index_sequence<layout::leaf_count_v<Particle>>{});
    EXPECT_EQ(wrong, 0u);
}
TEST(migrate, leaf_columns_address_every_value_of_every_layout) {
    static_assert(md::addressable_leaves_v<Particle, lp::soa> &&
                  md::addressable_leaves_v<Particle, lp::aos> &&
                  md::addressable_leaves_v<Particle, lp::aosoa<8>> &&
                  !md::addressable_leaves_v<Particle, lp::split<lp::aos, lp::soa, &Particle::pos>>);
    leaf_columns_address_every_value<lp::soa>(77);
    leaf_columns_address_every_value<lp::aos>(77);
    leaf_columns_address_every_value<lp::aosoa<8>>(77);
    leaf_columns_address_every_value<lp::aosoa<32>>(77);
    leaf_columns_address_every_value<lp::aosoa<3>>(77);
}

// The columns of a gathered exchange of some leaves (gathered_columns): under AoS, runs of
// travelling leaves next to each other in the element are one column (pos: x, y, z as one of 12
// bytes; id, kind: 5 bytes, kind then padding); every travelling leaf of every element is inside
// exactly one column's value, at its own address, and the columns weigh the wire's bytes.
template <class L, class S>
void gathered_columns_cover_every_leaf(std::size_t n, std::size_t expected_columns) {
    using W = md::wire_format<Particle, S>;
    const layout::vector<Particle, L> a(n);
    layout::vector<Particle, L> b(n);
    const auto from = a.view();
    const auto to = b.view();
    const auto columns = md::gathered_columns<column_address, W>(from, to);
    EXPECT_EQ(columns.size(), expected_columns);
    std::size_t bytes = 0;
    for (const auto& c : columns) bytes += c.element;
    EXPECT_EQ(bytes, W::bytes_per_element);
    std::size_t wrong = 0;
    [&]<std::size_t... Leaf>(std::index_sequence<Leaf...>) {
        const auto leaf = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
            if (!W::travels[K]) return;
            constexpr std::size_t size = sizeof(layout::leaf_t<Particle, K>);
            for (std::size_t i = 0; i < n; ++i) {
                const auto* want =
                    reinterpret_cast<const std::byte*>(&from.storage().at(i).template leaf<K>());
                const auto* want_to =
                    reinterpret_cast<const std::byte*>(&to.storage().at(i).template leaf<K>());
                std::size_t inside = 0;
                for (const auto& c : columns) {
                    const column_address dst{c.to, nullptr, c.element, c.lanes, c.block};
                    const std::byte* v = c.value(i);
                    if (want >= v && want + size <= v + c.element) {
                        ++inside;
                        wrong += dst.value(i) + (want - v) != want_to;
                    }
                }
                wrong += inside != 1;
            }
        };
        (leaf(std::integral_constant<std::size_t, Leaf>{}), ...);
    }(std::make_index_sequence<layout::leaf_count_v<Particle>>{});
    EXPECT_EQ(wrong, 0u);
}
TEST(migrate, gathered_columns_join_the_leaves_next_to_each_other_in_an_aos_element) {
    using pos = md::keys<&Particle::pos>;
    using id_kind_tag = md::keys<&Particle::id, &Particle::kind, &Particle::tag>;
    using mass_cell = md::keys<&Particle::mass, &Particle::cell>;
    gathered_columns_cover_every_leaf<lp::aos, pos>(45, 1);
    gathered_columns_cover_every_leaf<lp::aos, id_kind_tag>(45, 2);
    gathered_columns_cover_every_leaf<lp::aos, mass_cell>(45, 2);
    gathered_columns_cover_every_leaf<lp::soa, pos>(45, 3);
    gathered_columns_cover_every_leaf<lp::aosoa<8>, pos>(45, 3);
    gathered_columns_cover_every_leaf<lp::aosoa<8>, id_kind_tag>(45, 3);
}

// ---- fields, overlap, neighbours -----------------------------------------------------------------

TEST(migrate, a_subset_of_fields_travels_alone_and_weighs_only_its_bytes) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    // MPI's deprecated spelling, still meaning the same (its warning silenced here alone).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    using pos_and_tag = layout::mpi::select<layout::mpi::path<&Particle::pos, &Vec3::y>,
                                            layout::mpi::path<&Particle::tag>>;
    static_assert(layout::mpi::wire_bytes_per_element_v<Particle> == 39);
    static_assert(layout::mpi::wire_bytes_per_element_v<Particle, pos_and_tag> == 12);
    static_assert(
        layout::mpi::wire_bytes_per_element_v<Particle, layout::mpi::fields<&Particle::cell>> == 6);
#pragma GCC diagnostic pop
    // The core's keys weigh the same.
    static_assert(layout::mpi::wire_bytes_v<Particle> == 39);
    static_assert(layout::mpi::wire_bytes_v<Particle, layout::path<&Particle::pos, &Vec3::y>,
                                            &Particle::tag> == 12);
    static_assert(layout::mpi::wire_bytes_v<Particle, &Particle::cell> == 6);
    world w(8, size, random_count);
    const auto src = mine<lp::soa>(w, rank);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, w.destinations(rank, random_destinations));
    particles<lp::aosoa<8>> dst, by_keys;
    // clang warns again wherever pos_and_tag, the deprecated spelling, is named.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    plan.migrate<pos_and_tag>(src, dst);
#pragma GCC diagnostic pop
    plan.migrate<layout::path<&Particle::pos, &Vec3::y>, &Particle::tag>(src, by_keys);
    w.migrate(random_destinations);
    const auto& expected = w.held[static_cast<std::size_t>(rank)];
    ASSERT_EQ(dst.size(), expected.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < dst.size(); ++i) {
        const Particle p = dst[i];
        Particle e{}; // what does not travel stays value-initialized in a fresh container
        e.pos.y = expected[i].pos.y;
        e.tag = expected[i].tag;
        wrong += !mpi_test::same_bits(p, e);
        wrong += !mpi_test::same_bits(Particle(by_keys[i]), e);
    }
    EXPECT_EQ(by_keys.size(), expected.size());
    EXPECT_EQ(wrong, 0u);
}

TEST(migrate, fields_by_the_core_keys_in_place_and_split_in_start_and_finish) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(9, size, random_count);
    const auto original = mine<lp::aos>(w, rank);
    const auto d = w.destinations(rank, random_destinations);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
    w.migrate(random_destinations);
    const auto& expected = w.held[static_cast<std::size_t>(rank)];
    auto only_pos = [&](std::size_t i) {
        Particle e{};
        e.pos = expected[i].pos;
        return e;
    };
    // In place: the container ends up holding the positions that arrived.
    particles<lp::soa> in_place(original.begin(), original.end());
    plan.migrate<&Particle::pos>(in_place);
    // start/finish with the keys, into another layout.
    particles<lp::aos> dst;
    plan.start<&Particle::pos>(original);
    plan.finish<&Particle::pos>(dst);
    ASSERT_EQ(dst.size(), expected.size());
    ASSERT_EQ(in_place.size(), expected.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < dst.size(); ++i) {
        wrong += !mpi_test::same_bits(Particle(dst[i]), only_pos(i));
        Particle z{}; // the positions alone, compared bit for bit
        z.pos = Particle(in_place[i]).pos;
        wrong += !mpi_test::same_bits(z, only_pos(i));
    }
    EXPECT_EQ(wrong, 0u);
}

TEST(migrate, start_packs_so_the_source_may_change_before_finish) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(9, size, random_count);
    auto c = mine<lp::aos>(w, rank);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, w.destinations(rank, random_destinations));
    plan.start(c);
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = Particle{}; // compute while in flight
    plan.finish(c);
    w.migrate(random_destinations);
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "overlapped");
}

TEST(migrate, neighbours_exchange_counts_without_an_alltoall) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    // A ring: left, right and self; elements go only there.
    const destination_fn ring = [](int r, std::size_t i, int s) {
        const auto h = mpi_test::hash(12, static_cast<std::uint64_t>(r), i) % 3;
        return (r + s + static_cast<int>(h) - 1) % s;
    };
    const std::vector<int> neighbours{(rank + size - 1) % size, (rank + 1) % size};
    world w(10, size, random_count);
    auto c = mine<lp::soa>(w, rank);
    const int before = alltoall_calls;
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, w.destinations(rank, ring), neighbours);
    plan.migrate(c);
    EXPECT_EQ(alltoall_calls, before);
    w.migrate(ring);
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "ring");
    // Without neighbours, the counts go through one MPI_Alltoall per update.
    layout::mpi::migration_plan everyone(MPI_COMM_WORLD, std::vector<int>(c.size(), rank));
    EXPECT_EQ(alltoall_calls, before + 1);
}

// ---- errors: every rank throws, no element moves, nothing hangs -----------------------------------

/// Runs f on every rank; expects layout::mpi::error everywhere, naming failing_rank, with this
/// rank's message containing `mine` where this rank is the failing one.
template <class F>
void expect_refused(F f, int failing_rank, const std::string& mine, const char* what) {
    const int rank = mpi_test::world_rank();
    try {
        f();
        ADD_FAILURE() << what << ": no exception";
    } catch (const layout::mpi::error& e) {
        EXPECT_EQ(e.failing_rank(), failing_rank) << what << ": " << e.what();
        if (rank == failing_rank || failing_rank == -1) {
            EXPECT_NE(std::string(e.what()).find(mine), std::string::npos)
                << what << ": " << e.what();
        }
    }
}

TEST(migrate_errors, a_destination_out_of_range_is_refused_everywhere_and_the_plan_still_works) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(13, size, random_count);
    auto c = mine<lp::soa>(w, rank);
    const auto d = w.destinations(rank, random_destinations);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
    auto bad = d;
    bad.push_back(0);
    if (rank == size - 1) bad.back() = size; // one past the last rank
    expect_refused([&] { plan.update(bad); }, size - 1, "out of range", "update");
    auto minus_two = d;
    minus_two.push_back(rank == 0 ? -2 : 0);
    expect_refused([&] { layout::mpi::migration_plan p(MPI_COMM_WORLD, minus_two); }, 0,
                   "out of range", "construct");
    // The plan is as it was: the old destinations still migrate correctly.
    plan.migrate(c);
    w.migrate(random_destinations);
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "after refusal");
}

TEST(migrate_errors, a_container_resized_since_the_plan_is_refused_and_nothing_moves) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    world w(14, size, random_count);
    auto c = mine<lp::aosoa<8>>(w, rank);
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, w.destinations(rank, random_destinations));
    if (rank == 0) c.push_back(Particle{});
    expect_refused([&] { plan.migrate(c); }, 0, "resized", "resized container");
    if (rank == 0) c.pop_back();
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "nothing moved");
}

TEST(migrate_errors, mismatched_plans_and_fields_are_refused_everywhere) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    if (size < 2) GTEST_SKIP() << "needs 2 ranks to disagree";
    world w(15, size, random_count);
    auto c = mine<lp::aos>(w, rank);
    const auto d = w.destinations(rank, stay);
    layout::mpi::migration_plan a(MPI_COMM_WORLD, d);
    layout::mpi::migration_plan b(MPI_COMM_WORLD, d);
    expect_refused([&] { (rank == 0 ? a : b).migrate(c); }, -1, "mismatched plans", "plans");
    expect_refused(
        [&] {
            if (rank == 0) {
                a.migrate<&Particle::pos>(c);
            } else {
                a.migrate(c);
            }
        },
        -1, "mismatched fields", "fields");
    mpi_test::expect_elements(c, w.held[static_cast<std::size_t>(rank)], "nothing moved");
}

TEST(migrate_errors, asymmetric_neighbour_lists_are_refused_at_construction) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    if (size < 2) GTEST_SKIP() << "needs 2 ranks";
    // Rank 0 names rank 1; rank 1 names nobody.
    const std::vector<int> neighbours = rank == 0 ? std::vector<int>{1} : std::vector<int>{};
    const std::vector<int> d;
    expect_refused([&] { layout::mpi::migration_plan p(MPI_COMM_WORLD, d, neighbours); }, -1,
                   "not symmetric", "asymmetric");
    // A destination that is not a neighbour.
    const std::vector<int> none;
    const std::vector<int> to_last(rank == 0 && size > 2 ? 1 : 0, size - 1);
    if (size > 2)
        expect_refused([&] { layout::mpi::migration_plan p(MPI_COMM_WORLD, to_last, none); }, 0,
                       "not one of this rank's neighbours", "not a neighbour");
}

TEST(migrate_errors, finish_without_start_throws_locally) {
    std::vector<int> none;
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, none);
    particles<lp::soa> c;
    EXPECT_THROW(plan.finish(c), layout::mpi::error);
    plan.migrate(c); // and the plan goes on
    EXPECT_EQ(c.size(), 0u);
}

} // namespace
