// Aliasing and failure in the host algorithms (<layout/algorithms.hpp>, <layout/copy.hpp>), each
// against a std::vector model:
//  - sort_by_key / bin_by_key with keys that are one of x's own columns (sorting by a field of
//    the element); keys that overlap x otherwise throw std::invalid_argument, changing nothing;
//  - layout::copy between overlapping views, same layout and across layouts: like memmove;
//  - the strong guarantee of sort_by_key / bin_by_key when an allocation fails (every
//    allocation in turn, through a replaced global operator new);
//  - bin_by_key with num_bins = SIZE_MAX: std::length_error, not a wrapped offsets array.

#include <layout/algorithms.hpp>
#include <layout/copy.hpp>
#include <layout/layout.hpp>

#include "test_types.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

// ---- a global operator new that fails on demand ---------------------------------------------------

#include "common/failing_new.hpp"

namespace {
using failing_new::allocations;
using failing_new::countdown;
} // namespace

namespace {

using namespace layout_test;

/// A struct with an integer field to bin by and a float field to sort by.
struct Cell {
    float energy;
    int cell;
    double mass;
    short tag;
};
static_assert(layout::leaf_count_v<Cell> == 4);

inline bool same_cell(const Cell& a, const Cell& b) {
    return a.energy == b.energy && a.cell == b.cell && a.mass == b.mass && a.tag == b.tag;
}

std::vector<Cell> random_cells(std::mt19937& g, std::size_t n, int cells) {
    std::vector<Cell> v(n);
    for (auto& c : v)
        c = Cell{random_float(g), random_int(g, 0, cells - 1), random_double(g),
                 static_cast<short>(random_int(g, -1000, 1000))};
    // ties in energy too, so that stability shows
    for (std::size_t i = 0; i + 1 < n; i += 3) v[i + 1].energy = v[i].energy;
    return v;
}

template <class C>
std::vector<Cell> cells_of(const C& c) {
    std::vector<Cell> out;
    for (std::size_t i = 0; i < c.size(); ++i) out.push_back(static_cast<Cell>(c[i]));
    return out;
}

::testing::AssertionResult same_cells(const std::vector<Cell>& got, const std::vector<Cell>& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!same_cell(got[i], want[i]))
            return ::testing::AssertionFailure()
                   << "element " << i << ": cell " << got[i].cell << " energy " << got[i].energy
                   << ", want cell " << want[i].cell << " energy " << want[i].energy;
    return ::testing::AssertionSuccess();
}

/// The model: a stable sort of the elements by one field; also the permutation.
template <class Key>
std::vector<std::size_t> stable_order(const std::vector<Cell>& v, Key key) {
    std::vector<std::size_t> perm(v.size());
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::size_t a, std::size_t b) { return key(v[a]) < key(v[b]); });
    return perm;
}

std::vector<Cell> reordered(const std::vector<Cell>& v, const std::vector<std::size_t>& perm) {
    std::vector<Cell> out;
    for (std::size_t p : perm) out.push_back(v[p]);
    return out;
}

constexpr std::size_t sizes[] = {0, 1, 2, 7, 100, 1000};

// ---- keys that are a column of x ------------------------------------------------------------------

TEST(key_column, sort_by_key_by_a_soa_column_sorts_the_elements_by_that_field) {
    std::mt19937 g(11);
    for (std::size_t n : sizes) {
        const auto values = random_cells(g, n, 5);
        layout::soa_vector<Cell> x(values.begin(), values.end());
        const auto want_perm = stable_order(values, [](const Cell& c) { return c.energy; });
        const auto perm = layout::sort_by_key(x.column<&Cell::energy>().span(), x);
        EXPECT_TRUE(std::ranges::equal(perm, want_perm)) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(x), reordered(values, want_perm))) << "n " << n;
        EXPECT_TRUE(std::ranges::is_sorted(x.column<&Cell::energy>().span()));

        // an integer column, through a view, with 32-bit indices
        const auto by_cell = stable_order(values, [](const Cell& c) { return c.cell; });
        layout::soa_vector<Cell> y(values.begin(), values.end());
        const auto perm32 =
            layout::sort_by_key<std::uint32_t>(y.column<&Cell::cell>().span(), y.view());
        EXPECT_TRUE(std::ranges::equal(perm32, by_cell)) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(y), reordered(values, by_cell))) << "n " << n;
    }
}

