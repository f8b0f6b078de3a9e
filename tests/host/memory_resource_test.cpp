// Containers with a user's memory resource: every block comes from it and goes back to it with the
// same size and alignment, copies of the container use the memory space's default (as std::pmr),
// assignment keeps the resource and a move or swap carries it with the block, and a resource that
// throws leaves the container as it was. The resource is written here, as a user would.

#include "host/test_types.hpp"

#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using namespace layout_test;

/// A resource with state: it records every live block (size, alignment), can be told to refuse
/// the next allocation, and has a name that makes two instances unequal.
struct tracking_resource {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;

    struct refused : std::runtime_error {
        refused() : std::runtime_error("tracking_resource refused an allocation") {}
    };

    explicit tracking_resource(int n) : name(n) {}

    int name;
    bool refuse_next = false;
    long allocations = 0;
    std::map<void*, std::pair<std::size_t, std::size_t>> live;

    void* allocate(std::size_t bytes, std::size_t alignment) {
        if (refuse_next) {
            refuse_next = false;
            throw refused();
        }
        void* p = ::operator new(bytes, std::align_val_t{alignment});
        live[p] = {bytes, alignment};
        ++allocations;
        return p;
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        const auto it = live.find(p);
        // A block this resource did not hand out, or freed with another size: a library bug that
        // the test must see, not a crash.
        if (it == live.end() || it->second != std::pair{bytes, alignment}) {
            ++mismatched_frees;
            return;
        }
        live.erase(it);
        ::operator delete(p, std::align_val_t{alignment});
    }
    bool operator==(const tracking_resource& other) const noexcept { return name == other.name; }

    long mismatched_frees = 0;
};

template <class L>
class memory_resource_test : public ::testing::Test {};
TYPED_TEST_SUITE(memory_resource_test, all_layouts, layout_names);

template <class L>
using container = layout::vector<Body, typename L::policy>;

std::vector<Body> random_bodies(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<Body> out(n);
    for (Body& b : out) b = random_value<Body>(rng);
    return out;
}

TYPED_TEST(memory_resource_test, blocks_come_from_the_given_resource) {
    tracking_resource mine(1);
    const std::vector<Body> model = random_bodies(100, 1);
    {
        container<TypeParam> v(layout::stream_ref{}, mine);
        EXPECT_EQ(v.resource(), layout::resource_ref(mine));
        EXPECT_EQ(mine.allocations, 0) << "an empty container allocated";
        for (const Body& b : model) v.push_back(b);
        EXPECT_TRUE(matches(v, model));
        EXPECT_GT(mine.allocations, 1) << "growing by push_back did not go through the resource";
        EXPECT_EQ(mine.live.size(), 1u) << "the old blocks were not given back";
        v.shrink_to_fit();
        v.reserve(1000);
        v.resize(150, model[3]);
        EXPECT_EQ(mine.live.size(), 1u);
        EXPECT_GE(v.capacity(), 1000u);
    }
    EXPECT_TRUE(mine.live.empty()) << "the destructor did not give the block back";
    EXPECT_EQ(mine.mismatched_frees, 0) << "a block was freed with another size or alignment";
    for (const auto& [p, size_alignment] : mine.live)
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % layout::block_alignment, 0u);
}

TYPED_TEST(memory_resource_test, sized_constructor_and_copies) {
    tracking_resource mine(1);
    const Body value = random_bodies(1, 2)[0];
    container<TypeParam> v(40, value, layout::stream_ref{}, mine);
    EXPECT_EQ(mine.live.size(), 1u);
    EXPECT_TRUE(matches(v, std::vector<Body>(40, value)));

    // A copy takes the memory space's default resource, as std::pmr containers do...
    const container<TypeParam> copy = v;
    EXPECT_EQ(copy.resource(), layout::host_memory::default_resource());
    EXPECT_EQ(mine.live.size(), 1u);
    // ...unless it is given one, also across layouts.
    tracking_resource other(2);
    const layout::soa_vector<Body> converted(v, layout::stream_ref{}, other);
    EXPECT_EQ(other.live.size(), 1u);
    EXPECT_TRUE(matches(converted, std::vector<Body>(40, value)));
    EXPECT_NE(layout::resource_ref(mine), layout::resource_ref(other));
}

TYPED_TEST(memory_resource_test, assignment_keeps_the_resource_move_and_swap_carry_it) {
    tracking_resource a_res(1), b_res(2);
    const std::vector<Body> big = random_bodies(300, 3), small = random_bodies(20, 4);
    container<TypeParam> a(layout::stream_ref{}, a_res), b(layout::stream_ref{}, b_res);
    a.assign(big.begin(), big.end());
    b.assign(small.begin(), small.end());

    b = a; // does not fit: a new block, from b's resource
    EXPECT_EQ(b.resource(), layout::resource_ref(b_res));
    EXPECT_EQ(b_res.live.size(), 1u);
    EXPECT_EQ(a_res.live.size(), 1u);
    EXPECT_TRUE(matches(b, big));

    swap(a, b);
    EXPECT_EQ(a.resource(), layout::resource_ref(b_res));
    EXPECT_EQ(b.resource(), layout::resource_ref(a_res));

    container<TypeParam> c = std::move(a);
    EXPECT_EQ(c.resource(), layout::resource_ref(b_res));
    EXPECT_TRUE(matches(c, big));
    c = container<TypeParam>(); // frees b_res's block through b_res
    EXPECT_TRUE(b_res.live.empty());
    b = container<TypeParam>();
    EXPECT_TRUE(a_res.live.empty());
    EXPECT_EQ(a_res.mismatched_frees + b_res.mismatched_frees, 0);
}

