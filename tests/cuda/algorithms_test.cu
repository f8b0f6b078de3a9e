// layout::cuda::gather, scatter, permute, permute_in_place, sort_by_key and bin_by_key
// (<layout/cuda/algorithms.hpp>) on every (element type, layout) pair, against the same
// operation on a std::vector<T> model on the host (std::stable_sort for the sorts; gather,
// scatter and permute through common/gather_scatter_cases.hpp, which the host test runs too,
// here through the one-name algorithms on device containers); and their errors, with bounds
// checks forced on in this file. Skips without a GPU.

#undef LAYOUT_CHECK_BOUNDS
#define LAYOUT_CHECK_BOUNDS 1

#include <layout/algorithms.hpp>
#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/vector.hpp>

#include "common/gather_scatter_cases.hpp"
#include "gpu_test.hpp"
#include "host/expect_throw.hpp"
#include "host/test_types.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace layout_test;
using layout::cuda::device_memory;

constexpr std::size_t sizes[] = {0, 1, 31, 33, 1000};

template <class T, class Policy>
using device_vector = layout::vector<T, Policy, device_memory>;
template <class T, class Policy>
using host_vector = layout::vector<T, Policy, layout::host_memory>;

/// A std::vector in device memory, as a layout::cuda::aos_vector.
template <class E>
layout::cuda::aos_vector<E> to_device(const std::vector<E>& v) {
    return layout::aos_vector<E>(v.begin(), v.end());
}
template <class E>
std::vector<E> to_host(const layout::cuda::aos_vector<E>& d) {
    const layout::aos_vector<E> h = d;
    return std::vector<E>(h.begin(), h.end());
}

/// Every leaf as a double (exact for every leaf type of the test structs).
template <class T>
std::vector<double> leaves(const T& value) {
    return std::apply([](const auto&... leaf) { return std::vector<double>{double(leaf)...}; },
                      tie(value));
}

template <class Combo>
using cases = gather_scatter_cases::cases<Combo, device_memory>;

template <class C>
class cuda_gather_scatter : public gpu_test {};
TYPED_TEST_SUITE(cuda_gather_scatter, all_combos, combo_names);

// ---- gather -------------------------------------------------------------------------------------

TYPED_TEST(cuda_gather_scatter, gather_matches_model) {
    std::mt19937 g(11);
    cases<TypeParam>::gather(g, sizes);
}

TYPED_TEST(cuda_gather_scatter, gather_across_layouts_index_types_and_forms) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(12);
    const std::size_t n = 1000, m = 333;
    const auto values = random_values<T>(g, n);
    const auto src = in_memory<T, P, device_memory>(values, {});
    const auto idx = random_indices<std::int64_t>(g, m, n);
    std::vector<T> want(m);
    for (std::size_t i = 0; i < m; ++i) want[i] = values[static_cast<std::size_t>(idx[i])];
    const auto d_idx = to_device(idx);

    // Container of indices, into SoA.
    layout::cuda::soa_vector<T> soa(m);
    layout::cuda::gather(src, d_idx, soa);
    EXPECT_TRUE(same_values(elements(soa), want));

    // Pointer and count, from a read-only view, into AoS, on a stream.
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    layout::cuda::aos_vector<T> aos(m);
    layout::cuda::gather(src.cview(), d_idx.view().storage().data, m, aos.view(), stream);
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
    EXPECT_TRUE(same_values(elements(aos), want));

    // A std::span over device memory of 16-bit indices, into AoSoA<8>.
    const auto d_idx16 = to_device(std::vector<std::uint16_t>(idx.begin(), idx.end()));
    layout::cuda::aosoa<T, 8> blocks(m);
    layout::cuda::gather(src, std::span<const std::uint16_t>(d_idx16.view().storage().data, m),
                         blocks);
    EXPECT_TRUE(same_values(elements(blocks), want));
}

// ---- scatter ------------------------------------------------------------------------------------

TYPED_TEST(cuda_gather_scatter, scatter_matches_model) {
    std::mt19937 g(13);
    cases<TypeParam>::scatter(g, sizes);
}

