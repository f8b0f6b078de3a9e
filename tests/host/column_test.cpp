// Interop with the standard library: columns (any layout) as random-access ranges, as std::span
// (SoA) and as strided_span (AoS and SoA), and the containers' iterators with std::ranges algorithms
// and range adaptors. Every result is compared with the elements read through the view.

#include "test_types.hpp"

#include <layout/layout.hpp>

#include <algorithm>
#include <concepts>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

// clang 14 cannot compile libstdc++ 12's range adaptors (std::vector<int> | std::views::reverse
// fails too): the views checks need a newer clang or g++.
#if defined(__clang__) && __clang_major__ < 15 && defined(__GLIBCXX__)
#  define LAYOUT_TEST_STD_VIEWS 0
#else
#  define LAYOUT_TEST_STD_VIEWS 1
#endif

namespace {

using layout_test::Body;
using layout_test::Particle;
using layout_test::Vec3;

template <class C>
C random_container(std::size_t n, unsigned seed = 7) {
    std::mt19937 g(seed);
    const auto values = layout_test::random_values<typename C::value_type>(g, n);
    return C(values.begin(), values.end());
}

// ---- types ---------------------------------------------------------------------------------------

using soa_p = layout::soa_vector<Particle>;
using aos_p = layout::aos_vector<Particle>;
using aosoa_p = layout::aosoa<Particle, 4>;

static_assert(std::is_same_v<decltype(std::declval<soa_p&>().column<&Particle::x>().span()),
                             std::span<float>>);
static_assert(std::is_same_v<decltype(std::declval<const soa_p&>().column<&Particle::x>().span()),
                             std::span<const float>>);
static_assert(std::is_same_v<decltype(std::declval<layout::view<const Body, layout::policy::soa>>()
                                          .column<&Body::pos, &Vec3::y>()
                                          .span()),
                             std::span<const float>>);
static_assert(
    std::is_same_v<decltype(std::declval<layout::soa_vector<Body>&>().column<&Body::id>().span()),
                   std::span<int>>);
static_assert(
    std::is_same_v<decltype(layout::strided_span(std::declval<aos_p&>().column<&Particle::x>())),
                   layout::strided_span<float>>);

// What each layout's column has, from the layout's facts: span() where contiguous (SoA), data()
// and stride() where strided (SoA, AoS), neither for AoSoA (index it, or mdspan() on the device).
template <class C>
using column_of = decltype(std::declval<C&>().template column<&Particle::x>());
static_assert(column_of<soa_p>::is_contiguous && column_of<soa_p>::is_strided);
static_assert(!column_of<aos_p>::is_contiguous && column_of<aos_p>::is_strided);
static_assert(!column_of<aosoa_p>::is_contiguous && !column_of<aosoa_p>::is_strided);
static_assert(std::is_trivially_copyable_v<column_of<aosoa_p>>);

using strided = layout::strided_span<float>;
static_assert(std::random_access_iterator<strided::iterator>);
static_assert(std::ranges::random_access_range<strided>);
static_assert(std::ranges::sized_range<strided>);
static_assert(std::ranges::view<strided>);
static_assert(std::ranges::borrowed_range<strided>);
static_assert(std::ranges::output_range<strided, float>);
static_assert(!std::ranges::output_range<layout::strided_span<const float>, float>);
static_assert(std::is_trivially_copyable_v<strided> &&
              std::is_trivially_copyable_v<strided::iterator>);
static_assert(std::is_convertible_v<strided, layout::strided_span<const float>>);
static_assert(std::sortable<strided::iterator>);

using leaves = column_of<aosoa_p>;
static_assert(std::random_access_iterator<std::ranges::iterator_t<leaves>>);
static_assert(std::ranges::random_access_range<leaves>);
static_assert(std::ranges::sized_range<leaves>);
static_assert(std::ranges::view<leaves>);
static_assert(std::ranges::borrowed_range<leaves>);
static_assert(std::same_as<std::ranges::range_reference_t<leaves>, float&>);
static_assert(std::same_as<std::ranges::range_reference_t<column_of<const aosoa_p>>, const float&>);
static_assert(std::sortable<std::ranges::iterator_t<leaves>>);

// The column of a temporary container would dangle: ill-formed (a deleted overload), for rvalue
// and const rvalue containers alike; lvalues and views (which own nothing), rvalue or not, are
// fine. (The diagnostic: compile_fail/column_of_temporary.cpp.)
template <class X>
constexpr bool column_of_is_allowed =
    requires { std::declval<X>().template column<&Particle::x>(); };
static_assert(column_of_is_allowed<soa_p&> && column_of_is_allowed<const soa_p&>);
static_assert(!column_of_is_allowed<soa_p> && !column_of_is_allowed<soa_p&&> &&
              !column_of_is_allowed<const soa_p&&>);
static_assert(column_of_is_allowed<const aosoa_p&> && !column_of_is_allowed<aosoa_p> &&
              !column_of_is_allowed<const aosoa_p>);
static_assert(column_of_is_allowed<layout::view<Particle, layout::policy::soa>> &&
              column_of_is_allowed<const layout::view<Particle, layout::policy::soa>&>);

// The containers' and views' iterators, whose reference is a proxy.
template <class C>
constexpr bool container_iterators_are_random_access() {
    static_assert(std::random_access_iterator<typename C::iterator>);
    static_assert(std::random_access_iterator<typename C::const_iterator>);
    static_assert(std::random_access_iterator<typename C::view_type::iterator>);
    static_assert(std::ranges::random_access_range<C>);
    static_assert(std::ranges::random_access_range<typename C::view_type>);
    static_assert(std::sortable<typename C::iterator, std::ranges::less,
                                decltype([](const typename C::value_type& v) { return v.x; })>);
    return true;
}
static_assert(container_iterators_are_random_access<soa_p>());
static_assert(container_iterators_are_random_access<aos_p>());
static_assert(container_iterators_are_random_access<aosoa_p>());

// ---- std::span of SoA columns ------------------------------------------------------------------

TEST(column_as_span, every_leaf_of_a_soa_container_equals_the_elements) {
    auto c = random_container<soa_p>(37);
    const auto v = c.view();
    const auto x = c.column<&Particle::x>().span();
    const auto vz = v.column<&Particle::vz>().span();
    const auto q = c.column<7>().span();
    ASSERT_EQ(x.size(), c.size());
    EXPECT_EQ(x.data(), v.column<&Particle::x>().data());
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Particle p = c[i];
        EXPECT_EQ(x[i], p.x);
        EXPECT_EQ(vz[i], p.vz);
        EXPECT_EQ(q[i], p.charge);
        EXPECT_EQ(&x[i], &layout::get<&Particle::x>(v[i]));
    }
}