// A moved-from container keeps its resource and stream, as a std::pmr container keeps its
// allocator: reusing it allocates from the user's resource, not the default one.
TYPED_TEST(memory_resource_test, a_moved_from_container_keeps_its_resource_and_stream) {
    tracking_resource mine(1);
    const std::vector<Body> model = random_bodies(30, 7);
    int stream_tag = 0; // any non-null value: host containers only carry the stream
    const layout::stream_ref stream(&stream_tag);
    container<TypeParam> a(stream, mine);
    a.assign(model.begin(), model.end());
    container<TypeParam> b = std::move(a);
    EXPECT_EQ(b.resource(), layout::resource_ref(mine));
    EXPECT_EQ(a.resource(), layout::resource_ref(mine)) << "move construction";
    EXPECT_EQ(a.stream(), stream) << "move construction";
    const long before = mine.allocations;
    for (const Body& x : model) a.push_back(x);
    EXPECT_GT(mine.allocations, before) << "the moved-from container allocated elsewhere";
    EXPECT_TRUE(matches(a, model));

    container<TypeParam> c;
    c = std::move(a);
    EXPECT_EQ(c.resource(), layout::resource_ref(mine));
    EXPECT_EQ(a.resource(), layout::resource_ref(mine)) << "move assignment";
    EXPECT_EQ(a.stream(), stream) << "move assignment";
    EXPECT_TRUE(a.empty());
    a.push_back(model[0]);
    EXPECT_EQ(mine.live.size(), 3u); // b's, c's and a's blocks, all from mine
    EXPECT_EQ(mine.mismatched_frees, 0);
}

TYPED_TEST(memory_resource_test, a_refusing_resource_changes_nothing) {
    tracking_resource mine(1);
    const std::vector<Body> model = random_bodies(50, 5);
    container<TypeParam> v(layout::stream_ref{}, mine);
    v.assign(model.begin(), model.end());
    const std::size_t capacity = v.capacity();
    const std::vector<Body> more = random_bodies(500, 6);
    const layout::aos_vector<Body> source(more.begin(), more.end());

    const auto refused = [&](auto&& op, const char* what) {
        mine.refuse_next = true;
        EXPECT_THROW(op(), tracking_resource::refused) << what;
        EXPECT_TRUE(matches(v, model)) << what;
        EXPECT_EQ(v.capacity(), capacity) << what;
        EXPECT_EQ(mine.live.size(), 1u) << what;
    };
    refused([&] { v.reserve(10 * capacity); }, "reserve");
    refused([&] { v.resize(10 * capacity); }, "resize");
    refused([&] { v = source; }, "converting assignment");
    refused([&] { v.insert(v.begin(), more.begin(), more.end()); }, "insert");
    refused([&] { container<TypeParam> w(10, model[0], layout::stream_ref{}, mine); },
            "construction");
    EXPECT_EQ(mine.mismatched_frees, 0);
}

TEST(resource_ref, equality_follows_the_resources) {
    tracking_resource a(1), b(1), c(2);
    layout::host_resource h1, h2;
    EXPECT_EQ(layout::resource_ref(a), layout::resource_ref(a));
    EXPECT_EQ(layout::resource_ref(a), layout::resource_ref(b)) << "equal resources";
    EXPECT_NE(layout::resource_ref(a), layout::resource_ref(c));
    EXPECT_EQ(layout::resource_ref(h1), layout::resource_ref(h2)) << "stateless: all equal";
    EXPECT_NE(layout::resource_ref(a), layout::resource_ref(h1)) << "different types";
    EXPECT_TRUE(layout::resource_ref(a).host_accessible());
    EXPECT_FALSE(layout::resource_ref(a).device_accessible());
}

TEST(scratch, allocates_from_the_resource_and_gives_back) {
    tracking_resource mine(1);
    {
        const layout::scratch<Body, layout::policy::aosoa<4>> s(10, mine);
        EXPECT_EQ(s.view().size(), 10u);
        ASSERT_EQ(mine.live.size(), 1u);
        EXPECT_EQ(mine.live.begin()->second.first,
                  (layout::mapping<Body, layout::policy::aosoa<4>>::bytes(12)))
            << "a scratch block of 10 elements holds three whole blocks of four";
        const std::vector<Body> model = random_bodies(10, 7);
        const layout::aos_vector<Body> source(model.begin(), model.end());
        layout::copy(source.view(), s.view());
        for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(same(Body(s.view()[i]), model[i]));
    }
    EXPECT_TRUE(mine.live.empty());
}

} // namespace