/// With repeated indices, exactly what the device contract promises: each leaf of dst[j] is that
/// leaf of one of the source elements that name j (not necessarily the same one for every leaf),
/// and elements nobody names are untouched.
TYPED_TEST(cuda_gather_scatter, scatter_with_repeated_indices_writes_one_colliding_value_per_leaf) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(14);
    for (std::size_t n :
         {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{100000}}) {
        const std::size_t m = n / 3 + 1;
        const auto values = random_values<T>(g, n);
        const auto idx = random_indices<int>(g, n, m);
        const auto before = random_values<T>(g, m + 5);
        auto dst = in_memory<T, P, device_memory>(before, {});
        layout::cuda::scatter(in_memory<T, P, device_memory>(values, {}), to_device(idx), dst);
        const auto got = elements(dst);

        std::vector<std::vector<std::size_t>> writers(m + 5);
        for (std::size_t i = 0; i < n; ++i) writers[static_cast<std::size_t>(idx[i])].push_back(i);
        std::size_t checked = 0;
        for (std::size_t j = 0; j < m + 5; ++j) {
            if (writers[j].empty()) {
                EXPECT_TRUE(same(got[j], before[j])) << "untouched element " << j << " changed";
                continue;
            }
            const auto leaf = leaves(got[j]);
            for (std::size_t l = 0; l < leaf.size(); ++l) {
                const bool from_a_writer =
                    std::any_of(writers[j].begin(), writers[j].end(),
                                [&](std::size_t i) { return leaves(values[i])[l] == leaf[l]; });
                EXPECT_TRUE(from_a_writer)
                    << "element " << j << ", leaf " << l << " = " << leaf[l]
                    << " is from none of its " << writers[j].size() << " writers";
                ++checked;
            }
        }
        EXPECT_GT(checked, 0u);
    }
}

// ---- permute ------------------------------------------------------------------------------------

TYPED_TEST(cuda_gather_scatter, permute_and_permute_in_place) {
    std::mt19937 g(15);
    cases<TypeParam>::permute(g, sizes);
}

// ---- sort_by_key and bin_by_key -------------------------------------------------------------------

TYPED_TEST(cuda_gather_scatter, sort_by_key_matches_std_stable_sort) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(16);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33},
                          std::size_t{1000}, std::size_t{70000}}) {
        const auto values = random_values<T>(g, n);
        std::vector<int> keys(n);
        for (auto& k : keys) k = random_int(g, -50, 50); // negative keys and many ties
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

        auto d_keys = to_device(keys);
        auto c = in_memory<T, P, device_memory>(values, {});
        const auto perm = layout::cuda::sort_by_key(d_keys, c);
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        const auto got_perm = to_host(perm);
        EXPECT_TRUE(
            std::equal(got_perm.begin(), got_perm.end(), want_perm.begin(), want_perm.end()))
            << "n " << n;
        EXPECT_EQ(to_host(d_keys), want_keys) << "n " << n;
        EXPECT_TRUE(same_values(elements(c), want)) << "n " << n;

        // Float keys (distinct from -0.0), a 64-bit permutation, through a view.
        auto d_fkeys = to_device(std::vector<float>(keys.begin(), keys.end()));
        auto d = in_memory<T, P, device_memory>(values, {});
        const auto perm64 = layout::cuda::sort_by_key<std::uint64_t>(d_fkeys, d.view());
        const auto got64 = to_host(perm64);
        EXPECT_TRUE(std::equal(got64.begin(), got64.end(), want_perm.begin(), want_perm.end()));
        EXPECT_TRUE(same_values(elements(d), want)) << "n " << n;
    }
}

