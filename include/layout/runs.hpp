/// \file runs.hpp
/// Where a view's elements lie, as byte runs: the geometry that copies, conversions, overlap
/// checks and device code share, computed by pointer arithmetic alone (nothing is loaded), so it
/// serves views of any memory space. Each layout says what its runs are (Layout::runs); this
/// header asks it.
///
///     layout::detail::views_overlap(a.view(), b.view())      // false: two containers
///     layout::detail::for_each_run(dst, src, n, [](void* d, const void* s, std::size_t bytes) {
///         std::memmove(d, s, bytes); });                     // SoA: one call per column
#pragma once

#include "config.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "view.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout {
namespace detail {

// ---- the bytes a view occupies (pointer arithmetic only: works for device memory too) ----------

struct byte_range {
    std::uintptr_t first, last; // [first, last)
};

inline bool ranges_overlap(const byte_range& a, const byte_range& b) noexcept {
    return a.first < b.last && b.first < a.last;
}

/// The bytes a view's elements occupy: its layout's runs (AoS: one; SoA: one per column;
/// AoSoA: the whole blocks, then the live lanes of a partial last block, leaf by leaf).
/// Computed from the pointers only; nothing is dereferenced, so this works on views of device
/// memory too.
template <class V>
auto byte_ranges(const V& v) noexcept {
    using T = typename V::value_type;
    using L = typename V::layout_type;
    struct ranges {
        std::array<byte_range, max_runs_v<T>> runs{};
        std::size_t count = 0;
        const byte_range* begin() const noexcept { return runs.data(); }
        const byte_range* end() const noexcept { return runs.data() + count; }
    } r;
    L::template runs<T>(
        v.size(),
        [&](std::size_t bytes, const void* p) {
            const auto first = reinterpret_cast<std::uintptr_t>(p);
            r.runs[r.count++] = {first, first + bytes};
        },
        v.storage());
    return r;
}

/// True if some byte of a's elements is also one of b's (empty views overlap nothing).
template <class A, class B>
bool views_overlap(const A& a, const B& b) noexcept {
    if (a.size() == 0 || b.size() == 0) return false;
    for (const byte_range& x : byte_ranges(a))
        for (const byte_range& y : byte_ranges(b))
            if (ranges_overlap(x, y)) return true;
    return false;
}

/// The address of leaf l of element i, through the element's cursor: addresses are taken,
/// nothing is loaded, so this works for views of device memory too.
template <class V>
std::uintptr_t leaf_address(const V& v, std::size_t i, std::size_t l) noexcept {
    std::uintptr_t address = 0;
    const auto at = v.storage().at(i);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        ((K == l ? (void)(address = reinterpret_cast<std::uintptr_t>(&at.template leaf<K>()))
                 : (void)0),
         ...);
    }(std::make_index_sequence<leaf_count_v<typename V::value_type>>{});
    return address;
}

// ---- runs of one layout, two views ------------------------------------------------------------

/// Calls f(dst_ptr, src_ptr, bytes) for each contiguous run that holds elements [0, n) of two
/// views of the same layout (their capacities may differ: SoA columns are found by pointer).
template <class T, class Layout, class DM, class SM, class F>
void for_each_run(const view<T, Layout, DM>& dst, const view<const T, Layout, SM>& src,
                  std::size_t n, F&& f) {
    Layout::template runs<std::remove_const_t<T>>(
        n, [&](std::size_t bytes, void* d, const void* s) { f(d, s, bytes); }, dst.storage(),
        src.storage());
}

template <class T, class Layout, class DM, class SM>
void copy_same_layout_bytes(const view<T, Layout, DM>& dst, const view<const T, Layout, SM>& src,
                            std::size_t n, void (*copy_bytes)(void*, const void*, std::size_t)) {
    for_each_run(dst, src, n,
                 [&](void* d, const void* s, std::size_t bytes) { copy_bytes(d, s, bytes); });
}

/// True if each run of dst overlaps no run of src but its own counterpart: then one memmove
/// per run is exact, whatever order the runs go in. (Two SoA views whose columns are shifted
/// against each other, or AoSoA views a block apart, fail this: a later source run would be
/// overwritten before it is read.)
template <class T, class Layout, class DM, class SM>
bool runs_move_independently(const view<T, Layout, DM>& dst, const view<const T, Layout, SM>& src,
                             std::size_t n) noexcept {
    constexpr std::size_t most = max_runs_v<std::remove_const_t<T>>;
    std::array<byte_range, most> d{}, s{};
    std::size_t runs = 0;
    for_each_run(dst, src, n, [&](void* dp, const void* sp, std::size_t bytes) {
        const auto da = reinterpret_cast<std::uintptr_t>(dp);
        const auto sa = reinterpret_cast<std::uintptr_t>(sp);
        d[runs] = {da, da + bytes};
        s[runs] = {sa, sa + bytes};
        ++runs;
    });
    for (std::size_t i = 0; i < runs; ++i)
        for (std::size_t j = 0; j < runs; ++j)
            if (i != j && ranges_overlap(d[i], s[j])) return false;
    return true;
}

/// The leaves a selection S chose, as an index_sequence.
template <class S, class = std::make_index_sequence<S::leaves.size()>>
struct selected_leaves;
template <class S, std::size_t... I>
struct selected_leaves<S, std::index_sequence<I...>> {
    using type = std::index_sequence<S::leaves[I]...>;
};
template <class S>
using selected_leaves_t = typename selected_leaves<S>::type;

/// The element type a selection reaches.
template <class S>
using selected_t = std::remove_const_t<typename S::element_type>;

/// For each leaf a selection chose, the bytes from its value in the first element to its
/// value in the last (pointer arithmetic only; every layout's leaf addresses grow with i).
template <class S, std::size_t... L>
auto selected_bounds(const S& s, std::index_sequence<L...>) noexcept {
    const auto first = s.storage().at(0), last = s.storage().at(s.size() - 1);
    auto bounds = [](const auto& a, const auto& b) {
        const auto x = reinterpret_cast<std::uintptr_t>(&a),
                   y = reinterpret_cast<std::uintptr_t>(&b);
        return byte_range{std::min(x, y), std::max(x, y) + sizeof(a)};
    };
    return std::array<byte_range, sizeof...(L)>{
        bounds(first.template leaf<L>(), last.template leaf<L>())...};
}
/// Whether some chosen leaf of a may share bytes with some chosen leaf of b.
template <class A, class B>
bool selections_overlap(const A& a, const B& b) noexcept {
    if (a.size() == 0 || b.size() == 0) return false;
    for (const byte_range& x : selected_bounds(a, selected_leaves_t<A>{}))
        for (const byte_range& y : selected_bounds(b, selected_leaves_t<B>{}))
            if (ranges_overlap(x, y)) return true;
    return false;
}

} // namespace detail
} // namespace layout
