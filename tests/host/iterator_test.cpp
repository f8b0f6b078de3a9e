// Standard algorithms (classic and std::ranges) and range adaptors over layout containers and
// views, each compared with the same algorithm applied to a std::vector model.

#include "test_types.hpp"

#include <algorithm>
#include <concepts>
#include <functional>
#include <iterator>
#include <numeric>
#include <ranges>
#include <vector>

// clang 14 cannot compile libstdc++ 12's std::ranges::subrange and range adaptors at all
// (std::vector<int> | std::views::reverse fails too): those checks need a newer clang or g++.
#if defined(__clang__) && __clang_major__ < 15 && defined(__GLIBCXX__)
#  define LAYOUT_TEST_STD_VIEWS 0
#else
#  define LAYOUT_TEST_STD_VIEWS 1
#endif

namespace {

using namespace layout_test;

[[maybe_unused]] constexpr const char* no_views_message =
    "clang 14 cannot compile libstdc++ 12's std::ranges::subrange and views (not specific to "
    "layout: std::vector fails too); covered by the g++ build";

template <class C>
class algorithms : public ::testing::Test {};
TYPED_TEST_SUITE(algorithms, all_combos, combo_names);

/// A key with many ties: stable sorts must keep equal elements in order.
template <class T>
int bucket(const T& v) {
    return static_cast<int>(key(v)) % 7;
}

// Named comparators rather than lambdas: each algorithm is instantiated once per iterator type
// and comparator, which keeps this file's compile time down.
template <class T>
struct total_order {
    bool operator()(const T& a, const T& b) const { return less(a, b); }
};
template <class T>
struct key_greater {
    bool operator()(const T& a, const T& b) const { return key(a) > key(b); }
};
template <class T>
struct bucket_less {
    bool operator()(const T& a, const T& b) const { return bucket(a) < bucket(b); }
};
template <class T>
struct same_value {
    bool operator()(const T& a, const T& b) const { return same(a, b); }
};

TYPED_TEST(algorithms, concepts) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    using It = typename C::iterator;
    using CIt = typename C::const_iterator;
    using V = typename TypeParam::view;
    using CV = typename TypeParam::const_view;

    static_assert(std::random_access_iterator<It>);
    static_assert(std::random_access_iterator<CIt>);
    static_assert(std::random_access_iterator<typename V::iterator>);
    static_assert(std::random_access_iterator<typename CV::iterator>);
    static_assert(std::same_as<std::iter_value_t<It>, T>);
    static_assert(std::same_as<std::iter_rvalue_reference_t<It>, T>);
    static_assert(std::same_as<std::iter_common_reference_t<It>, T>);
    static_assert(std::permutable<It>);
    static_assert(std::permutable<typename V::iterator>);
    static_assert(
        std::sortable<It, std::ranges::less, decltype([](const T& v) { return key(v); })>);
    static_assert(std::indirectly_writable<It, T>);
    static_assert(std::indirectly_writable<It, std::iter_reference_t<CIt>>);
    static_assert(!std::indirectly_writable<CIt, T>, "a const_iterator must not write");
    static_assert(std::sized_sentinel_for<It, It>);
    static_assert(std::convertible_to<It, CIt>);
    static_assert(!std::convertible_to<CIt, It>);

    static_assert(std::ranges::random_access_range<C>);
    static_assert(std::ranges::random_access_range<const C>);
    static_assert(std::ranges::sized_range<C>);
    static_assert(std::ranges::common_range<C>);
    static_assert(std::ranges::output_range<C, T>);
    static_assert(!std::ranges::output_range<const C, T>);
    static_assert(std::ranges::random_access_range<V>);
    static_assert(std::ranges::random_access_range<CV>);
    static_assert(std::ranges::sized_range<V>);
    static_assert(std::same_as<std::ranges::range_value_t<C>, T>);
    SUCCEED();
}

/// A container and its model with the same random values.
template <class C, class T>
struct fixture_data {
    std::vector<T> model;
    C c;
    explicit fixture_data(unsigned seed, std::size_t n = 257) {
        std::mt19937 g(seed);
        model = random_values<T>(g, n);
        // a few duplicated keys and whole duplicates
        for (std::size_t i = 3; i < n; i += 17) model[i] = model[i - 3];
        c = C(model.begin(), model.end());
    }
};