TYPED_TEST(cuda_gather_scatter, bin_by_key_matches_the_host_binning) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(17);
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70000}}) {
        for (std::size_t num_bins : {std::size_t{1}, std::size_t{17}, std::size_t{4096}}) {
            const auto values = random_values<T>(g, n);
            auto keys = random_indices<std::int32_t>(g, n, num_bins);
            auto host_keys = keys;
            const auto want = layout::bin_by_key<std::uint32_t>(host_keys, num_bins);

            auto d_keys = to_device(keys);
            auto c = in_memory<T, P, device_memory>(values, {});
            const auto bins = layout::cuda::bin_by_key(d_keys, num_bins, c);
            EXPECT_EQ(to_host(bins.permutation), want.permutation) << n << " " << num_bins;
            EXPECT_EQ(to_host(bins.offsets), want.offsets) << n << " " << num_bins;
            EXPECT_EQ(to_host(d_keys), host_keys) << n << " " << num_bins;
            std::vector<T> want_values(n);
            for (std::size_t i = 0; i < n; ++i) want_values[i] = values[want.permutation[i]];
            EXPECT_TRUE(same_values(elements(c), want_values)) << n << " " << num_bins;

            // Keys as a std::span over device memory (no container to take a resource from).
            auto span_keys = to_device(keys);
            const auto from_span = layout::cuda::bin_by_key(
                std::span<std::int32_t>(span_keys.data(), span_keys.size()), num_bins);
            EXPECT_EQ(to_host(from_span.permutation), want.permutation) << n << " " << num_bins;
            EXPECT_EQ(to_host(from_span.offsets), want.offsets) << n << " " << num_bins;
        }
    }
}

// ---- keys that are one of x's own columns ---------------------------------------------------------

/// Fields to sort by (energy, a float) and to bin by (cell, an int), among others.
struct Cell {
    float energy;
    int cell;
    double mass;
    short tag;
};

std::vector<Cell> random_cells(std::mt19937& g, std::size_t n, int cells) {
    std::vector<Cell> v(n);
    for (auto& c : v)
        c = Cell{static_cast<float>(random_int(g, -20, 20)), random_int(g, 0, cells - 1),
                 random_double(g), static_cast<short>(random_int(g, -1000, 1000))};
    return v;
}

template <class Policy>
std::vector<Cell> cells_of(const device_vector<Cell, Policy>& d) {
    const host_vector<Cell, Policy> h = d;
    std::vector<Cell> out;
    for (std::size_t i = 0; i < h.size(); ++i) out.push_back(static_cast<Cell>(h[i]));
    return out;
}

::testing::AssertionResult same_cells(const std::vector<Cell>& got, const std::vector<Cell>& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i].energy != want[i].energy || got[i].cell != want[i].cell ||
            got[i].mass != want[i].mass || got[i].tag != want[i].tag)
            return ::testing::AssertionFailure()
                   << "element " << i << ": cell " << got[i].cell << " energy " << got[i].energy
                   << ", want cell " << want[i].cell << " energy " << want[i].energy;
    return ::testing::AssertionSuccess();
}

/// A stable sort of the elements by one field (the model), as a permutation.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Cell>& v, Key key) {
    std::vector<std::uint32_t> perm(v.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key(v[a]) < key(v[b]); });
    return perm;
}

std::vector<Cell> reordered(const std::vector<Cell>& v, const std::vector<std::uint32_t>& perm) {
    std::vector<Cell> out;
    for (auto p : perm) out.push_back(v[p]);
    return out;
}

/// A SoA container's column as a std::span of device memory (what column().span() gives on the host).
template <auto Field>
auto device_column(layout::cuda::soa_vector<Cell>& c) {
    auto column = c.view().template column<Field>();
    return std::span(column.data(), column.size());
}

class cuda_key_column : public gpu_test {};

/// Sorting by a field of the element: the key column is reordered once, with the elements (it
/// was permuted twice, by the sort and by the gather).
TEST_F(cuda_key_column, sort_by_key_by_a_soa_column) {
    std::mt19937 g(31);
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70000}}) {
        const auto values = random_cells(g, n, 9);
        auto x = in_memory<Cell, layout::policy::soa, device_memory>(values, {});
        const auto by_energy = stable_order(values, [](const Cell& c) { return c.energy; });
        const auto perm = layout::cuda::sort_by_key(device_column<&Cell::energy>(x), x);
        EXPECT_EQ(to_host(perm), by_energy) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(x), reordered(values, by_energy))) << "n " << n;

        auto y = in_memory<Cell, layout::policy::soa, device_memory>(values, {});
        const auto by_cell = stable_order(values, [](const Cell& c) { return c.cell; });
        const auto perm_y = layout::cuda::sort_by_key(device_column<&Cell::cell>(y), y.view());
        EXPECT_EQ(to_host(perm_y), by_cell) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(y), reordered(values, by_cell))) << "n " << n;
    }
}