TEST(column_as_span, nested_members_are_their_own_columns) {
    auto c = random_container<layout::soa_vector<Body>>(21);
    const auto pos_y = c.column<&Body::pos, &Vec3::y>().span();
    const auto vel_2 = c.column<&Body::vel, 2>().span();
    const auto pair1_z = c.column<&Body::pair, 1, &Vec3::z>().span();
    const auto w = std::as_const(c).column<&Body::w>().span();
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Body b = c[i];
        EXPECT_EQ(pos_y[i], b.pos.y);
        EXPECT_EQ(vel_2[i], b.vel[2]);
        EXPECT_EQ(pair1_z[i], b.pair[1].z);
        EXPECT_EQ(w[i], b.w);
    }
}

TEST(column_as_span, ranges_algorithms_on_one_column_touch_only_that_column) {
    auto c = random_container<soa_p>(100);
    const layout::aos_vector<Particle> before = c;
    auto mass = c.column<&Particle::mass>().span();

    // (Not std::ranges::max over the container: libstdc++ 12 keeps its running maximum in
    // `auto result = *first`, a proxy, and assigning to it writes into the container's first
    // element. max_element, and max over a column, are fine.)
    const float top = std::ranges::max(mass);
    const Particle expected_top =
        *std::ranges::max_element(before, {}, [](const Particle& p) { return p.mass; });
    EXPECT_EQ(top, expected_top.mass);
    EXPECT_EQ(std::ranges::count_if(mass, [](float m) { return m > 0; }),
              std::ranges::count_if(before, [](const Particle& p) { return p.mass > 0; }));
    EXPECT_EQ(std::accumulate(mass.begin(), mass.end(), 0.0),
              std::accumulate(before.begin(), before.end(), 0.0,
                              [](double s, const Particle& p) { return s + p.mass; }));

    std::ranges::sort(mass);
    EXPECT_TRUE(std::ranges::is_sorted(mass));
    std::vector<float> masses;
    for (const Particle& p : before) masses.push_back(p.mass);
    std::ranges::sort(masses);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Particle now = c[i], old = before[i];
        EXPECT_EQ(now.mass, masses[i]);
        EXPECT_EQ(now.x, old.x); // every other column as it was
        EXPECT_EQ(now.charge, old.charge);
    }

    std::ranges::fill(c.column<&Particle::vx>().span(), 2.5f);
    for (const Particle& p : c) EXPECT_EQ(p.vx, 2.5f);
}

