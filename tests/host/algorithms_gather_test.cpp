// gather, scatter, permute, permute_in_place, sort_by_key and bin_by_key (<layout/algorithms.hpp>)
// on every (element type, layout) pair, each compared with the same operation on a
// std::vector<T> model (gather, scatter and permute through common/gather_scatter_cases.hpp,
// which the device test runs too); their errors: size mismatch, overlap, and (bounds checks
// forced on in this file) out-of-range and repeated indices.

// Bounds checks on whatever the build type: the index tests need them.
#undef LAYOUT_CHECK_BOUNDS
#define LAYOUT_CHECK_BOUNDS 1

#include <layout/algorithms.hpp>

#include "common/gather_scatter_cases.hpp"
#include "expect_throw.hpp"
#include "test_types.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace layout_test;

/// Sizes around the AoSoA lane widths used in the tests (3, 4, 32): empty, one, one short of and
/// one past a 32-lane block, and a size that is a multiple of none of them.
constexpr std::size_t sizes[] = {0, 1, 31, 33, 1000};

template <class Combo>
using cases = gather_scatter_cases::cases<Combo, layout::host_memory>;

template <class C>
class gather_scatter : public ::testing::Test {};
TYPED_TEST_SUITE(gather_scatter, all_combos, combo_names);

// ---- gather -------------------------------------------------------------------------------------

TYPED_TEST(gather_scatter, gather_matches_model) {
    std::mt19937 g(1);
    cases<TypeParam>::gather(g, sizes);
}

TYPED_TEST(gather_scatter, gather_across_layouts_and_index_types) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(2);
    const std::size_t n = 1000, m = 333;
    const auto values = random_values<T>(g, n);
    const C src(values.begin(), values.end());
    const auto idx64 = random_indices<std::int64_t>(g, m, n);
    std::vector<T> want(m);
    for (std::size_t i = 0; i < m; ++i) want[i] = values[static_cast<std::size_t>(idx64[i])];

    // From this layout into each other layout, and back, with several index types.
    layout::soa_vector<T> soa(m);
    layout::gather(src.view(), std::span<const std::int64_t>(idx64), soa.view());
    EXPECT_TRUE(same_values(to_std(soa), want));

    layout::aos_vector<T> aos(m);
    const std::vector<int> idx_int(idx64.begin(), idx64.end());
    layout::gather(src.cview(), idx_int, aos);
    EXPECT_TRUE(same_values(to_std(aos), want));

    layout::aosoa<T, 8> blocks(m);
    const std::vector<std::uint16_t> idx16(idx64.begin(), idx64.end());
    layout::gather(src, idx16, blocks);
    EXPECT_TRUE(same_values(to_std(blocks), want));

    // Into this layout from a plain std::vector<T> viewed as AoS.
    std::vector<T> plain = values;
    C dst(m);
    layout::gather(layout::view<const T, layout::policy::aos>(plain.data(), n),
                   std::span<const std::int64_t>(idx64), dst.view());
    EXPECT_TRUE(same_values(to_std(dst), want));
}

// ---- scatter ------------------------------------------------------------------------------------

TYPED_TEST(gather_scatter, scatter_matches_model) {
    std::mt19937 g(3);
    cases<TypeParam>::scatter(g, sizes);
}

TYPED_TEST(gather_scatter, scatter_with_repeated_indices_keeps_the_last_write) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(4);
    for (std::size_t n : sizes) {
        const std::size_t m = n / 3 + 1; // many collisions
        const auto values = random_values<T>(g, n);
        const C src(values.begin(), values.end());
        const auto idx = random_indices<int>(g, n, m);
        const auto before = random_values<T>(g, m);
        C dst(before.begin(), before.end());
        layout::scatter(src, idx, dst);
        std::vector<T> want = before;
        for (std::size_t i = 0; i < n; ++i) want[static_cast<std::size_t>(idx[i])] = values[i];
        EXPECT_TRUE(same_values(to_std(dst), want)) << "n " << n;
    }
}

