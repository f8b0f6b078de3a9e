/// \file copy.hpp
/// Copying elements between views: the same layout moves bytes in bulk (one copy per column,
/// per run of whole blocks), different layouts convert leaf by leaf. Views may overlap, as
/// with std::memmove: the result is always dst[i] == the old src[i].
///
///     layout::copy(src_view, dst_view);   // any two layouts of the same T, host memory
///     // src = v[0, 10), dst = v[2, 12) of one aos_vector: v[2, 12) = old v[0, 10)
///
/// Views in device memory go through layout::cuda::copy (<layout/cuda/memory.hpp>), which uses
/// the same bulk path and converts layouts on the GPU.
#pragma once

#include "config.hpp"
#include "detail/leaf_pack.hpp"
#include "execution.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "scratch.hpp"
#include "selection.hpp"
#include "view.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

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

// ---- bulk copies of one layout ------------------------------------------------------------------

/// Calls f(dst_ptr, src_ptr, bytes) for each contiguous run that holds elements [0, n) of two
/// views of the same layout (their capacities may differ: SoA columns are found by pointer).
template <class T, class Layout, class F>
void for_each_run(const view<T, Layout>& dst, const view<const T, Layout>& src, std::size_t n,
                  F&& f) {
    Layout::template runs<std::remove_const_t<T>>(
        n, [&](std::size_t bytes, void* d, const void* s) { f(d, s, bytes); }, dst.storage(),
        src.storage());
}

template <class T, class Layout>
void copy_same_layout_bytes(const view<T, Layout>& dst, const view<const T, Layout>& src,
                            std::size_t n, void (*copy_bytes)(void*, const void*, std::size_t)) {
    for_each_run(dst, src, n,
                 [&](void* d, const void* s, std::size_t bytes) { copy_bytes(d, s, bytes); });
}

/// copy_same_layout_bytes in host memory for views that do not overlap; with threads, each
/// thread copies one contiguous share of the runs laid end to end (4 KiB multiples).
template <class T, class Layout, class Policy>
void copy_same_layout_on_host(const view<T, Layout>& dst, const view<const T, Layout>& src,
                              std::size_t n, const Policy& policy) {
    if (!use_threads(policy, n)) {
        copy_same_layout_bytes(dst, src, n, &host_memory::copy_bytes);
        return;
    }
    struct run {
        std::byte* d;
        const std::byte* s;
        std::size_t first, last; // bytes [first, last) of the runs end to end
    };
    std::array<run, max_runs_v<std::remove_const_t<T>>> runs{};
    std::size_t count = 0, total = 0;
    for_each_run(dst, src, n, [&](void* d, const void* s, std::size_t bytes) {
        runs[count++] = {static_cast<std::byte*>(d), static_cast<const std::byte*>(s), total,
                         total + bytes};
        total += bytes;
    });
    run_shares(true, total, 4096, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = 0; r < count; ++r) {
            const std::size_t first = std::max(begin, runs[r].first);
            const std::size_t last = std::min(end, runs[r].last);
            if (first < last)
                std::memcpy(runs[r].d + (first - runs[r].first),
                            runs[r].s + (first - runs[r].first), last - first);
        }
    });
}

