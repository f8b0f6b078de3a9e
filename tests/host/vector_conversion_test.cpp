// Converting construction and assignment between every pair of layouts, at sizes around the
// AoSoA block boundaries and one large odd size; round trips are exact. layout::copy between
// views, and its size-mismatch error.

#include "test_types.hpp"

#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace layout_test;

template <class Src, class Dst>
struct layout_pair {
    using src = Src;
    using dst = Dst;
};

#define LAYOUT_TEST_PAIRS_FROM(S)                                                                  \
    layout_pair<S, aos_layout>, layout_pair<S, soa_layout>, layout_pair<S, aosoa_layout<4>>,       \
        layout_pair<S, aosoa_layout<32>>, layout_pair<S, aosoa_layout<3>>,                         \
        layout_pair<S, split_aos_soa>, layout_pair<S, split_aosoa_aos>

using all_pairs =
    ::testing::Types<LAYOUT_TEST_PAIRS_FROM(aos_layout), LAYOUT_TEST_PAIRS_FROM(soa_layout),
                     LAYOUT_TEST_PAIRS_FROM(aosoa_layout<4>),
                     LAYOUT_TEST_PAIRS_FROM(aosoa_layout<32>),
                     LAYOUT_TEST_PAIRS_FROM(aosoa_layout<3>), LAYOUT_TEST_PAIRS_FROM(split_aos_soa),
                     LAYOUT_TEST_PAIRS_FROM(split_aosoa_aos)>;

struct pair_names {
    template <class P>
    static std::string GetName(int) {
        return P::src::name() + "_to_" + P::dst::name();
    }
};

template <class P>
class conversion : public ::testing::Test {};
TYPED_TEST_SUITE(conversion, all_pairs, pair_names);

// LAYOUT_TEST_LARGE: 100003, or 10007 in the sanitizer builds (tests/CMakeLists.txt).
constexpr std::size_t sizes[] = {0, 1, 31, 32, 33, 1000, LAYOUT_TEST_LARGE};

/// Src -> Dst by converting construction and by assignment, and back; each compared with the
/// model. Up to 1000 elements everything is checked through the container (operator[] and
/// iterators); the large size checks the conversions through one pass over a view, to keep the
/// unoptimized suite fast.
template <class T, class SrcLayout, class DstLayout>
void round_trips(std::size_t max_size = sizes[std::size(sizes) - 1]) {
    using Src = typename SrcLayout::template container<T>;
    using Dst = typename DstLayout::template container<T>;
    static_assert(std::is_convertible_v<const Src&, Dst>, "layouts convert implicitly");
    static_assert(std::is_assignable_v<Dst&, const Src&>);
    for (const std::size_t n : sizes) {
        if (n > max_size) continue;
        SCOPED_TRACE(type_name<T>() + ", n = " + std::to_string(n));
        const bool large = n > 1000;
        const auto check = [&](const auto& c, const std::vector<T>& model) {
            return large ? view_matches(c, model) : container_matches(c, model);
        };
        std::mt19937 g(static_cast<unsigned>(n) + 1);
        const std::vector<T> model = random_values<T>(g, n);
        const Src src(model.begin(), model.end());

        const Dst converted = src; // converting construction
        ASSERT_TRUE(check(converted, model));
        const Src back = converted; // round trip
        ASSERT_TRUE(check(back, model));

        Dst assigned(7, random_value<T>(g)); // converting assignment over old contents
        assigned = src;
        ASSERT_TRUE(check(assigned, model));

        if (large) continue;

        // layout::copy between views of equal size
        Dst target(n);
        layout::copy(src.view(), target.view());
        ASSERT_TRUE(check(target, model));

        EXPECT_TRUE(back == src);
        EXPECT_TRUE(converted == src);
        Dst grown(n + 50); // assignment into a larger container shrinks it
        grown = src;
        ASSERT_TRUE(check(grown, model));
        Src again(n); // from a read-only view
        layout::copy(target.cview(), again.view());
        ASSERT_TRUE(check(again, model));

        // capacity larger than size (SoA columns further apart) on either side
        Dst roomy;
        roomy.reserve(n + 100);
        roomy = src;
        ASSERT_TRUE(check(roomy, model));
        Src spacious;
        spacious.reserve(2 * n + 3);
        for (std::size_t i = 0; i < n; ++i) spacious.push_back(model[i]);
        const Dst from_spacious = spacious;
        ASSERT_TRUE(check(from_spacious, model));
    }
}