TYPED_TEST(algorithms, sort_with_comparator) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    for (std::size_t n : {0u, 1u, 2u, 15u, 16u, 17u, 33u, 257u, 1000u}) {
        fixture_data<C, T> d(1, n);
        // total order: exactly one right answer
        std::sort(d.c.begin(), d.c.end(), total_order<T>{});
        std::sort(d.model.begin(), d.model.end(), total_order<T>{});
        EXPECT_TRUE(matches(d.c, d.model)) << "n = " << n;
        // descending by key only: compare the keys, and the multiset of elements
        fixture_data<C, T> e(2, n);
        std::sort(e.c.begin(), e.c.end(), key_greater<T>{});
        std::sort(e.model.begin(), e.model.end(), key_greater<T>{});
        std::vector<T> got = to_std(e.c);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(key(got[i]), key(e.model[i])) << i;
        std::sort(got.begin(), got.end(), total_order<T>{});
        std::sort(e.model.begin(), e.model.end(), total_order<T>{});
        EXPECT_TRUE(matches(layout::aos_vector<T>(got.begin(), got.end()), e.model));
    }
}

TYPED_TEST(algorithms, stable_sort) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    for (std::size_t n : {0u, 1u, 33u, 257u, 1000u}) {
        fixture_data<C, T> d(3, n);
        const auto by_bucket = bucket_less<T>{};
        std::stable_sort(d.c.begin(), d.c.end(), by_bucket);
        std::stable_sort(d.model.begin(), d.model.end(), by_bucket);
        EXPECT_TRUE(matches(d.c, d.model)) << "n = " << n;
        std::ranges::stable_sort(d.c, std::ranges::greater{}, [](const T& v) { return key(v); });
        std::ranges::stable_sort(d.model, std::ranges::greater{},
                                 [](const T& v) { return key(v); });
        EXPECT_TRUE(matches(d.c, d.model)) << "n = " << n;
    }
}

TYPED_TEST(algorithms, copy_to_and_from_std_vector) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(4);
    std::vector<T> out(d.model.size());
    auto end = std::copy(d.c.begin(), d.c.end(), out.begin());
    EXPECT_EQ(end, out.end());
    EXPECT_TRUE(matches(layout::aos_vector<T>(out.begin(), out.end()), d.model));

    std::vector<T> appended;
    std::copy(d.c.cbegin(), d.c.cend(), std::back_inserter(appended));
    EXPECT_EQ(appended.size(), d.model.size());
    for (std::size_t i = 0; i < appended.size(); ++i) ASSERT_TRUE(same(appended[i], d.model[i]));

    std::mt19937 g(5);
    const std::vector<T> src = random_values<T>(g, d.model.size());
    auto cend = std::copy(src.begin(), src.end(), d.c.begin());
    EXPECT_TRUE(cend == d.c.end());
    EXPECT_TRUE(matches(d.c, src));

    // into the middle, overlapping ranges of the same container (std::copy forward to the left,
    // std::copy_backward to the right)
    std::vector<T> m = src;
    std::copy(d.c.begin() + 10, d.c.begin() + 50, d.c.begin() + 5);
    std::copy(m.begin() + 10, m.begin() + 50, m.begin() + 5);
    EXPECT_TRUE(matches(d.c, m));
    std::copy_backward(d.c.begin() + 5, d.c.begin() + 60, d.c.begin() + 80);
    std::copy_backward(m.begin() + 5, m.begin() + 60, m.begin() + 80);
    EXPECT_TRUE(matches(d.c, m));

    // between two containers of different layouts, element proxies on both sides
    layout::aosoa<T, 3> other(m.size());
    std::copy(d.c.begin(), d.c.end(), other.begin());
    EXPECT_TRUE(matches(other, m));
    layout::soa_vector<T> third(m.size());
    std::ranges::copy(other, third.begin());
    EXPECT_TRUE(matches(third, m));
}

