/// \file algorithms.hpp
/// Gather, scatter, permutation and sorting by key over any layout, in host memory.
///
///     // src = {a, b, c, d}, indices = {2, 0, 3}
///     layout::gather(src, indices, dst3);     // dst3[i] = src[indices[i]]:    {c, a, d}
///     layout::scatter(src3, indices, dst);    // dst[indices[i]] = src3[i]:    {s1, _, s0, s2}
///     layout::permute(src, perm, dst);        // gather with a permutation (checked in debug)
///     layout::permute_in_place(particles, perm);
///     auto perm = layout::sort_by_key(keys, particles);        // stable; keys end up sorted too
///     auto bins = layout::bin_by_key(cells, n_cells, particles);
///     // particles of cell c: [bins.offsets[c], bins.offsets[c + 1]); bins.permutation as above
///
/// Views and containers of any layout go in (a container stands for its view(); source and
/// destination may have different layouts); indices are any contiguous range of an integral
/// type (std::vector<std::uint32_t>, std::span<const long>, ...). The GPU versions, same names
/// and contracts, are in <layout/cuda/algorithms.hpp>.
///
/// Contracts, the same on the host and the device:
///  - Every element is copied leaf by leaf; per leaf, the destination's writes run in index order
///    (contiguous under SoA for gather, which is what makes the device gather coalesced). On the
///    host, a SoA source (gather) or destination (scatter) is walked one column at a time, any
///    other layout element by element: whichever keeps fewer random streams live.
///  - Sizes: gather needs dst.size() == indices.size(), scatter src.size() == indices.size(),
///    permute and sort all three equal; otherwise std::length_error ("... size mismatch ...")
///    is thrown before anything is written.
///  - Source and destination must not share memory: overlapping views throw
///    std::invalid_argument (use permute_in_place to reorder in place).
///  - Indices are validated when LAYOUT_CHECK_BOUNDS is on (debug builds): on the host an
///    out-of-range index stops the program through layout::detail::fail with
///    "layout: gather index out of range at position P (index I, size N)"; permute also rejects
///    an index that appears twice. With the checks off an out-of-range index is undefined
///    behaviour, as with operator[].
///  - Scatter with repeated indices: on the host the last write wins (dst[j] is the source
///    element with the largest i among those with indices[i] == j, whole). On the device see
///    <layout/cuda/algorithms.hpp>: per leaf, one of the colliding values.
#pragma once

#include "config.hpp"
#include "copy.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "vector.hpp"
#include "view.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout {
namespace detail {

// ---- what the algorithms accept ---------------------------------------------------------------

template <class X>
inline constexpr bool is_view_v = false;
template <class T, class L>
inline constexpr bool is_view_v<view<T, L>> = true;

template <class X>
inline constexpr bool is_vector_v = false;
template <class T, class L, class M>
inline constexpr bool is_vector_v<vector<T, L, M>> = true;

/// A view, or a layout::vector (which stands for its view()).
template <class X>
concept viewable = is_view_v<std::remove_cvref_t<X>> || is_vector_v<std::remove_cvref_t<X>>;

/// The view of x: x itself, or x.view() (a read-only view for a const container).
template <class X>
auto as_view(X& x) noexcept {
    if constexpr (is_view_v<std::remove_const_t<X>>)
        return x;
    else
        return x.view();
}

template <class X>
using view_of_t = decltype(as_view(std::declval<std::remove_reference_t<X>&>()));

/// True for containers whose memory the host cannot touch (views do not know their memory).
template <class X>
constexpr bool in_device_only_memory() {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_vector_v<U>)
        return !U::memory_type::host_accessible;
    else
        return false;
}
template <class X>
constexpr bool in_host_only_memory() {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_vector_v<U>)
        return !U::memory_type::device_accessible;
    else
        return false;
}

/// A contiguous range of integers: indices for gather, scatter and permute.
template <class R>
concept index_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                      std::integral<std::ranges::range_value_t<R>> &&
                      !std::is_same_v<std::ranges::range_value_t<R>, bool>;

template <index_range R>
auto index_span(R&& r) noexcept {
    using I = std::ranges::range_value_t<R>;
    return std::span<const I>(std::ranges::data(r), std::ranges::size(r));
}

/// A contiguous, writable range of keys.
template <class R>
concept key_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <key_range R>
auto key_span(R&& r) noexcept {
    using K = std::ranges::range_value_t<R>;
    return std::span<K>(std::ranges::data(r), std::ranges::size(r));
}