TYPED_TEST(conversion, round_trips_particle) {
    round_trips<Particle, typename TypeParam::src, typename TypeParam::dst>();
}
TYPED_TEST(conversion, round_trips_mixed) {
    round_trips<Mixed, typename TypeParam::src, typename TypeParam::dst>();
}
/// Body (14 leaves) up to 1000 elements here; at the large size in conversion_chain below.
TYPED_TEST(conversion, round_trips_nested) {
    round_trips<Body, typename TypeParam::src, typename TypeParam::dst>(1000);
}

TYPED_TEST(conversion, size_mismatch_throws_and_writes_nothing) {
    using S = typename TypeParam::src;
    using D = typename TypeParam::dst;
    std::mt19937 g(4);
    const auto src_model = random_values<Body>(g, 33);
    const auto dst_model = random_values<Body>(g, 32);
    const typename S::template container<Body> src(src_model.begin(), src_model.end());
    typename D::template container<Body> dst(dst_model.begin(), dst_model.end());
    for (const auto& call : {0, 1}) {
        try {
            if (call == 0)
                layout::copy(src.view(), dst.view());
            else
                layout::copy(src.cview(), dst.view());
            ADD_FAILURE() << "layout::copy of 33 elements into 32 did not throw";
        } catch (const std::length_error& e) {
            EXPECT_NE(std::string(e.what()).find("size mismatch"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("33"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("32"), std::string::npos) << e.what();
        }
        EXPECT_TRUE(container_matches(dst, dst_model)) << "dst untouched";
    }
    // smaller source, and empty source into a non-empty destination
    const typename S::template container<Body> small(src_model.begin(), src_model.begin() + 5);
    EXPECT_THROW(layout::copy(small.view(), dst.view()), std::length_error);
    const typename S::template container<Body> empty;
    EXPECT_THROW(layout::copy(empty.view(), dst.view()), std::length_error);
    EXPECT_TRUE(container_matches(dst, dst_model));
    EXPECT_TRUE(container_matches(src, src_model));
}

TEST(conversion_chain, through_every_layout) {
    std::mt19937 g(5);
    const auto model = random_values<Body>(g, LAYOUT_TEST_LARGE);
    const layout::aos_vector<Body> a(model.begin(), model.end());
    const layout::aosoa<Body, 3> b = a;
    const layout::soa_vector<Body> c = b;
    const layout::aosoa<Body, 32> d = c;
    const layout::aosoa<Body, 4> e = d;
    const layout::aosoa<Body, 3> f = e;
    const layout::aosoa<Body, 32> h = f;
    const layout::aos_vector<Body> back = h;
    EXPECT_TRUE(view_matches(back, model));
    EXPECT_TRUE(view_matches(c, model));
}

TEST(conversion_chain, aosoa3_and_aosoa32_both_ways) {
    for (std::size_t n : sizes) {
        std::mt19937 g(static_cast<unsigned>(n));
        const auto model = random_values<Particle>(g, n);
        const layout::aosoa<Particle, 3> three(model.begin(), model.end());
        const layout::aosoa<Particle, 32> thirty_two = three;
        ASSERT_TRUE(container_matches(thirty_two, model)) << n;
        const layout::aosoa<Particle, 3> back = thirty_two;
        ASSERT_TRUE(container_matches(back, model)) << n;
        // capacities are whole blocks
        EXPECT_EQ(three.capacity() % 3, 0u);
        EXPECT_EQ(thirty_two.capacity() % 32, 0u);
    }
}

} // namespace