TEST(column_as_span, span_of_a_view_column_and_of_user_owned_columns) {
    struct XY {
        float x;
        double y;
    };
    std::vector<float> xs = {1, 2, 3};
    std::vector<double> ys = {4, 5, 6};
    const layout::view<XY, layout::policy::soa> v(xs.size(), xs.data(), ys.data());
    const std::span<double> y = v.column<&XY::y>().span();
    EXPECT_EQ(y.data(), ys.data());
    EXPECT_EQ(y.size(), 3u);
    const std::span<const float> x =
        layout::view<const XY, layout::policy::soa>(v).column<&XY::x>().span();
    EXPECT_TRUE(std::ranges::equal(x, xs));
}

TEST(column_as_span, empty_container) {
    soa_p c;
    EXPECT_TRUE(c.column<&Particle::x>().span().empty());
    EXPECT_TRUE(layout::strided_span(c.column<&Particle::x>()).empty());
    aos_p a;
    const auto s = layout::strided_span(a.column<&Particle::y>());
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s.begin(), s.end());
}

// ---- strided_span of AoS (and SoA) columns ---------------------------------------------------

TEST(column_stride, aos_column_addresses_and_values) {
    auto c = random_container<aos_p>(29);
    const auto vy = layout::strided_span(c.column<&Particle::vy>());
    EXPECT_EQ(vy.stride(), sizeof(Particle) / sizeof(float));
    EXPECT_EQ(vy.data(), &c.data()[0].vy);
    ASSERT_EQ(vy.size(), c.size());
    std::size_t i = 0;
    for (float& value : vy) {
        EXPECT_EQ(&value, &c.data()[i].vy);
        EXPECT_EQ(&vy[i], &value);
        ++i;
    }
    EXPECT_EQ(i, c.size());
    EXPECT_EQ(vy.end() - vy.begin(), static_cast<std::ptrdiff_t>(c.size()));
    const Particle top = *std::ranges::max_element(c, {}, [](const Particle& p) { return p.vy; });
    EXPECT_EQ(std::ranges::max(vy), top.vy);
}