TYPED_TEST(algorithms, ranges_copy) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(6);
    std::vector<T> out(d.model.size());
    auto result = std::ranges::copy(d.c, out.begin());
    EXPECT_TRUE(result.in == d.c.end());
    EXPECT_EQ(result.out, out.end());
    EXPECT_TRUE(matches(layout::aos_vector<T>(out.begin(), out.end()), d.model));

    std::mt19937 g(7);
    const std::vector<T> src = random_values<T>(g, d.model.size());
    std::ranges::copy(src, d.c.begin());
    EXPECT_TRUE(matches(d.c, src));

    std::vector<T> via_view;
    std::ranges::copy(d.c.view(), std::back_inserter(via_view));
    EXPECT_TRUE(matches(layout::aos_vector<T>(via_view.begin(), via_view.end()), src));
}

TYPED_TEST(algorithms, transform) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(8);
    const auto twist = [](const T& v) {
        std::mt19937 g(
            static_cast<unsigned>(static_cast<long long>(key(v) * 16))); // keys may be negative
        return random_value<T>(g);
    };
    // in place
    std::transform(d.c.begin(), d.c.end(), d.c.begin(), twist);
    std::transform(d.model.begin(), d.model.end(), d.model.begin(), twist);
    EXPECT_TRUE(matches(d.c, d.model));
    // container -> std::vector, and binary
    std::vector<T> out(d.model.size()), expected(d.model.size());
    std::transform(d.c.begin(), d.c.end(), out.begin(), twist);
    std::transform(d.model.begin(), d.model.end(), expected.begin(), twist);
    EXPECT_TRUE(matches(layout::aos_vector<T>(out.begin(), out.end()), expected));
    const auto pick = [](const T& a, const T& b) { return key(a) < key(b) ? a : b; };
    std::transform(d.c.begin(), d.c.end(), out.begin(), d.c.begin(), pick);
    std::transform(d.model.begin(), d.model.end(), expected.begin(), d.model.begin(), pick);
    EXPECT_TRUE(matches(d.c, d.model));
    // ranges, with a projection
    std::vector<decltype(key(T{}))> keys, model_keys;
    std::ranges::transform(d.c, std::back_inserter(keys), [](const T& v) { return key(v); });
    std::ranges::transform(d.model, std::back_inserter(model_keys),
                           [](const T& v) { return key(v); });
    EXPECT_EQ(keys, model_keys);
}

TYPED_TEST(algorithms, find_if) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(9);
    for (double threshold : {-2000.0, -500.0, 0.0, 300.0, 900.0, 1e9}) {
        const auto above = [&](const T& v) { return key(v) > threshold; };
        const auto it = std::find_if(d.c.begin(), d.c.end(), above);
        const auto mit = std::find_if(d.model.begin(), d.model.end(), above);
        EXPECT_EQ(it - d.c.begin(), mit - d.model.begin()) << threshold;
        const auto rit = std::ranges::find_if(d.c, above);
        EXPECT_EQ(rit - d.c.begin(), mit - d.model.begin()) << threshold;
        const auto pit = std::ranges::find_if(
            d.c, [&](auto k) { return k > threshold; }, [](const T& v) { return key(v); });
        EXPECT_EQ(pit - d.c.begin(), mit - d.model.begin()) << threshold;
        const auto cit = std::ranges::find_if(std::as_const(d.c), above);
        EXPECT_EQ(cit - d.c.cbegin(), mit - d.model.begin()) << threshold;
        EXPECT_EQ(std::count_if(d.c.begin(), d.c.end(), above),
                  std::count_if(d.model.begin(), d.model.end(), above));
    }
}

TYPED_TEST(algorithms, reverse_rotate) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    for (std::size_t n : {0u, 1u, 2u, 3u, 31u, 32u, 33u, 257u}) {
        fixture_data<C, T> d(10, n);
        std::reverse(d.c.begin(), d.c.end());
        std::reverse(d.model.begin(), d.model.end());
        ASSERT_TRUE(matches(d.c, d.model)) << "reverse, n = " << n;
        for (std::size_t mid : {std::size_t{0}, n / 3, n / 2, n}) {
            const auto it = std::rotate(d.c.begin(), d.c.begin() + std::ptrdiff_t(mid), d.c.end());
            const auto mit =
                std::rotate(d.model.begin(), d.model.begin() + std::ptrdiff_t(mid), d.model.end());
            EXPECT_EQ(it - d.c.begin(), mit - d.model.begin());
            ASSERT_TRUE(matches(d.c, d.model)) << "rotate, n = " << n << ", mid = " << mid;
        }
        std::ranges::reverse(d.c);
        std::ranges::reverse(d.model);
        ASSERT_TRUE(matches(d.c, d.model));
    }
}