TEST_F(cuda_key_column, bin_by_key_by_a_soa_column) {
    std::mt19937 g(32);
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70000}}) {
        const int cells = 9;
        const auto values = random_cells(g, n, cells);
        auto x = in_memory<Cell, layout::policy::soa, device_memory>(values, {});
        const auto want = stable_order(values, [](const Cell& c) { return c.cell; });
        std::vector<std::uint32_t> offsets(cells + 1, 0);
        for (const Cell& c : values) ++offsets[static_cast<std::size_t>(c.cell) + 1];
        std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
        const auto bins = layout::cuda::bin_by_key(device_column<&Cell::cell>(x), cells, x);
        EXPECT_EQ(to_host(bins.permutation), want) << "n " << n;
        EXPECT_EQ(to_host(bins.offsets), offsets) << "n " << n;
        EXPECT_TRUE(same_cells(cells_of(x), reordered(values, want))) << "n " << n;
    }
}

/// One AoSoA block (n <= lanes): a leaf's lanes are contiguous, so they are a key column too.
TEST_F(cuda_key_column, one_aosoa_block) {
    std::mt19937 g(33);
    const auto values = random_cells(g, 30, 5);
    auto x = in_memory<Cell, layout::policy::aosoa<32>, device_memory>(values, {});
    using map = layout::mapping<Cell, layout::policy::aosoa<32>>;
    const std::span<int> keys(
        reinterpret_cast<int*>(x.view().storage().data + map::lane_offsets[1]), x.size());
    const auto bins = layout::cuda::bin_by_key(keys, 5, x);
    const auto want = stable_order(values, [](const Cell& c) { return c.cell; });
    EXPECT_EQ(to_host(bins.permutation), want);
    EXPECT_TRUE(same_cells(cells_of(x), reordered(values, want)));
}

/// Keys inside x's memory that are not a whole column: std::invalid_argument, nothing changed.
TEST_F(cuda_key_column, keys_overlapping_x_otherwise_are_rejected) {
    std::mt19937 g(34);
    const std::size_t n = 100;
    const auto values = random_cells(g, n, 4);
    auto x = in_memory<Cell, layout::policy::soa, device_memory>(values, {});
    const auto column = device_column<&Cell::cell>(x);
    const std::span<int> shifted(column.data() + 1, n);
    EXPECT_THROW(layout::cuda::sort_by_key(shifted, x), std::invalid_argument);
    EXPECT_THROW(layout::cuda::bin_by_key(shifted, 4, x), std::invalid_argument);
    auto a = in_memory<Cell, layout::policy::aos, device_memory>(values, {});
    const std::span<int> strided(&a.view().storage().data->cell,
                                 n); // an AoS column: not contiguous
    EXPECT_THROW(layout::cuda::sort_by_key(strided, a), std::invalid_argument);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    EXPECT_TRUE(same_cells(cells_of(x), values));
    EXPECT_TRUE(same_cells(cells_of(a), values));
}

TEST_F(cuda_key_column, too_many_bins_throw_length_error) {
    layout::cuda::aos_vector<int> none;
    layout::cuda::soa_vector<Cell> x;
    EXPECT_THROW(layout::cuda::bin_by_key(none, std::numeric_limits<std::size_t>::max()),
                 std::length_error);
    EXPECT_THROW(layout::cuda::bin_by_key(none, std::numeric_limits<std::size_t>::max(), x),
                 std::length_error);
}

// ---- the AoS vector path at every alignment ------------------------------------------------------

/// 24 bytes, widest leaf 8: 8-byte chunks, never 16.
struct Wide24 {
    double a;
    float b, c;
    double d;
};