TYPED_TEST(gather_scatter, scatter_undoes_gather_by_a_permutation) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(5);
    const std::size_t n = 1000;
    const auto values = random_values<T>(g, n);
    const C original(values.begin(), values.end());
    const auto perm = random_permutation<std::uint32_t>(g, n);
    layout::soa_vector<T> shuffled(n);
    layout::gather(original, perm, shuffled);
    C back(n);
    layout::scatter(shuffled, perm, back);
    EXPECT_TRUE(same_values(to_std(back), values));
}

// ---- permute ------------------------------------------------------------------------------------

TYPED_TEST(gather_scatter, permute_and_permute_in_place) {
    std::mt19937 g(6);
    cases<TypeParam>::permute(g, sizes);
}

// On the host, permute_in_place reorders within the container's block: views taken before stay
// valid.
TYPED_TEST(gather_scatter, permute_in_place_keeps_the_block) {
    std::mt19937 g(10);
    const auto values = random_values<typename TypeParam::value_type>(g, 33);
    typename TypeParam::container c(values.begin(), values.end());
    const auto* first = &c.view().storage().at(0).template leaf<0>();
    layout::permute_in_place(c, random_permutation<std::uint32_t>(g, values.size()));
    EXPECT_EQ(&c.view().storage().at(0).template leaf<0>(), first);
}

// ---- sort_by_key and bin_by_key -------------------------------------------------------------------

TYPED_TEST(gather_scatter, sort_by_key_is_a_stable_sort_of_every_field) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(7);
    for (std::size_t n : sizes) {
        const auto values = random_values<T>(g, n);
        std::vector<int> keys(n);
        for (auto& k : keys) k = random_int(g, -5, 5); // many ties
        std::vector<std::size_t> want_perm(n);
        std::iota(want_perm.begin(), want_perm.end(), std::size_t{0});
        std::stable_sort(want_perm.begin(), want_perm.end(),
                         [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
        std::vector<T> want(n);
        std::vector<int> want_keys(n);
        for (std::size_t i = 0; i < n; ++i) {
            want[i] = values[want_perm[i]];
            want_keys[i] = keys[want_perm[i]];
        }

        C c(values.begin(), values.end());
        auto sorted_keys = keys;
        const std::vector<std::size_t> perm = layout::sort_by_key(sorted_keys, c);
        EXPECT_EQ(perm, want_perm) << "n " << n;
        EXPECT_EQ(sorted_keys, want_keys) << "n " << n;
        EXPECT_TRUE(same_values(to_std(c), want)) << "n " << n;

        // Float keys, a 32-bit permutation, through a view.
        std::vector<float> fkeys(keys.begin(), keys.end());
        C d(values.begin(), values.end());
        const std::vector<std::uint32_t> perm32 =
            layout::sort_by_key<std::uint32_t>(fkeys, d.view());
        EXPECT_TRUE(std::equal(perm32.begin(), perm32.end(), want_perm.begin(), want_perm.end()));
        EXPECT_TRUE(same_values(to_std(d), want)) << "n " << n;
    }
}

TYPED_TEST(gather_scatter, bin_by_key_groups_by_bin_in_order) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(8);
    for (std::size_t n : sizes) {
        const std::size_t num_bins = 17; // some bins stay empty at small n
        const auto values = random_values<T>(g, n);
        auto keys = random_indices<std::uint32_t>(g, n, num_bins);
        const auto original_keys = keys;
        C c(values.begin(), values.end());
        const layout::bins<std::uint32_t> b = layout::bin_by_key<std::uint32_t>(keys, num_bins, c);

        ASSERT_EQ(b.offsets.size(), num_bins + 1);
        ASSERT_EQ(b.permutation.size(), n);
        EXPECT_EQ(b.offsets.front(), 0u);
        EXPECT_EQ(b.offsets.back(), n);
        std::vector<std::size_t> want_perm(n);
        std::iota(want_perm.begin(), want_perm.end(), std::size_t{0});
        std::stable_sort(want_perm.begin(), want_perm.end(), [&](std::size_t x, std::size_t y) {
            return original_keys[x] < original_keys[y];
        });
        EXPECT_TRUE(std::equal(b.permutation.begin(), b.permutation.end(), want_perm.begin(),
                               want_perm.end()));
        for (std::size_t bin = 0; bin < num_bins; ++bin) {
            const auto count = std::count(original_keys.begin(), original_keys.end(), bin);
            EXPECT_EQ(b.offsets[bin + 1] - b.offsets[bin], static_cast<std::uint32_t>(count));
            for (std::uint32_t i = b.offsets[bin]; i < b.offsets[bin + 1]; ++i)
                EXPECT_EQ(keys[i], bin);
        }
        std::vector<T> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = values[want_perm[i]];
        EXPECT_TRUE(same_values(to_std(c), want)) << "n " << n;
    }
}