/// std::ranges::rotate: libstdc++ 12's rotation by one is `auto __t = std::move(*__p); ...;
/// *(__p + __n - 1) = std::move(__t);` (bits/ranges_algo.h), which is right only because a
/// proxy made by moving keeps the element's value (element_ref.hpp). Every rotation of
/// tests/host/element_ref_test.cpp runs too; these are larger sizes.
TYPED_TEST(algorithms, ranges_rotate) {
#if !LAYOUT_TEST_STD_VIEWS
    GTEST_SKIP() << no_views_message;
#else
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    for (std::size_t n : {2u, 3u, 5u, 33u, 257u}) {
        for (std::size_t mid : {std::size_t{0}, std::size_t{1}, n / 3, n / 2, n - 1, n}) {
            fixture_data<C, T> d(18, n);
            const auto it = std::ranges::rotate(d.c, d.c.begin() + std::ptrdiff_t(mid));
            const auto mit = std::ranges::rotate(d.model, d.model.begin() + std::ptrdiff_t(mid));
            EXPECT_EQ(it.begin() - d.c.begin(), mit.begin() - d.model.begin());
            EXPECT_TRUE(it.end() == d.c.end());
            EXPECT_TRUE(matches(d.c, d.model)) << "ranges::rotate, n = " << n << ", mid = " << mid;
        }
    }
#endif
}

TYPED_TEST(algorithms, ranges_sort) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(11, 600);
    std::ranges::sort(d.c, total_order<T>{});
    std::ranges::sort(d.model, total_order<T>{});
    EXPECT_TRUE(matches(d.c, d.model));
    EXPECT_TRUE(std::ranges::is_sorted(d.c, total_order<T>{}));
    // through a view, with a projection, descending: keys match
    fixture_data<C, T> e(12, 600);
    std::ranges::sort(e.c.view(), std::ranges::greater{}, [](const T& v) { return key(v); });
    std::ranges::sort(e.model, std::ranges::greater{}, [](const T& v) { return key(v); });
    for (std::size_t i = 0; i < e.model.size(); ++i)
        ASSERT_EQ(key(T(e.c[i])), key(e.model[i])) << i;
}

TYPED_TEST(algorithms, other_mutating_algorithms) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(13, 100);
    std::mt19937 g(14);
    const T v = random_value<T>(g);
    std::fill(d.c.begin() + 10, d.c.begin() + 20, v);
    std::fill(d.model.begin() + 10, d.model.begin() + 20, v);
    EXPECT_TRUE(matches(d.c, d.model));
    std::swap_ranges(d.c.begin(), d.c.begin() + 30, d.c.begin() + 50);
    std::swap_ranges(d.model.begin(), d.model.begin() + 30, d.model.begin() + 50);
    EXPECT_TRUE(matches(d.c, d.model));
    std::iter_swap(d.c.begin() + 1, d.c.end() - 1);
    std::iter_swap(d.model.begin() + 1, d.model.end() - 1);
    EXPECT_TRUE(matches(d.c, d.model));
    std::ranges::iter_swap(d.c.begin() + 2, d.c.begin() + 3);
    std::ranges::iter_swap(d.model.begin() + 2, d.model.begin() + 3);
    EXPECT_TRUE(matches(d.c, d.model));
    const auto pred = [](const T& x) { return bucket(x) < 3; };
    const auto p = std::stable_partition(d.c.begin(), d.c.end(), pred);
    const auto mp = std::stable_partition(d.model.begin(), d.model.end(), pred);
    EXPECT_EQ(p - d.c.begin(), mp - d.model.begin());
    EXPECT_TRUE(matches(d.c, d.model));
    const auto total = total_order<T>{};
    std::nth_element(d.c.begin(), d.c.begin() + 40, d.c.end(), total);
    std::nth_element(d.model.begin(), d.model.begin() + 40, d.model.end(), total);
    EXPECT_TRUE(same(T(d.c[40]), d.model[40]));
    std::sort(d.c.begin(), d.c.end(), total);
    std::sort(d.model.begin(), d.model.end(), total);
    const auto u = std::unique(d.c.begin(), d.c.end(), same_value<T>{});
    const auto mu = std::unique(d.model.begin(), d.model.end(), same_value<T>{});
    ASSERT_EQ(u - d.c.begin(), mu - d.model.begin());
    EXPECT_LT(u - d.c.begin(), 100) << "the fixture has duplicates";
    d.c.erase(u, d.c.end());
    d.model.erase(mu, d.model.end());
    EXPECT_TRUE(matches(d.c, d.model));
    EXPECT_TRUE(std::binary_search(d.c.begin(), d.c.end(), d.model[7], total));
    EXPECT_EQ(std::lower_bound(d.c.begin(), d.c.end(), d.model[7], total) - d.c.begin(), 7);
}