TEST(column_stride, mixed_leaf_sizes_and_nested_members) {
    struct M {
        double d;
        float f;
        int i;
    };
    std::vector<M> data = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    const layout::view<M, layout::policy::aos> v(data.data(), data.size());
    const auto f = layout::strided_span(v.column<&M::f>());
    const auto d = layout::strided_span(v.column<&M::d>());
    EXPECT_EQ(f.stride(), 4u); // 16-byte element, 4-byte leaf
    EXPECT_EQ(d.stride(), 2u); // 16-byte element, 8-byte leaf
    EXPECT_TRUE(std::ranges::equal(f, std::vector<float>{2, 5, 8}));
    EXPECT_TRUE(std::ranges::equal(d, std::vector<double>{1, 4, 7}));

    auto b = random_container<layout::aos_vector<Body>>(9);
    const auto z = layout::strided_span(std::as_const(b).column<&Body::pair, 0, &Vec3::z>());
    static_assert(std::is_same_v<decltype(z), const layout::strided_span<const float>>);
    for (std::size_t k = 0; k < b.size(); ++k) EXPECT_EQ(&z[k], &b.data()[k].pair[0].z);
}

TEST(column_stride, sorting_an_aos_column_leaves_the_others) {
    auto c = random_container<aos_p>(64);
    const layout::soa_vector<Particle> before = c;
    auto x = layout::strided_span(c.column<&Particle::x>());
    std::ranges::sort(x, std::ranges::greater{});
    EXPECT_TRUE(std::ranges::is_sorted(x, std::ranges::greater{}));
    for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(Particle(c[i]).y, Particle(before[i]).y);
        EXPECT_EQ(Particle(c[i]).charge, Particle(before[i]).charge);
    }
}

TEST(column_stride, soa_column_has_stride_one) {
    auto c = random_container<soa_p>(10);
    const auto s = layout::strided_span(c.column<&Particle::z>());
    EXPECT_EQ(s.stride(), 1u);
    EXPECT_EQ(s.data(), c.column<&Particle::z>().span().data());
    const layout::strided_span<float> from_span(c.column<&Particle::z>().span());
    EXPECT_TRUE(std::ranges::equal(s, from_span));
}

/// Stride 0 repeats the one value size() times (a broadcast): a range of size() elements whose
/// iterators count, not a range that never advances (end() - begin() used to divide by zero).
TEST(strided_span, stride_zero_repeats_one_value) {
    float value = 2.5f;
    const layout::strided_span<float> s(&value, 5, 0);
    EXPECT_EQ(s.size(), 5u);
    EXPECT_EQ(s.end() - s.begin(), 5);
    EXPECT_EQ(std::ranges::distance(s), 5);
    EXPECT_EQ(std::ranges::count(s, 2.5f), 5);
    std::size_t visited = 0;
    for (float& x : s) {
        EXPECT_EQ(&x, &value);
        ++visited;
    }
    EXPECT_EQ(visited, 5u);
    EXPECT_EQ(&s[4], &value);
    EXPECT_EQ(&*(s.end() - 1), &value);
    std::ranges::fill(s, 1.f); // five writes to one float
    EXPECT_EQ(value, 1.f);
    const layout::strided_span<float> none(&value, 0, 0);
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.end() - none.begin(), 0);
}

/// Iterators step by index: a range over every other element reads the right values from
/// both ends and in the middle, and reverse iteration ends where forward iteration began.
TEST(strided_span, iterators_of_a_stride_count_elements) {
    std::vector<int> data(20);
    std::iota(data.begin(), data.end(), 0);
    const layout::strided_span<int> evens(data.data(), 10, 2);
    EXPECT_EQ(evens.end() - evens.begin(), 10);
    EXPECT_EQ(evens.begin()[7], 14);
    EXPECT_EQ(*(evens.end() - 1), 18);
    std::vector<int> back(std::make_reverse_iterator(evens.end()),
                          std::make_reverse_iterator(evens.begin()));
    EXPECT_EQ(back, (std::vector<int>{18, 16, 14, 12, 10, 8, 6, 4, 2, 0}));
    EXPECT_LT(evens.begin() + 3, evens.begin() + 4);
}

// ---- columns of any layout as ranges --------------------------------------------------------

