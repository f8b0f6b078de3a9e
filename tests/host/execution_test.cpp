// The host algorithms under exec::parallel against exec::serial against a std::vector model, on
// random data, every (element type, layout): copies and conversions (overlapping ones too),
// gather, scatter (distinct and repeated indices), permute, permute_in_place, sort_by_key and
// bin_by_key (separate keys and a key column of x itself). The policies force threads from one
// element (min_elements = 1) so that the threaded paths run at test sizes; the results must be
// bit for bit those of one thread. Linked with OpenMP where the compiler has it (CMakeLists.txt).
#include "host/test_types.hpp"

#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace {

using layout_test::all_combos;
using layout_test::combo_names;
using layout_test::Particle;
using layout_test::random_indices;
using layout_test::random_permutation;
using layout_test::random_values;
using layout_test::same_values;
using layout_test::shifted;
using layout_test::to_std;

/// Threads from one element on, so that small test sizes take the threaded paths.
constexpr layout::exec::parallel_policy threaded{1};

const std::vector<std::size_t> sizes = {0, 1, 63, 64, 65, 1000, 4099};

template <class Combo>
class parallel_algorithms : public ::testing::Test {};
TYPED_TEST_SUITE(parallel_algorithms, all_combos, combo_names);

TEST(parallel_algorithms_setup, threads_are_used_where_openmp_is) {
    // Without OpenMP the suite still checks both policies, but only one thread runs.
#if defined(_OPENMP)
    EXPECT_EQ(layout::detail::use_threads(threaded, 1000), omp_get_max_threads() > 1);
#else
    EXPECT_FALSE(layout::detail::use_threads(threaded, 1000));
#endif
    EXPECT_FALSE(layout::detail::use_threads(layout::exec::serial, 1000));
    EXPECT_FALSE(layout::detail::use_threads(layout::exec::parallel, 1000)); // below 32768
}

/// copy into every layout: the same layout (bulk bytes) and conversions.
TYPED_TEST(parallel_algorithms, copy_and_convert) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(1);
    for (std::size_t n : sizes) {
        const auto values = random_values<T>(g, n);
        const C src(values.begin(), values.end());
        auto check = [&]<class D>(D&&) {
            D serial(n), parallel(n), by_default(n);
            layout::copy(layout::exec::serial, src.cview(), serial.view());
            layout::copy(threaded, src.cview(), parallel.view());
            layout::copy(src.cview(), by_default.view());
            EXPECT_TRUE(same_values(to_std(serial), values)) << n;
            EXPECT_TRUE(same_values(to_std(parallel), values)) << n;
            EXPECT_TRUE(same_values(to_std(by_default), values)) << n;
            const D constructed = src; // the container's converting copy (threaded by default)
            EXPECT_TRUE(same_values(to_std(constructed), values)) << n;
        };
        check(C{});
        check(layout::aos_vector<T>{});
        check(layout::soa_vector<T>{});
        check(layout::aosoa<T, 8>{});
    }
}

/// Overlapping views of one container: the result is memmove's, with and without threads.
TYPED_TEST(parallel_algorithms, overlapping_copy_like_memmove) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    using L = typename TypeParam::policy;
    const std::size_t step = layout::mapping<T, L>::rounded_capacity(1);
    std::mt19937 g(2);
    for (std::size_t n : {std::size_t{5}, std::size_t{200}, std::size_t{3000}})
        for (std::size_t s_blocks : {0, 1, 3})
            for (std::size_t d_blocks : {0, 1, 70}) {
                const std::size_t s = s_blocks * step, d = d_blocks * step;
                const std::size_t total = std::max(s, d) + n;
                const auto values = random_values<T>(g, total);
                std::vector<T> want = values;
                std::copy(values.begin() + static_cast<std::ptrdiff_t>(s),
                          values.begin() + static_cast<std::ptrdiff_t>(s + n),
                          want.begin() + static_cast<std::ptrdiff_t>(d));
                C v(values.begin(), values.end());
                layout::copy(threaded, shifted(v.view(), static_cast<std::ptrdiff_t>(s), n),
                             shifted(v.view(), static_cast<std::ptrdiff_t>(d), n));
                EXPECT_TRUE(same_values(to_std(v), want)) << n << " from " << s << " to " << d;
            }
}