/// Checks shared by every algorithm, at compile time: element types agree and dst is writable.
template <class SrcView, class DstView>
constexpr void check_element_types() {
    static_assert(std::is_same_v<typename SrcView::value_type, typename DstView::value_type>,
                  "layout: source and destination must hold the same element type");
    static_assert(!std::is_const_v<typename DstView::element_type>,
                  "layout: the destination is read-only (a view<const T> or a const container); "
                  "pass a mutable view or container");
}

// ---- run-time checks ----------------------------------------------------------------------------

/// "layout::gather: size mismatch: 5 indices but the destination has 4 elements".
[[noreturn]] inline void throw_size_mismatch(const char* function, std::size_t expected,
                                             const char* expected_what, std::size_t actual,
                                             const char* actual_what) {
    throw std::length_error(std::string(function) + ": size mismatch: " +
                            std::to_string(expected) + " " + expected_what + " but " +
                            actual_what + " has " + std::to_string(actual) + " elements");
}

/// index < size, for signed and unsigned index types alike (negative is out of range).
template <class I>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr bool index_in_range(I index,
                                                                    std::size_t size) noexcept {
    if constexpr (std::is_signed_v<I>)
        return index >= 0 && static_cast<std::make_unsigned_t<I>>(index) < size;
    else
        return static_cast<unsigned long long>(index) < static_cast<unsigned long long>(size);
}

/// The bytes a view's first n elements occupy: one range for AoS and AoSoA (whole blocks), one
/// per column for SoA. Computed from the pointers only; nothing is dereferenced, so this works
/// on views of device memory too.
struct byte_range {
    std::uintptr_t first, last; // [first, last)
};

template <class V>
auto byte_ranges(const V& v) noexcept {
    using T = typename V::value_type;
    using L = typename V::layout_type;
    const std::size_t n = v.size();
    if constexpr (std::is_same_v<L, policy::soa>) {
        std::array<byte_range, leaf_count_v<T>> ranges{};
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
            const auto first = reinterpret_cast<std::uintptr_t>(v.storage().columns[l]);
            ranges[l] = {first, first + n * leaf_table<T>[l].size};
        }
        return ranges;
    } else {
        const auto first = reinterpret_cast<std::uintptr_t>(v.storage().data);
        return std::array<byte_range, 1>{byte_range{first, first + mapping<T, L>::bytes(n)}};
    }
}

template <class A, class B>
bool views_overlap(const A& a, const B& b) noexcept {
    if (a.size() == 0 || b.size() == 0) return false;
    for (const byte_range& x : byte_ranges(a))
        for (const byte_range& y : byte_ranges(b))
            if (x.first < y.last && y.first < x.last) return true;
    return false;
}

inline void check_no_overlap(const char* function, bool overlap) {
    if (overlap)
        throw std::invalid_argument(std::string(function) +
                                    ": source and destination overlap; they must be distinct "
                                    "memory (use layout::permute_in_place to reorder in place)");
}

/// With LAYOUT_CHECK_BOUNDS: stops at the first index not below size, naming its position.
template <class I>
void validate_indices(const char* what, std::span<const I> indices, std::size_t size) {
#if LAYOUT_CHECK_BOUNDS
    for (std::size_t i = 0; i < indices.size(); ++i)
        if (!index_in_range(indices[i], size)) {
            bool negative = false;
            if constexpr (std::is_signed_v<I>) negative = indices[i] < 0;
            char message[128];
            std::snprintf(message, sizeof message, "%s out of range at position %zu%s", what, i,
                          negative ? " (negative)" : "");
            fail(message, static_cast<unsigned long long>(indices[i]), size);
        }
#else
    (void)what, (void)indices, (void)size;
#endif
}

/// With LAYOUT_CHECK_BOUNDS: stops unless indices is a permutation of [0, size): all in range,
/// none twice (the position reported is the first one whose index appeared before).
template <class I>
void validate_permutation(const char* what, std::span<const I> perm) {
#if LAYOUT_CHECK_BOUNDS
    validate_indices(what, perm, perm.size());
    std::vector<bool> seen(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        const auto p = static_cast<std::size_t>(perm[i]);
        if (seen[p]) {
            char message[128];
            std::snprintf(message, sizeof message,
                          "%s is not a permutation: the index at position %zu appeared before",
                          what, i);
            fail(message, p, perm.size());
        }
        seen[p] = true;
    }
#else
    (void)what, (void)perm;
#endif
}