TEST(key_column, bin_by_key_by_a_soa_column_bins_the_elements_by_that_field) {
    std::mt19937 g(12);
    for (std::size_t n : sizes) {
        const int cells = 6;
        const auto values = random_cells(g, n, cells);
        layout::soa_vector<Cell> x(values.begin(), values.end());
        const auto want_perm = stable_order(values, [](const Cell& c) { return c.cell; });
        std::vector<std::size_t> want_offsets(cells + 1, 0);
        for (const Cell& c : values) ++want_offsets[static_cast<std::size_t>(c.cell) + 1];
        std::partial_sum(want_offsets.begin(), want_offsets.end(), want_offsets.begin());

        const auto bins = layout::bin_by_key(x.column<&Cell::cell>().span(), cells, x);
        EXPECT_TRUE(std::ranges::equal(bins.permutation, want_perm)) << "n " << n;
        EXPECT_TRUE(std::ranges::equal(bins.offsets, want_offsets)) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(x), reordered(values, want_perm))) << "n " << n;
    }
}

/// A key span that is one leaf of every element in other layouts: a single-leaf struct in AoS,
/// and one AoSoA block (n <= lanes: that leaf's lanes are contiguous).
TEST(key_column, other_layouts_where_a_leaf_is_contiguous) {
    struct Key {
        int k;
    };
    layout::aos_vector<Key> a = {{3}, {1}, {2}, {1}, {0}};
    layout::sort_by_key(std::span<int>(&a.data()->k, a.size()), a);
    std::vector<int> got;
    for (std::size_t i = 0; i < a.size(); ++i) got.push_back(static_cast<Key>(a[i]).k);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 1, 2, 3}));

    std::mt19937 g(13);
    const auto values = random_cells(g, 30, 4);
    layout::aosoa<Cell, 32> b(values.begin(), values.end());
    const auto by_cell = b.column<&Cell::cell>();
    const std::span<int> keys(&by_cell[0], b.size()); // lanes of one block: contiguous
    const auto bins = layout::bin_by_key(keys, 4, b);
    const auto want = stable_order(values, [](const Cell& c) { return c.cell; });
    EXPECT_TRUE(std::ranges::equal(bins.permutation, want));
    EXPECT_TRUE(same_cells(cells_of(b), reordered(values, want)));
}

template <class L>
class key_overlap : public ::testing::Test {};
TYPED_TEST_SUITE(key_overlap, all_layouts, layout_names);

/// Keys inside x's memory that are not a whole column (shifted by one element, or an AoS
/// column, whose values are sizeof(T) apart): rejected before anything is written.
TYPED_TEST(key_overlap, keys_overlapping_x_otherwise_throw_and_change_nothing) {
    using C = typename TypeParam::template container<Cell>;
    std::mt19937 g(14);
    const std::size_t n = 40;
    const auto values = random_cells(g, n, 4);
    C x(values.begin(), values.end());
    auto first_cell = [&] { return &x.template column<&Cell::cell>()[0]; };
    // one element further on: overlaps the column (or, for AoS/AoSoA, the elements) but is not it
    std::vector<std::span<int>> overlapping{std::span<int>(first_cell() + 1, n)};
    // starting in the leaf before it, where the column does not open the block (split's part)
    if (static_cast<const void*>(first_cell()) != x.view().storage().first_byte())
        overlapping.emplace_back(first_cell() - 1, n);
    for (std::span<int> keys : overlapping) {
        const std::vector<Cell> before = cells_of(x);
        const std::vector<int> keys_before(keys.begin(), keys.end());
        EXPECT_THROW(layout::sort_by_key(keys, x), std::invalid_argument);
        EXPECT_THROW(layout::bin_by_key(keys, 1u << 20, x.view()), std::invalid_argument);
        EXPECT_TRUE(same_cells(cells_of(x), before));
        EXPECT_TRUE(std::ranges::equal(keys, keys_before));
    }
    // keys that overlap nothing of x still work, whatever their neighbours
    std::vector<int> separate(n);
    for (std::size_t i = 0; i < n; ++i) separate[i] = values[i].cell;
    const auto bins = layout::bin_by_key(separate, 4, x);
    const auto want = stable_order(values, [](const Cell& c) { return c.cell; });
    EXPECT_TRUE(std::ranges::equal(bins.permutation, want));
    EXPECT_TRUE(same_cells(cells_of(x), reordered(values, want)));
    EXPECT_TRUE(std::ranges::is_sorted(separate));
}