TYPED_TEST(parallel_algorithms, gather_scatter_permute) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(3);
    for (std::size_t n : sizes) {
        const auto values = random_values<T>(g, n);
        const C src(values.begin(), values.end());
        // gather, with repeated indices and into another layout
        const auto idx = random_indices<int>(g, n + 17, n);
        if (n > 0) {
            std::vector<T> want(idx.size());
            for (std::size_t i = 0; i < idx.size(); ++i)
                want[i] = values[static_cast<std::size_t>(idx[i])];
            C serial(idx.size()), parallel(idx.size());
            layout::soa_vector<T> converted(idx.size());
            layout::gather(layout::exec::serial, src, idx, serial);
            layout::gather(threaded, src, idx, parallel);
            layout::gather(threaded, src, idx, converted);
            EXPECT_TRUE(same_values(to_std(serial), want));
            EXPECT_TRUE(same_values(to_std(parallel), want));
            EXPECT_TRUE(same_values(to_std(converted), want));
        }
        // scatter with distinct indices (threads) and with repeats (last write wins)
        const auto perm = random_permutation<std::uint32_t>(g, n);
        const auto fill = random_values<T>(g, n);
        for (const auto& to : {perm, random_indices<std::uint32_t>(g, n, n)}) {
            std::vector<T> want = fill;
            for (std::size_t i = 0; i < n; ++i) want[to[i]] = values[i];
            C serial(fill.begin(), fill.end()), parallel(fill.begin(), fill.end());
            layout::aos_vector<T> converted(fill.begin(), fill.end());
            layout::scatter(layout::exec::serial, src, to, serial);
            layout::scatter(threaded, src, to, parallel);
            layout::scatter(threaded, src, to, converted);
            EXPECT_TRUE(same_values(to_std(serial), want)) << n;
            EXPECT_TRUE(same_values(to_std(parallel), want)) << n;
            EXPECT_TRUE(same_values(to_std(converted), want)) << n;
        }
        // permute and permute_in_place
        std::vector<T> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = values[perm[i]];
        C permuted(n);
        layout::permute(threaded, src, perm, permuted);
        EXPECT_TRUE(same_values(to_std(permuted), want));
        C serial(values.begin(), values.end()), parallel(values.begin(), values.end());
        layout::permute_in_place(layout::exec::serial, serial, perm);
        layout::permute_in_place(threaded, parallel.view(), perm);
        EXPECT_TRUE(same_values(to_std(serial), want));
        EXPECT_TRUE(same_values(to_std(parallel), want));
    }
}

/// The stable order of keys, as the model computes it.
template <class K>
std::vector<std::size_t> stable_order(const std::vector<K>& keys) {
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    return order;
}

TYPED_TEST(parallel_algorithms, sort_and_bin_by_separate_keys) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(4);
    for (std::size_t n : sizes) {
        const auto values = random_values<T>(g, n);
        const auto keys = random_indices<int>(g, n, 7); // few values: many ties, stability matters
        const auto order = stable_order(keys);
        std::vector<T> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = values[order[i]];
        auto sorted_keys = keys;
        std::stable_sort(sorted_keys.begin(), sorted_keys.end());

        auto serial_keys = keys, parallel_keys = keys, bin_keys = keys;
        C serial(values.begin(), values.end()), parallel(values.begin(), values.end()),
            binned(values.begin(), values.end());
        const auto serial_perm = layout::sort_by_key(layout::exec::serial, serial_keys, serial);
        const auto parallel_perm = layout::sort_by_key(threaded, parallel_keys, parallel);
        const auto bins = layout::bin_by_key(threaded, bin_keys, 7, binned.view());
        EXPECT_TRUE(std::ranges::equal(serial_perm, order));
        EXPECT_TRUE(std::ranges::equal(parallel_perm, order));
        EXPECT_TRUE(std::ranges::equal(bins.permutation, order));
        EXPECT_EQ(serial_keys, sorted_keys);
        EXPECT_EQ(parallel_keys, sorted_keys);
        EXPECT_EQ(bin_keys, sorted_keys);
        EXPECT_TRUE(same_values(to_std(serial), want));
        EXPECT_TRUE(same_values(to_std(parallel), want));
        EXPECT_TRUE(same_values(to_std(binned), want));
    }
}

/// Keys that are a column of x itself (SoA: column().span()): sorted with x, the same permutation.
struct Cell {
    int cell;
    float x, y;
    double w;
};

TEST(parallel_key_column, sort_and_bin_by_a_column_of_x) {
    std::mt19937 g(5);
    for (std::size_t n : sizes) {
        std::vector<Cell> values(n);
        for (auto& c : values)
            c = {layout_test::random_int(g, 0, 9), layout_test::random_float(g),
                 layout_test::random_float(g), layout_test::random_double(g)};
        std::vector<int> keys(n);
        for (std::size_t i = 0; i < n; ++i) keys[i] = values[i].cell;
        const auto order = stable_order(keys);
        auto check = [&](const layout::soa_vector<Cell>& x) {
            for (std::size_t i = 0; i < n; ++i) {
                const Cell c = x[i], w = values[order[i]];
                EXPECT_TRUE(c.cell == w.cell && c.x == w.x && c.y == w.y && c.w == w.w) << i;
            }
        };
        for (bool parallel : {false, true}) {
            layout::soa_vector<Cell> sorted(values.begin(), values.end());
            layout::soa_vector<Cell> binned(values.begin(), values.end());
            const auto sk = sorted.column<&Cell::cell>().span();
            const auto bk = binned.column<&Cell::cell>().span();
            const auto perm = parallel ? layout::sort_by_key(threaded, sk, sorted)
                                       : layout::sort_by_key(layout::exec::serial, sk, sorted);
            const auto bins = parallel ? layout::bin_by_key(threaded, bk, 10, binned)
                                       : layout::bin_by_key(layout::exec::serial, bk, 10, binned);
            EXPECT_TRUE(std::ranges::equal(perm, order));
            EXPECT_TRUE(std::ranges::equal(bins.permutation, order));
            check(sorted);
            check(binned);
        }
    }
}

} // namespace