/// Throws unless every index 0..n-1 (and, for bin offsets, n itself) fits in Index.
template <class Index>
void check_index_type(const char* function, std::size_t largest) {
    static_assert(std::is_integral_v<Index> && !std::is_same_v<Index, bool>,
                  "layout: the Index type must be an integer type");
    if (static_cast<unsigned long long>(largest) >
        static_cast<unsigned long long>(std::numeric_limits<Index>::max()))
        throw std::length_error(std::string(function) + ": " + std::to_string(largest) +
                                " does not fit in the Index type; ask for a wider one, e.g. " +
                                "<std::uint64_t>");
}

// ---- the element copies (shared with the device kernels) -------------------------------------

/// Every leaf of the element at s to the element at d, leaf 0 first.
template <class DstCursor, class SrcCursor, std::size_t... L>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void copy_leaves(const DstCursor& d, const SrcCursor& s,
                                                       std::index_sequence<L...>) noexcept {
    ((d.template leaf<L>() = s.template leaf<L>()), ...);
}

/// One leaf of dst[to(i)] = src[from(i)] for every i, leaf L.
template <std::size_t L, class DstStorage, class SrcStorage, class To, class From>
void copy_leaf_column(const DstStorage& d, const SrcStorage& s, std::size_t n, To to, From from) {
    for (std::size_t i = 0; i < n; ++i) d.at(to(i)).template leaf<L>() = s.at(from(i)).template leaf<L>();
}

/// dst[to(i)] = src[from(i)] for i in [0, n). The random side decides the loop order: when it
/// is SoA, one column at a time (each pass has one random stream; element by element, a SoA
/// element costs a cache line and a TLB entry per leaf at once: 3x slower at 2M particles);
/// otherwise element by element (a whole AoS element is one or two cache lines).
template <bool RandomSideIsSoa, class T, class DL, class SL, class To, class From>
void move_on_host(const view<T, DL>& dst, const view<const T, SL>& src, std::size_t n, To to,
                  From from) {
    const auto d = dst.storage();
    const auto s = src.storage();
    if constexpr (RandomSideIsSoa) {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            (copy_leaf_column<L>(d, s, n, to, from), ...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    } else {
        for (std::size_t i = 0; i < n; ++i)
            copy_leaves(d.at(to(i)), s.at(from(i)), std::make_index_sequence<leaf_count_v<T>>{});
    }
}

template <class T, class DL, class SL, class I>
void gather_on_host(const view<T, DL>& dst, const view<const T, SL>& src,
                    std::span<const I> indices) {
    move_on_host<std::is_same_v<SL, policy::soa>>(
        dst, src, indices.size(), [](std::size_t i) { return i; },
        [indices](std::size_t i) { return static_cast<std::size_t>(indices[i]); });
}

/// In index order: with repeated indices the last write wins, and it is the same source element
/// for every leaf (each leaf's pass also ends with the largest i).
template <class T, class DL, class SL, class I>
void scatter_on_host(const view<T, DL>& dst, const view<const T, SL>& src,
                     std::span<const I> indices) {
    move_on_host<std::is_same_v<DL, policy::soa>>(
        dst, src, indices.size(),
        [indices](std::size_t i) { return static_cast<std::size_t>(indices[i]); },
        [](std::size_t i) { return i; });
}

/// v[i] = v[perm[i]] for a validated permutation, through a scratch copy of v in its layout.
template <class T, class L, class I>
void permute_in_place_on_host(const view<T, L>& v, std::span<const I> perm) {
    const std::size_t n = v.size();
    if (n == 0) return;
    vector<T, L, host_memory> scratch;
    scratch.reserve(n);
    const view<T, L> copy(scratch.view().storage(), n);
    copy_same_layout_bytes(copy, view<const T, L>(v), n, &host_memory::copy_bytes);
    gather_on_host(v, view<const T, L>(copy), perm);
}

} // namespace detail

// ---- gather / scatter / permute -------------------------------------------------------------------

/// dst[i] = src[indices[i]] for every i (host memory; any two layouts of the same T).
///
///     // src = {a, b, c, d}
///     layout::gather(src, std::vector<int>{3, 3, 0}, dst);   // dst = {d, d, a}
///
/// Throws std::length_error if dst.size() != indices.size(), std::invalid_argument if src and
/// dst overlap. An index >= src.size() stops the program when LAYOUT_CHECK_BOUNDS is on.
template <detail::viewable Src, detail::index_range Indices, detail::viewable Dst>
void gather(Src&& src, Indices&& indices, Dst&& dst) {
    static_assert(!detail::in_device_only_memory<Src>() && !detail::in_device_only_memory<Dst>(),
                  "layout::gather: a container is in device memory; use layout::cuda::gather "
                  "(<layout/cuda/algorithms.hpp>)");
    const auto s = detail::as_view(src);
    const auto d = detail::as_view(dst);
    detail::check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    const auto idx = detail::index_span(indices);
    if (idx.size() != d.size())
        detail::throw_size_mismatch("layout::gather", idx.size(), "indices", d.size(),
                                    "the destination");
    detail::check_no_overlap("layout::gather", detail::views_overlap(s, d));
    detail::validate_indices("gather index", idx, s.size());
    detail::gather_on_host(d, view<const T, typename decltype(s)::layout_type>(s), idx);
}