// ---- overlapping copies ---------------------------------------------------------------------------

template <class C>
class overlapping_copy : public ::testing::Test {};
TYPED_TEST_SUITE(overlapping_copy, all_combos, combo_names);

/// dst = v[d, d + n), src = v[s, s + n) of one container: afterwards dst holds the old src, as
/// with memmove, forwards and backwards, by less than and more than n.
TYPED_TEST(overlapping_copy, same_layout_like_memmove) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    using L = typename TypeParam::policy;
    const std::size_t step = layout::mapping<T, L>::rounded_capacity(1); // views start at a block
    std::mt19937 g(15);
    for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{37}, std::size_t{200}}) {
        for (std::size_t s_blocks : {0, 1, 3})
            for (std::size_t d_blocks : {0, 1, 2, 5}) {
                const std::size_t s = s_blocks * step, d = d_blocks * step;
                const std::size_t total = std::max(s, d) + n;
                const auto values = random_values<T>(g, total);
                C v(values.begin(), values.end());
                const auto whole = v.view();
                layout::copy(shifted(whole, static_cast<std::ptrdiff_t>(s), n),
                             shifted(whole, static_cast<std::ptrdiff_t>(d), n));
                std::vector<T> want = values;
                std::copy(values.begin() + static_cast<std::ptrdiff_t>(s),
                          values.begin() + static_cast<std::ptrdiff_t>(s + n),
                          want.begin() + static_cast<std::ptrdiff_t>(d));
                EXPECT_TRUE(same_values(to_std(v), want))
                    << "n " << n << ", from " << s << " to " << d;
            }
    }
}

/// Two layouts over the same bytes: an AoS view of an aosoa<4> block of Particles (a block of 4
/// Particles is 4 * 32 bytes, the same as 4 structs) and a SoA view whose columns are shifted.
TEST(overlapping_copy_across_layouts, reads_the_old_source) {
    std::mt19937 g(16);
    for (std::size_t n : {4u, 8u, 64u, 400u}) {
        const auto values = random_values<Particle>(g, n);
        layout::aosoa<Particle, 4> blocks(values.begin(), values.end());
        const auto src = blocks.view();
        const layout::view<Particle, layout::policy::aos> dst(
            reinterpret_cast<Particle*>(src.storage().data), n);
        layout::copy(src, dst);
        std::vector<Particle> got(dst.begin(), dst.end());
        EXPECT_TRUE(same_values(got, values)) << "aosoa<4> -> aos over its block, n " << n;

        // and back: dst (aos, holding values) into the aosoa<4> over the same bytes
        layout::copy(dst, src);
        EXPECT_TRUE(same_values(to_std(blocks), values)) << "aos -> aosoa<4> over its block";
    }
    // SoA source, AoS destination inside the SoA block: the first columns are overwritten
    // while later ones are still to be read
    for (std::size_t n : {3u, 50u, 300u}) {
        const auto values = random_values<Particle>(g, n);
        layout::soa_vector<Particle> soa(values.begin(), values.end());
        const auto src = soa.view();
        const layout::view<Particle, layout::policy::aos> dst(
            reinterpret_cast<Particle*>(src.storage().columns[1]), n);
        layout::copy(src, dst);
        std::vector<Particle> got(dst.begin(), dst.end());
        EXPECT_TRUE(same_values(got, values)) << "soa -> aos inside its block, n " << n;
    }
}