// ---- errors -------------------------------------------------------------------------------------

template <class F>
void expect_length_error(F f, const std::string& function) {
    try {
        f();
        ADD_FAILURE() << function << ": no exception";
    } catch (const std::length_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("size mismatch"), std::string::npos) << what;
        EXPECT_NE(what.find(function), std::string::npos) << what;
    }
}

TYPED_TEST(gather_scatter, size_mismatch_throws_and_writes_nothing) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(9);
    const auto values = random_values<T>(g, 40);
    const C src(values.begin(), values.end());
    const auto before = random_values<T>(g, 39);
    C dst(before.begin(), before.end());
    const std::vector<std::uint32_t> idx40 = random_permutation<std::uint32_t>(g, 40);

    expect_length_error([&] { layout::gather(src, idx40, dst); }, "layout::gather");
    expect_length_error([&] { layout::scatter(src, std::span(idx40).first(39), dst); },
                        "layout::scatter");
    expect_length_error([&] { layout::permute(src, idx40, dst); }, "layout::permute");
    expect_length_error([&] { layout::permute_in_place(dst, idx40); }, "layout::permute_in_place");
    std::vector<int> keys(40);
    expect_length_error([&] { layout::sort_by_key(keys, dst); }, "layout::sort_by_key");
    expect_length_error([&] { layout::bin_by_key(keys, 4, dst); }, "layout::bin_by_key");
    EXPECT_TRUE(same_values(to_std(dst), before));
}

TYPED_TEST(gather_scatter, overlapping_source_and_destination_throw) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(10);
    const auto values = random_values<T>(g, 40);
    C c(values.begin(), values.end());
    const std::vector<std::uint32_t> idx = random_permutation<std::uint32_t>(g, 40);
    EXPECT_THROW(layout::gather(c.cview(), idx, c.view()), std::invalid_argument);
    EXPECT_THROW(layout::scatter(c.view(), idx, c.view()), std::invalid_argument);
    EXPECT_THROW(layout::permute(c, idx, c), std::invalid_argument);
    EXPECT_TRUE(same_values(to_std(c), values));
}

TEST(gather_scatter_errors, overlap_is_found_through_any_column) {
    // Two SoA views sharing one column (the second view's y is the first view's x).
    std::vector<float> a(10), b(10), c(10);
    struct XY {
        float x, y;
    };
    const layout::view<XY, layout::policy::soa> v1(10, a.data(), b.data());
    const layout::view<XY, layout::policy::soa> v2(10, c.data(), a.data());
    const std::vector<int> idx(10, 0);
    EXPECT_THROW(layout::gather(v1, idx, v2), std::invalid_argument);
    // Adjacent but disjoint: allowed.
    std::vector<XY> both(20);
    const layout::view<XY, layout::policy::aos> lo(both.data(), 10), hi(both.data() + 10, 10);
    EXPECT_NO_THROW(layout::gather(lo, idx, hi));
}