TYPED_TEST(algorithms, range_adaptors) {
#if !LAYOUT_TEST_STD_VIEWS
    GTEST_SKIP() << no_views_message;
#else
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(15, 77);

    std::vector<T> got;
    for (T v : d.c | std::views::reverse) got.push_back(v);
    std::vector<T> expected(d.model.rbegin(), d.model.rend());
    EXPECT_TRUE(matches(layout::aos_vector<T>(got.begin(), got.end()), expected));

    got.clear();
    for (T v : std::views::take(d.c, 10)) got.push_back(v);
    expected.assign(d.model.begin(), d.model.begin() + 10);
    EXPECT_TRUE(matches(layout::aos_vector<T>(got.begin(), got.end()), expected));

    got.clear();
    for (T v : d.c | std::views::reverse | std::views::take(5)) got.push_back(v);
    expected.assign(d.model.rbegin(), d.model.rbegin() + 5);
    EXPECT_TRUE(matches(layout::aos_vector<T>(got.begin(), got.end()), expected));

    // writing through an adaptor
    std::mt19937 g(16);
    const T v = random_value<T>(g);
    for (auto&& ref : d.c | std::views::reverse | std::views::take(3)) ref = v;
    for (auto& ref : d.model | std::views::reverse | std::views::take(3)) ref = v;
    EXPECT_TRUE(matches(d.c, d.model));

    // the reversed range is itself random access and sortable
    auto reversed = d.c | std::views::reverse;
    static_assert(std::ranges::random_access_range<decltype(reversed)>);
    std::ranges::sort(reversed, total_order<T>{});
    std::ranges::sort(d.model | std::views::reverse, total_order<T>{});
    EXPECT_TRUE(matches(d.c, d.model));

    // adaptors over a view (a cheap non-owning range)
    auto view = d.c.view();
    got.clear();
    for (T x : view | std::views::drop(70) | std::views::reverse) got.push_back(x);
    expected.assign(d.model.rbegin(), d.model.rbegin() + 7);
    EXPECT_TRUE(matches(layout::aos_vector<T>(got.begin(), got.end()), expected));
    const auto filtered =
        std::ranges::distance(d.c | std::views::filter([](const T& x) { return bucket(x) == 0; }));
    EXPECT_EQ(filtered, std::ranges::count_if(d.model, [](const T& x) { return bucket(x) == 0; }));
#endif
}

TYPED_TEST(algorithms, numeric) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    fixture_data<C, T> d(17, 100);
    const auto add = [](double acc, const T& v) { return acc + static_cast<double>(key(v)); };
    EXPECT_EQ(std::accumulate(d.c.begin(), d.c.end(), 0.0, add),
              std::accumulate(d.model.begin(), d.model.end(), 0.0, add));
    EXPECT_TRUE(
        std::equal(d.c.begin(), d.c.end(), d.model.begin(), d.model.end(), same_value<T>{}));
    EXPECT_TRUE(std::ranges::equal(d.c, d.model, same_value<T>{}));
    // The proxy compares with a value and with another proxy, leafwise, so the classic
    // std::equal works without T having an operator==. (std::ranges::equal with its default
    // std::ranges::equal_to cannot: that needs the common reference, T itself, to have ==.)
    EXPECT_TRUE(std::equal(d.c.begin(), d.c.end(), d.model.begin(), d.model.end()));
    const layout::aos_vector<T> other(d.model.begin(), d.model.end());
    EXPECT_TRUE(std::equal(d.c.begin(), d.c.end(), other.begin(), other.end()));
    d.model[50] = d.model[51];
    EXPECT_FALSE(std::equal(d.c.begin(), d.c.end(), d.model.begin(), d.model.end()));
}

} // namespace