/// True if each run of dst overlaps no run of src but its own counterpart: then one memmove
/// per run is exact, whatever order the runs go in. (Two SoA views whose columns are shifted
/// against each other, or AoSoA views a block apart, fail this: a later source run would be
/// overwritten before it is read.)
template <class T, class Layout>
bool runs_move_independently(const view<T, Layout>& dst, const view<const T, Layout>& src,
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

/// Elements per thread share are a multiple of this: 64 (a cache line of every 1 to 8-byte
/// leaf column), rounded up to what the layout allocates (whole AoSoA blocks).
template <class T, class Layout>
constexpr std::size_t host_grain() noexcept {
    return mapping<T, Layout>::rounded_capacity(64);
}

/// dst[i] = src[i] for i in [0, n), leaf-major: one pass per column keeps each SoA column's
/// accesses sequential. Under exec::parallel each thread converts a contiguous share of the
/// elements, leaf-major too; every element is written by one thread, so the result is the
/// serial one.
template <class T, class DstLayout, class SrcLayout, class Policy = exec::parallel_policy>
void convert_on_host(const view<T, DstLayout>& dst, const view<const T, SrcLayout>& src,
                     std::size_t n, const Policy& policy = {}) {
    using U = std::remove_const_t<T>;
    constexpr std::size_t grain = std::max(host_grain<U, DstLayout>(), host_grain<U, SrcLayout>());
    run_shares(use_threads(policy, n), n, grain, [&](std::size_t begin, std::size_t end) {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            (
                [&] {
                    for (std::size_t i = begin; i < end; ++i)
                        dst.storage().at(i).template leaf<L>() =
                            src.storage().at(i).template leaf<L>();
                }(),
                ...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    });
}

/// The one size-mismatch message of the copies and algorithms, host and device:
/// "layout::gather: size mismatch: 5 indices but the destination has 4 elements".
[[noreturn]] inline void throw_size_mismatch(const char* function, std::size_t expected,
                                             const char* expected_what, std::size_t actual,
                                             const char* actual_what) {
    throw std::length_error(std::string(function) + ": size mismatch: " + std::to_string(expected) +
                            " " + expected_what + " but " + actual_what + " has " +
                            std::to_string(actual) + " elements");
}

/// "layout::copy: size mismatch: 5 elements in the source but the destination has 4 elements".
[[noreturn]] inline void throw_copy_size_mismatch(const char* function, std::size_t src,
                                                  std::size_t dst) {
    throw_size_mismatch(function, src, "elements in the source", dst, "the destination");
}

// ---- selections: some leaves of each element ---------------------------------------------------

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

/// Both selections choose leaves of the same types in the same order.
template <class Src, class Dst, std::size_t... SL, std::size_t... DL>
constexpr bool same_leaf_types(std::index_sequence<SL...>, std::index_sequence<DL...>) {
    if constexpr (sizeof...(SL) != sizeof...(DL))
        return false;
    else
        return (std::is_same_v<leaf_t<selected_t<Src>, SL>, leaf_t<selected_t<Dst>, DL>> && ...);
}
template <class Src, class Dst>
constexpr void check_selections() {
    static_assert(!std::is_const_v<typename Dst::element_type>,
                  "layout: copy writes the destination: select<...> on a mutable view");
    static_assert(same_leaf_types<Src, Dst>(selected_leaves_t<Src>{}, selected_leaves_t<Dst>{}),
                  "layout: copy of selections: both must choose leaves of the same types in the "
                  "same order");
}

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

/// The chosen leaves' values, one column each: the staging block of an overlapping or
/// cross-memory copy of selections, which holds nothing else.
template <class S>
using selection_stage = scratch<leaf_pack_of<selected_t<S>, typename S::leaf_list>, policy::soa>;

/// dst's leaves DL... = src's leaves SL... (paired in order) for elements [0, n), leaf by leaf;
/// src and dst are storages (or narrowed storages) in host memory.
template <class DS, class SS, std::size_t... DL, std::size_t... SL>
void copy_leaves(const DS& dst, const SS& src, std::size_t n, std::index_sequence<DL...>,
                 std::index_sequence<SL...>) {
    (
        [&] {
            for (std::size_t i = 0; i < n; ++i)
                dst.at(i).template leaf<DL>() = src.at(i).template leaf<SL>();
        }(),
        ...);
}

} // namespace detail

/// Copies the chosen fields of every element of src into those of dst (host memory, any two
/// layouts, any selections of the same leaf types in the same order); dst's other fields are
/// not touched. Throws std::length_error, writing nothing, when the sizes differ. Selections
/// may overlap (the result is the old src, through a staging block of the chosen leaves).
///
///     layout::copy(a.select<&P::x, &P::y>(), b.select<&P::x, &P::y>());   // only x and y move
template <class SrcView, auto... SrcKeys, class DstView, auto... DstKeys>
void copy(const selection<SrcView, SrcKeys...>& src, const selection<DstView, DstKeys...>& dst) {
    using S = selection<SrcView, SrcKeys...>;
    using D = selection<DstView, DstKeys...>;
    detail::check_selections<S, D>();
    if (src.size() != dst.size())
        detail::throw_copy_size_mismatch("layout::copy", src.size(), dst.size());
    const std::size_t n = src.size();
    using dst_leaves = detail::selected_leaves_t<D>;
    using src_leaves = detail::selected_leaves_t<S>;
    if (!detail::selections_overlap(src, dst)) {
        detail::copy_leaves(dst.storage(), src.storage(), n, dst_leaves{}, src_leaves{});
        return;
    }
    const detail::selection_stage<S> stage(n, host_memory::default_resource());
    using all = std::make_index_sequence<S::leaves.size()>;
    detail::copy_leaves(stage.view().storage(), src.storage(), n, all{}, src_leaves{});
    detail::copy_leaves(dst.storage(), stage.view().storage(), n, dst_leaves{}, all{});
}

/// Copies every element of src into dst (host memory, any two layouts of the same T), on this
/// thread (exec::serial) or all cores (exec::parallel, the default; see <layout/execution.hpp>).
/// Throws std::length_error, writing nothing, when the sizes differ. The views may overlap
/// (two ranges of one container, a view of a container's own block): the result is the old
/// src, as with std::memmove. Overlapping views of one layout move each run with memmove;
/// other overlaps go through a temporary copy of src (which may throw std::bad_alloc, before
/// anything is written). Threads split the non-overlapping copies only: memmove of overlapping
/// runs stays on one thread, and the result is the serial one either way.
template <class Policy, class T, class DstLayout, class SrcLayout>
    requires exec::is_policy_v<Policy>
void copy(const Policy& policy, const view<const T, SrcLayout>& src,
          const view<T, DstLayout>& dst) {
    if (src.size() != dst.size())
        detail::throw_copy_size_mismatch("layout::copy", src.size(), dst.size());
    const std::size_t n = src.size();
    if (!detail::views_overlap(src, dst)) {
        if constexpr (std::is_same_v<DstLayout, SrcLayout>)
            detail::copy_same_layout_on_host(dst, src, n, policy);
        else
            detail::convert_on_host(dst, src, n, policy);
        return;
    }
    if constexpr (std::is_same_v<DstLayout, SrcLayout>) {
        if (detail::runs_move_independently(dst, src, n)) {
            detail::for_each_run(dst, src, n, [](void* d, const void* s, std::size_t bytes) {
                std::memmove(d, s, bytes);
            });
            return;
        }
    }
    // The element accesses of a view may assume that its leaves alias no other view's (they
    // are restrict-qualified for nvcc), so an overlapping conversion reads a private copy.
    const layout::scratch<std::remove_const_t<T>, SrcLayout> scratch(
        n, host_memory::default_resource());
    // The scratch copy overlaps neither view: both steps may use threads.
    const auto copy = scratch.view();
    detail::copy_same_layout_on_host(copy, src, n, policy);
    if constexpr (std::is_same_v<DstLayout, SrcLayout>)
        detail::copy_same_layout_on_host(dst, view<const T, SrcLayout>(copy), n, policy);
    else
        detail::convert_on_host(dst, view<const T, SrcLayout>(copy), n, policy);
}
template <class Policy, class T, class DstLayout, class SrcLayout>
    requires(exec::is_policy_v<Policy> && !std::is_const_v<T>)
void copy(const Policy& policy, const view<T, SrcLayout>& src, const view<T, DstLayout>& dst) {
    copy(policy, view<const T, SrcLayout>(src), dst);
}
template <class T, class DstLayout, class SrcLayout>
void copy(const view<const T, SrcLayout>& src, const view<T, DstLayout>& dst) {
    copy(exec::parallel, src, dst);
}
template <class T, class DstLayout, class SrcLayout>
    requires(!std::is_const_v<T>)
void copy(const view<T, SrcLayout>& src, const view<T, DstLayout>& dst) {
    copy(exec::parallel, view<const T, SrcLayout>(src), dst);
}

} // namespace layout