// The same exceptions and messages as the device algorithms (tests/cuda/algorithms_test.cu,
// cuda_gather_scatter_errors), and nothing written before they are thrown.
TEST(gather_scatter_errors, out_of_range_index_throws_naming_the_first_position) {
    std::mt19937 g(17);
    const auto values = random_values<Particle>(g, 10);
    layout::soa_vector<Particle> src(values.begin(), values.end());
    layout::aos_vector<Particle> dst(5);
    const auto before = to_std(dst);
    const std::vector<std::uint32_t> bad = {1, 2, 10, 3, 11};
    expect_throw_containing<std::out_of_range>(
        [&] { layout::gather(src, bad, dst); },
        "layout::gather: index 10 at position 2 is out of range: the source's size is 10");
    EXPECT_TRUE(same_values(to_std(dst), before)) << "dst was written";
    layout::aosoa<Particle, 4> small(5);
    const std::vector<std::uint32_t> oob = {0, 1, 2, 3, 9};
    expect_throw_containing<std::out_of_range>(
        [&] { layout::scatter(small, oob, dst); },
        "layout::scatter: index 9 at position 4 is out of range: the destination's size is 5");
    const std::vector<int> negative = {0, -1, 2, 3, 4};
    expect_throw_containing<std::out_of_range>([&] { layout::gather(src, negative, dst); },
                                               "index -1 at position 1");
    const std::vector<std::int8_t> narrow = {0, 1, 12, 3, 4};
    expect_throw_containing<std::out_of_range>([&] { layout::gather(src, narrow, dst); },
                                               "index 12 at position 2"); // a number, not a char
    std::vector<unsigned> keys = {0, 3, 4, 1};
    expect_throw_containing<std::out_of_range>(
        [&] { layout::bin_by_key(keys, 4); },
        "layout::bin_by_key: key 4 at position 2 is out of range: the number of bins is 4");
    EXPECT_EQ(keys, (std::vector<unsigned>{0, 3, 4, 1})) << "keys were reordered";
}

TEST(gather_scatter_errors, permute_rejects_what_is_not_a_permutation) {
    layout::aos_vector<Mixed> src(5), dst(5);
    const std::vector<int> twice = {0, 3, 2, 3, 1};
    expect_throw_containing<std::invalid_argument>(
        [&] { layout::permute(src, twice, dst); },
        "layout::permute: not a permutation: index 3 at position 3 appeared before, at position 1");
    expect_throw_containing<std::invalid_argument>([&] { layout::permute_in_place(dst, twice); },
                                                   "layout::permute_in_place: not a permutation");
    const std::vector<int> oob = {0, 1, 2, 3, 5};
    expect_throw_containing<std::out_of_range>(
        [&] { layout::permute(src, oob, dst); },
        "layout::permute: index 5 at position 4 is out of range: the permutation's size is 5");
    // The first bad position wins, whichever kind it is.
    const std::vector<int> repeat_then_oob = {1, 1, 7, 3, 4};
    EXPECT_THROW(layout::permute(src, repeat_then_oob, dst), std::invalid_argument);
    const std::vector<int> oob_then_repeat = {9, 1, 1, 3, 4};
    EXPECT_THROW(layout::permute(src, oob_then_repeat, dst), std::out_of_range);
}

TEST(gather_scatter_errors, index_type_too_narrow_for_the_size) {
    std::vector<int> keys(300);
    EXPECT_THROW(layout::sort_by_key<std::uint8_t>(keys), std::length_error);
    EXPECT_THROW(layout::bin_by_key<std::uint8_t>(keys, 1), std::length_error);
    std::vector<int> keys255(256);
    EXPECT_NO_THROW(layout::sort_by_key<std::uint8_t>(keys255)); // indices up to 255 fit
}

// ---- worked examples from the header ------------------------------------------------------------