// ---- the strong guarantee --------------------------------------------------------------------------

/// For N = 1, 2, ...: run op with the N-th allocation failing. Either it throws std::bad_alloc
/// and the keys and elements are exactly as before, or it made fewer than N allocations.
template <class Op>
void for_each_failure_point(const std::vector<Cell>& values, bool keys_in_x, Op op) {
    bool failed_once = false;
    for (long fail_at = 1;; ++fail_at) {
        layout::soa_vector<Cell> x(values.begin(), values.end());
        std::vector<int> own_keys(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) own_keys[i] = values[i].cell;
        const std::span<int> keys =
            keys_in_x ? x.column<&Cell::cell>().span() : std::span<int>(own_keys);
        const std::vector<int> keys_before(keys.begin(), keys.end());
        allocations = 0;
        countdown = fail_at;
        bool threw = false;
        try {
            op(keys, x);
        } catch (const std::bad_alloc&) {
            threw = true;
        }
        countdown = 0;
        if (!threw) {
            EXPECT_LT(allocations, fail_at) << "allocation " << fail_at << " failed silently";
            break;
        }
        failed_once = true;
        EXPECT_TRUE(std::ranges::equal(keys, keys_before))
            << "allocation " << fail_at << " failed and the keys changed";
        EXPECT_TRUE(same_cells(cells_of(x), values))
            << "allocation " << fail_at << " failed and the elements changed";
        if (fail_at > 1000) break;
    }
    EXPECT_TRUE(failed_once);
}

TEST(strong_guarantee, sort_by_key_changes_nothing_when_an_allocation_fails) {
    std::mt19937 g(17);
    const auto values = random_cells(g, 300, 7);
    for (bool keys_in_x : {false, true})
        for_each_failure_point(values, keys_in_x,
                               [](std::span<int> keys, auto& x) { layout::sort_by_key(keys, x); });
}

TEST(strong_guarantee, bin_by_key_changes_nothing_when_an_allocation_fails) {
    std::mt19937 g(18);
    const auto values = random_cells(g, 300, 7);
    for (bool keys_in_x : {false, true})
        for_each_failure_point(values, keys_in_x, [](std::span<int> keys, auto& x) {
            layout::bin_by_key<std::uint32_t>(keys, 7, x.view());
        });
}

TEST(strong_guarantee, keys_alone_unchanged_when_an_allocation_fails) {
    std::mt19937 g(19);
    const auto values = random_cells(g, 100, 5);
    for_each_failure_point(values, false,
                           [](std::span<int> keys, auto&) { layout::sort_by_key(keys); });
    for_each_failure_point(values, false,
                           [](std::span<int> keys, auto&) { layout::bin_by_key(keys, 5); });
}

// ---- bin counts -----------------------------------------------------------------------------------

TEST(bin_count, num_bins_whose_offsets_cannot_be_held_throw_length_error) {
    std::vector<int> none;
    EXPECT_THROW(layout::bin_by_key(none, std::numeric_limits<std::size_t>::max()),
                 std::length_error);
    layout::soa_vector<Cell> x;
    EXPECT_THROW(layout::bin_by_key(none, std::numeric_limits<std::size_t>::max(), x),
                 std::length_error);
    std::vector<int> some = {0, 1};
    layout::aos_vector<Cell> y(2);
    EXPECT_THROW(
        layout::bin_by_key<std::uint32_t>(some, std::numeric_limits<std::size_t>::max(), y),
        std::length_error);
    // the largest count that fits still works for no keys... within memory: a few bins do
    const auto b = layout::bin_by_key(none, 3, x);
    EXPECT_EQ(b.offsets, (std::vector<std::size_t>{0, 0, 0, 0}));
}

} // namespace