/// AoS to AoS moves whole elements in 16- or 8-byte chunks when sizes and addresses allow, leaf
/// by leaf otherwise: views that start 4, 8 and 16 bytes into a block take each path.
class cuda_gather_scatter_aos : public gpu_test {};

TEST_F(cuda_gather_scatter_aos, whole_elements_at_every_alignment) {
    std::mt19937 g(21);
    const std::size_t n = 1000;
    const auto values = random_values<Particle>(g, n);
    const auto idx = random_indices<std::uint32_t>(g, n, n);
    const auto perm = random_permutation<std::uint32_t>(g, n);
    const auto d_idx = to_device(idx), d_perm = to_device(perm);
    std::vector<Particle> want_gather(n), want_scatter(n);
    for (std::size_t i = 0; i < n; ++i) {
        want_gather[i] = values[idx[i]];
        want_scatter[perm[i]] = values[i];
    }
    for (std::size_t offset : {4, 8, 16}) {
        std::byte *src = nullptr, *dst = nullptr;
        ASSERT_TRUE(check_cuda(cudaMalloc(&src, n * sizeof(Particle) + 64), "cudaMalloc"));
        ASSERT_TRUE(check_cuda(cudaMalloc(&dst, n * sizeof(Particle) + 64), "cudaMalloc"));
        check_cuda(
            cudaMemcpy(src + offset, values.data(), n * sizeof(Particle), cudaMemcpyHostToDevice),
            "cudaMemcpy");
        const layout::view<Particle, layout::policy::aos> s(
            reinterpret_cast<Particle*>(src + offset), n),
            d(reinterpret_cast<Particle*>(dst + offset), n);
        std::vector<Particle> got(n);
        layout::cuda::gather(s, d_idx, d);
        check_cuda(
            cudaMemcpy(got.data(), dst + offset, n * sizeof(Particle), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
        EXPECT_TRUE(same_values(got, want_gather)) << "gather, offset " << offset;
        layout::cuda::scatter(s, d_perm, d);
        check_cuda(
            cudaMemcpy(got.data(), dst + offset, n * sizeof(Particle), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
        EXPECT_TRUE(same_values(got, want_scatter)) << "scatter, offset " << offset;
        check_cuda(cudaFree(src), "cudaFree");
        check_cuda(cudaFree(dst), "cudaFree");
    }

    std::vector<Wide24> w(n);
    for (std::size_t i = 0; i < n; ++i)
        w[i] = {random_double(g), random_float(g), random_float(g), random_double(g)};
    const layout::cuda::aos_vector<Wide24> src = layout::aos_vector<Wide24>(w.begin(), w.end());
    layout::cuda::aos_vector<Wide24> dst(n);
    layout::cuda::gather(src, d_idx, dst);
    const layout::aos_vector<Wide24> back = dst;
    for (std::size_t i = 0; i < n; ++i) {
        const Wide24 e = back[i];
        const Wide24& x = w[idx[i]];
        EXPECT_TRUE(e.a == x.a && e.b == x.b && e.c == x.c && e.d == x.d) << "element " << i;
    }
}

// ---- errors -------------------------------------------------------------------------------------

class cuda_gather_scatter_errors : public gpu_test {};

TEST_F(cuda_gather_scatter_errors, size_mismatch_throws_length_error) {
    std::mt19937 g(18);
    const auto values = random_values<Particle>(g, 40);
    const auto src = in_memory<Particle, layout::policy::soa, device_memory>(values, {});
    auto dst =
        in_memory<Particle, layout::policy::aos, device_memory>(random_values<Particle>(g, 39), {});
    const auto idx40 = to_device(random_permutation<std::uint32_t>(g, 40));
    using E = std::length_error;
    expect_throw_containing<E>([&] { layout::cuda::gather(src, idx40, dst); },
                               "layout::cuda::gather: size mismatch");
    expect_throw_containing<E>(
        [&] { layout::cuda::scatter(src, idx40.view().storage().data, 39, dst); },
        "layout::cuda::scatter: size mismatch");
    expect_throw_containing<E>([&] { layout::cuda::permute(src, idx40, dst); },
                               "layout::cuda::permute: size mismatch");
    expect_throw_containing<E>([&] { layout::cuda::permute_in_place(dst, idx40); },
                               "layout::cuda::permute_in_place: size mismatch");
    auto keys = to_device(std::vector<int>(40));
    expect_throw_containing<E>([&] { layout::cuda::sort_by_key(keys, dst); },
                               "layout::cuda::sort_by_key: size mismatch");
    expect_throw_containing<E>([&] { layout::cuda::bin_by_key(keys, 4, dst); },
                               "layout::cuda::bin_by_key: size mismatch");
}

TEST_F(cuda_gather_scatter_errors, out_of_range_index_throws_naming_the_first_position) {
    layout::cuda::soa_vector<Particle> src(10), dst(5);
    const auto bad = to_device(std::vector<std::uint32_t>{1, 2, 10, 3, 11});
    expect_throw_containing<std::out_of_range>(
        [&] { layout::cuda::gather(src, bad, dst); },
        "layout::cuda::gather: index 10 at position 2 is out of range: the source's size is 10");
    layout::cuda::aosoa<Particle, 4> small(5);
    const auto oob = to_device(std::vector<std::uint32_t>{0, 1, 2, 3, 9});
    expect_throw_containing<std::out_of_range>([&] { layout::cuda::scatter(small, oob, dst); },
                                               "layout::cuda::scatter: index 9 at position 4 is "
                                               "out of range: the destination's size is 5");
    const auto negative = to_device(std::vector<int>{0, -1, 2, 3, 4});
    expect_throw_containing<std::out_of_range>([&] { layout::cuda::gather(src, negative, dst); },
                                               "index -1 at position 1");
    std::vector<unsigned> key_values = {0, 3, 4, 1};
    auto keys = to_device(key_values);
    expect_throw_containing<std::out_of_range>(
        [&] { layout::cuda::bin_by_key(keys, 4); },
        "layout::cuda::bin_by_key: key 4 at position 2 is out of range: the number of bins is 4");
}

TEST_F(cuda_gather_scatter_errors, permute_rejects_what_is_not_a_permutation) {
    layout::cuda::aos_vector<Mixed> src(5), dst(5);
    const auto twice = to_device(std::vector<int>{0, 3, 2, 3, 1});
    expect_throw_containing<std::invalid_argument>(
        [&] { layout::cuda::permute(src, twice, dst); },
        "not a permutation: index 3 at position 3 appeared before, at position 1");
    expect_throw_containing<std::invalid_argument>(
        [&] { layout::cuda::permute_in_place(dst, twice); }, "not a permutation");
    const auto oob = to_device(std::vector<int>{0, 1, 2, 3, 5});
    expect_throw_containing<std::out_of_range>([&] { layout::cuda::permute(src, oob, dst); },
                                               "layout::cuda::permute: index 5 at position 4 is "
                                               "out of range: the permutation's size is 5");
}

TEST_F(cuda_gather_scatter_errors, overlap_and_host_memory_are_rejected) {
    layout::cuda::soa_vector<Particle> c(8);
    std::mt19937 g(19);
    const auto idx = to_device(random_permutation<std::uint32_t>(g, 8));
    EXPECT_THROW(layout::cuda::gather(c.cview(), idx, c.view()), std::invalid_argument);
    EXPECT_THROW(layout::cuda::permute(c, idx, c), std::invalid_argument);

    // Indices in pageable host memory: rejected before any kernel runs (unless the GPU can read
    // pageable memory, as with HMM or ATS, where it works).
    int pageable = 0;
    check_cuda(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0), "attr");
    const std::vector<std::uint32_t> host_idx = {0, 1, 2, 3, 4, 5, 6, 7};
    layout::cuda::soa_vector<Particle> dst(8);
    if (!pageable) {
        expect_throw_containing<std::invalid_argument>(
            [&] { layout::cuda::gather(c, std::span<const std::uint32_t>(host_idx), dst); },
            "the indices are in host memory");
    }
}

// ---- beyond 2^31 threads and 2^32 elements ---------------------------------------------------------

__global__ void fill_bytes(std::uint8_t* p, std::size_t n) {
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        p[i] = static_cast<std::uint8_t>(i * 2654435761u >> 13);
}
__global__ void reversed_indices(std::uint32_t* idx, std::size_t n) {
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        idx[i] = static_cast<std::uint32_t>(n - 1 - i);
}
__global__ void count_gather_errors(const std::uint8_t* src, const std::uint8_t* dst, std::size_t n,
                                    unsigned long long* errors) {
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        if (dst[i] != src[n - 1 - i]) atomicAdd(errors, 1ull);
}

class cuda_gather_scatter_large : public gpu_test {};

TEST_F(cuda_gather_scatter_large, more_than_2_to_the_31_elements) {
    // One-byte elements, 32-bit indices: 2^31 + 33 elements, 12 GiB in all.
    const std::size_t n = (std::size_t{1} << 31) + 33;
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    if (free < n * 6 + (std::size_t{1} << 30)) GTEST_SKIP() << "needs 13 GiB of device memory";
    layout::cuda::aos_vector<std::uint8_t> src, dst;
    src.reserve(n);
    dst.reserve(n);
    layout::cuda::aos_vector<std::uint32_t> idx;
    idx.reserve(n);
    const layout::view<std::uint8_t, layout::policy::aos> s(src.view().storage().data, n),
        d(dst.view().storage().data, n);
    std::uint32_t* ip = idx.view().storage().data;
    fill_bytes<<<4096, 256>>>(s.storage().data, n);
    reversed_indices<<<4096, 256>>>(ip, n);
    check_cuda(cudaGetLastError(), "fill");
    layout::cuda::gather(s, ip, n, d);
    unsigned long long* errors = nullptr;
    ASSERT_TRUE(check_cuda(cudaMallocManaged(&errors, sizeof *errors), "cudaMallocManaged"));
    *errors = 0;
    count_gather_errors<<<4096, 256>>>(s.storage().data, d.storage().data, n, errors);
    check_cuda(cudaDeviceSynchronize(), "gather");
    EXPECT_EQ(*errors, 0u);
    check_cuda(cudaFree(errors), "cudaFree");
}

struct Pair {
    std::uint8_t a, b;
};

TEST_F(cuda_gather_scatter_large, indices_beyond_32_bits) {
    const std::size_t n = (std::size_t{1} << 32) + 64;
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    if (free < 4 * n + (std::size_t{1} << 30)) GTEST_SKIP() << "needs 17 GiB of device memory";
    layout::cuda::soa_vector<Pair> big;
    big.reserve(n);
    layout::cuda::aos_vector<Pair> big_aos;
    big_aos.reserve(n);
    const layout::view<Pair, layout::policy::soa> soa(big.view().storage(), n);
    const layout::view<Pair, layout::policy::aos> aos(big_aos.view().storage(), n);
    const std::vector<std::uint64_t> far = {n - 1, std::size_t{1} << 31, (std::size_t{1} << 32) + 5,
                                            7};
    const auto d_far = to_device(far);
    const layout::soa_vector<Pair> values = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
    const layout::cuda::soa_vector<Pair> d_values = values;
    layout::cuda::scatter(d_values, d_far, soa);
    layout::cuda::scatter(d_values, d_far, aos);
    layout::cuda::soa_vector<Pair> back(4);
    layout::cuda::aos_vector<Pair> back_aos(4);
    layout::cuda::gather(soa, d_far, back);
    layout::cuda::gather(aos, d_far, back_aos);
    const layout::soa_vector<Pair> h = back;
    const layout::aos_vector<Pair> h_aos = back_aos;
    for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(int{h[k].load().a}, int{values[k].load().a});
        EXPECT_EQ(int{h[k].load().b}, int{values[k].load().b});
        EXPECT_EQ(int{h_aos[k].load().a}, int{values[k].load().a});
        EXPECT_EQ(int{h_aos[k].load().b}, int{values[k].load().b});
    }
}

} // namespace