/// dst[indices[i]] = src[i] for every i (host memory; any two layouts of the same T).
///
///     // src = {a, b, c}
///     layout::scatter(src, std::vector<int>{2, 0, 2}, dst);  // dst = {b, ?, c}: last write wins
///
/// Elements of dst that no index names are left as they were. With repeated indices the last
/// write wins: dst[j] is the whole element src[i] for the largest i with indices[i] == j.
/// Throws std::length_error if src.size() != indices.size(), std::invalid_argument if src and
/// dst overlap. An index >= dst.size() stops the program when LAYOUT_CHECK_BOUNDS is on.
template <detail::viewable Src, detail::index_range Indices, detail::viewable Dst>
void scatter(Src&& src, Indices&& indices, Dst&& dst) {
    static_assert(!detail::in_device_only_memory<Src>() && !detail::in_device_only_memory<Dst>(),
                  "layout::scatter: a container is in device memory; use layout::cuda::scatter "
                  "(<layout/cuda/algorithms.hpp>)");
    const auto s = detail::as_view(src);
    const auto d = detail::as_view(dst);
    detail::check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    const auto idx = detail::index_span(indices);
    if (idx.size() != s.size())
        detail::throw_size_mismatch("layout::scatter", idx.size(), "indices", s.size(),
                                    "the source");
    detail::check_no_overlap("layout::scatter", detail::views_overlap(s, d));
    detail::validate_indices("scatter index", idx, d.size());
    detail::scatter_on_host(d, view<const T, typename decltype(s)::layout_type>(s), idx);
}

/// dst[i] = src[perm[i]], where perm is a permutation of [0, n): gather with equal sizes. With
/// LAYOUT_CHECK_BOUNDS, an index out of range or repeated stops the program.
template <detail::viewable Src, detail::index_range Perm, detail::viewable Dst>
void permute(Src&& src, Perm&& perm, Dst&& dst) {
    const auto p = detail::index_span(perm);
    const std::size_t n = detail::as_view(src).size(), m = detail::as_view(dst).size();
    if (p.size() != n)
        detail::throw_size_mismatch("layout::permute", p.size(), "indices", n, "the source");
    if (p.size() != m)
        detail::throw_size_mismatch("layout::permute", p.size(), "indices", m, "the destination");
    detail::validate_permutation("permute index", p);
    gather(src, p, dst);
}

/// v[i] = old v[perm[i]] for every i, through a scratch copy of v (same layout, n elements),
/// so views of v stay valid. A container or a mutable view; perm as for permute.
template <detail::viewable X, detail::index_range Perm>
void permute_in_place(X&& x, Perm&& perm) {
    static_assert(!detail::in_device_only_memory<X>(),
                  "layout::permute_in_place: the container is in device memory; use "
                  "layout::cuda::permute_in_place (<layout/cuda/algorithms.hpp>)");
    const auto v = detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::permute_in_place: the view or container is read-only");
    const auto p = detail::index_span(perm);
    if (p.size() != v.size())
        detail::throw_size_mismatch("layout::permute_in_place", p.size(), "indices", v.size(),
                                    "the view");
    detail::validate_permutation("permute_in_place index", p);
    detail::permute_in_place_on_host(v, p);
}

// ---- sorting by key -----------------------------------------------------------------------------

/// The permutation that sorts keys stably (perm[i] = the old position of the element now at i);
/// keys are sorted in place. Keys must be totally ordered by < (no NaN).
///
///     std::vector<int> keys = {3, 1, 3, 0};
///     auto perm = layout::sort_by_key(keys);       // perm = {3, 1, 0, 2}, keys = {0, 1, 3, 3}
template <class Index = std::size_t, detail::key_range Keys>
std::vector<Index> sort_by_key(Keys&& keys) {
    const auto k = detail::key_span(keys);
    const std::size_t n = k.size();
    if (n) detail::check_index_type<Index>("layout::sort_by_key", n - 1);
    std::vector<Index> perm(n);
    std::iota(perm.begin(), perm.end(), Index{0});
    std::stable_sort(perm.begin(), perm.end(), [&](Index a, Index b) {
        return k[static_cast<std::size_t>(a)] < k[static_cast<std::size_t>(b)];
    });
    std::vector<typename decltype(k)::value_type> sorted(n);
    for (std::size_t i = 0; i < n; ++i) sorted[i] = k[static_cast<std::size_t>(perm[i])];
    std::copy(sorted.begin(), sorted.end(), k.begin());
    return perm;
}