TEST(gather_scatter_examples, documented_results) {
    std::vector<int> keys = {3, 1, 3, 0};
    EXPECT_EQ(layout::sort_by_key(keys), (std::vector<std::size_t>{3, 1, 0, 2}));
    EXPECT_EQ(keys, (std::vector<int>{0, 1, 3, 3}));

    std::vector<unsigned> cell = {2, 0, 2, 1};
    const auto b = layout::bin_by_key(cell, 4);
    EXPECT_EQ(b.permutation, (std::vector<std::size_t>{1, 3, 0, 2}));
    EXPECT_EQ(b.offsets, (std::vector<std::size_t>{0, 1, 2, 4, 4}));

    layout::soa_vector<Vec3> src = {{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}};
    layout::aos_vector<Vec3> dst(3);
    layout::gather(src, std::vector<int>{3, 3, 0}, dst);
    EXPECT_EQ(dst[0].load().x, 4);
    EXPECT_EQ(dst[1].load().x, 4);
    EXPECT_EQ(dst[2].load().x, 1);

    layout::aos_vector<Vec3> out = {{0, 0, 9}, {0, 0, 9}, {0, 0, 9}};
    layout::scatter(layout::soa_vector<Vec3>{{1, 0, 0}, {2, 0, 0}, {3, 0, 0}},
                    std::vector<int>{2, 0, 2}, out);
    EXPECT_EQ(out[0].load().x, 2); // b
    EXPECT_EQ(out[1].load().z, 9); // untouched
    EXPECT_EQ(out[2].load().x, 3); // c: the last write wins
}

// ---- beyond 2^32 elements --------------------------------------------------------------------------

struct Pair {
    std::uint8_t a, b;
};

TEST(gather_scatter_large, indices_beyond_32_bits) {
    // 2^32 + 64 elements; only the pages the test touches are ever backed by memory.
    const std::size_t n = (std::size_t{1} << 32) + 64;
    std::unique_ptr<std::uint8_t[]> a, b;
    std::unique_ptr<Pair[]> aos;
    try {
        a.reset(new std::uint8_t[n]);
        b.reset(new std::uint8_t[n]);
        aos.reset(new Pair[n]);
    } catch (const std::bad_alloc&) {
        GTEST_SKIP() << "cannot reserve 3 x 4 GiB of address space";
    }
    const std::vector<std::uint64_t> idx = {n - 1, std::size_t{1} << 31, (std::size_t{1} << 32) + 5,
                                            7};
    for (std::size_t k = 0; k < idx.size(); ++k) {
        a[idx[k]] = static_cast<std::uint8_t>(10 + k);
        b[idx[k]] = static_cast<std::uint8_t>(20 + k);
        aos[idx[k]] = {static_cast<std::uint8_t>(30 + k), static_cast<std::uint8_t>(40 + k)};
    }
    const layout::view<const Pair, layout::policy::soa> soa_src(n, a.get(), b.get());
    const layout::view<const Pair, layout::policy::aos> aos_src(aos.get(), n);
    layout::soa_vector<Pair> got(idx.size());
    layout::aos_vector<Pair> got_aos(idx.size());
    layout::gather(soa_src, idx, got);
    layout::gather(aos_src, idx, got_aos);
    for (std::size_t k = 0; k < idx.size(); ++k) {
        const int kk = static_cast<int>(k);
        EXPECT_EQ(int{got[k].load().a}, 10 + kk);
        EXPECT_EQ(int{got[k].load().b}, 20 + kk);
        EXPECT_EQ(int{got_aos[k].load().a}, 30 + kk);
        EXPECT_EQ(int{got_aos[k].load().b}, 40 + kk);
    }
    // And back: scatter to the same far positions.
    layout::soa_vector<Pair> values = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
    const layout::view<Pair, layout::policy::soa> soa_dst(n, a.get(), b.get());
    layout::scatter(values, idx, soa_dst);
    EXPECT_EQ(int{a[n - 1]}, 1);
    EXPECT_EQ(int{b[(std::size_t{1} << 32) + 5]}, 6);
}

} // namespace