TEST(column_as_range, aosoa_column_equals_the_elements_and_sorts_in_place) {
    auto c = random_container<aosoa_p>(23); // a partial last block
    const layout::aos_vector<Particle> before = c;
    auto m = c.column<&Particle::mass>();
    static_assert(std::ranges::random_access_range<decltype(m)>);
    static_assert(std::same_as<std::ranges::range_reference_t<decltype(m)>, float&>);
    ASSERT_EQ(std::ranges::size(m), c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        EXPECT_EQ(&m[i], &layout::get<&Particle::mass>(c[i]));

    std::ranges::sort(m);
    EXPECT_TRUE(std::ranges::is_sorted(m));
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(Particle(c[i]).vz, Particle(before[i]).vz);
}

TEST(column_as_range, same_values_in_every_layout) {
    const auto s = random_container<soa_p>(50);
    const aos_p a = s;
    const aosoa_p b = s;
    EXPECT_TRUE(std::ranges::equal(s.column<&Particle::y>(), s.column<&Particle::y>().span()));
    EXPECT_TRUE(std::ranges::equal(a.column<&Particle::y>(),
                                   layout::strided_span(a.column<&Particle::y>())));
    EXPECT_TRUE(std::ranges::equal(b.column<&Particle::y>(), s.column<&Particle::y>().span()));
}

// ---- the containers with std::ranges algorithms and adaptors ---------------------------------

template <class C>
class container_ranges : public ::testing::Test {};
using containers = ::testing::Types<soa_p, aos_p, aosoa_p>;
TYPED_TEST_SUITE(container_ranges, containers);

TYPED_TEST(container_ranges, ranges_sort_by_projection) {
    auto c = random_container<TypeParam>(77);
    std::vector<Particle> model(c.begin(), c.end());
    std::ranges::sort(c, {}, [](const Particle& p) { return p.x; });
    std::ranges::stable_sort(model, {}, [](const Particle& p) { return p.x; });
    EXPECT_TRUE(std::ranges::is_sorted(c, {}, [](const Particle& p) { return p.x; }));
    // The keys agree; ties (equal x) may be ordered either way by an unstable sort.
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(Particle(c[i]).x, model[i].x);
    // ...and it is a permutation: every element is still there, whole.
    std::vector<Particle> sorted(c.begin(), c.end());
    const auto total = [](const Particle& a, const Particle& b) { return layout_test::less(a, b); };
    std::ranges::sort(sorted, total);
    std::ranges::sort(model, total);
    for (std::size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(layout_test::same(sorted[i], model[i]));
}

#if LAYOUT_TEST_STD_VIEWS

TYPED_TEST(container_ranges, views_transform_and_filter_over_a_view) {
    auto c = random_container<TypeParam>(40);
    const auto v = c.view();
    auto speeds =
        v | std::views::transform([](const Particle& p) { return p.vx * p.vx + p.vy * p.vy; });
    std::vector<float> expected;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Particle p = c[i];
        expected.push_back(p.vx * p.vx + p.vy * p.vy);
    }
    EXPECT_TRUE(std::ranges::equal(speeds, expected));

    // Filter on the proxy, then write through it: only the chosen elements change.
    const aos_p before = c;
    for (auto&& p : v | std::views::filter([](const Particle& p) { return p.charge > 0; }))
        layout::get<&Particle::charge>(p) = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const Particle old = before[i], now = c[i];
        EXPECT_EQ(now.charge, old.charge > 0 ? 0.f : old.charge);
        EXPECT_EQ(now.mass, old.mass);
    }

    auto last_z = v | std::views::reverse | std::views::take(3) |
                  std::views::transform([](const Particle& p) { return p.z; });
    std::vector<float> last3(last_z.begin(), last_z.end());
    ASSERT_EQ(last3.size(), 3u);
    EXPECT_EQ(last3[0], Particle(c[c.size() - 1]).z);
    EXPECT_EQ(last3[2], Particle(c[c.size() - 3]).z);
}

#endif

} // namespace