/// Sorts keys stably and reorders every field of x (a container or mutable view, any layout)
/// the same way; returns the permutation (x_new[i] = x_old[perm[i]]).
///
///     auto perm = layout::sort_by_key(cell_of_particle, particles);
///
/// Throws std::length_error when keys and x differ in size, or when n-1 does not fit in Index.
template <class Index = std::size_t, detail::key_range Keys, detail::viewable X>
std::vector<Index> sort_by_key(Keys&& keys, X&& x) {
    static_assert(!detail::in_device_only_memory<X>(),
                  "layout::sort_by_key: the container is in device memory; use "
                  "layout::cuda::sort_by_key (<layout/cuda/algorithms.hpp>)");
    const auto v = detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::sort_by_key: the view or container is read-only");
    const auto k = detail::key_span(keys);
    if (k.size() != v.size())
        detail::throw_size_mismatch("layout::sort_by_key", k.size(), "keys", v.size(),
                                    "the view");
    std::vector<Index> perm = sort_by_key<Index>(k);
    detail::permute_in_place_on_host(v, std::span<const Index>(perm));
    return perm;
}

/// The result of bin_by_key: the stable permutation that groups the keys by bin, and where each
/// bin starts. Bin b holds positions [offsets[b], offsets[b + 1]); offsets.size() == bins + 1.
template <class Index = std::size_t>
struct bins {
    std::vector<Index> permutation;
    std::vector<Index> offsets;
};

/// Groups elements by an integer key in [0, num_bins) (a counting sort: stable, O(n + bins)).
/// keys are sorted in place. An out-of-range key stops the program when LAYOUT_CHECK_BOUNDS is
/// on and is undefined behaviour otherwise.
///
///     std::vector<unsigned> cell = {2, 0, 2, 1};
///     auto b = layout::bin_by_key(cell, 4);   // permutation {1, 3, 0, 2}, offsets {0, 1, 2, 4, 4}
template <class Index = std::size_t, detail::key_range Keys>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins) {
    const auto k = detail::key_span(keys);
    using K = typename decltype(k)::value_type;
    static_assert(std::is_integral_v<K> && !std::is_same_v<K, bool>,
                  "layout::bin_by_key: keys must be integers in [0, num_bins)");
    const std::size_t n = k.size();
    detail::check_index_type<Index>("layout::bin_by_key", n);
    detail::validate_indices("bin_by_key key", std::span<const K>(k), num_bins);

    bins<Index> result{std::vector<Index>(n), std::vector<Index>(num_bins + 1, Index{0})};
    auto& offsets = result.offsets;
    for (std::size_t i = 0; i < n; ++i) ++offsets[static_cast<std::size_t>(k[i]) + 1];
    for (std::size_t b = 0; b < num_bins; ++b) offsets[b + 1] += offsets[b];
    std::vector<Index> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        result.permutation[static_cast<std::size_t>(next[static_cast<std::size_t>(k[i])]++)] =
            static_cast<Index>(i);
    for (std::size_t b = 0; b < num_bins; ++b)
        std::fill(k.begin() + static_cast<std::ptrdiff_t>(offsets[b]),
                  k.begin() + static_cast<std::ptrdiff_t>(offsets[b + 1]), static_cast<K>(b));
    return result;
}

/// bin_by_key, and every field of x (a container or mutable view) reordered the same way: after
/// it, the elements of bin b are x[offsets[b]] .. x[offsets[b + 1] - 1], in their old order.
template <class Index = std::size_t, detail::key_range Keys, detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x) {
    static_assert(!detail::in_device_only_memory<X>(),
                  "layout::bin_by_key: the container is in device memory; use "
                  "layout::cuda::bin_by_key (<layout/cuda/algorithms.hpp>)");
    const auto v = detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::bin_by_key: the view or container is read-only");
    const auto k = detail::key_span(keys);
    if (k.size() != v.size())
        detail::throw_size_mismatch("layout::bin_by_key", k.size(), "keys", v.size(), "the view");
    bins<Index> result = bin_by_key<Index>(k, num_bins);
    detail::permute_in_place_on_host(v, std::span<const Index>(result.permutation));
    return result;
}

} // namespace layout
