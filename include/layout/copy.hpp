/// \file copy.hpp
/// Copying elements between views: the same layout moves bytes in bulk (one copy per column,
/// per run of whole blocks), different layouts convert leaf by leaf. Views may overlap, as
/// with std::memmove: the result is always dst[i] == the old src[i].
///
///     layout::copy(src_view, dst_view);   // any two layouts of the same T, host memory
///     // src = v[0, 10), dst = v[2, 12) of one aos_vector: v[2, 12) = old v[0, 10)
///
/// Views in device memory go through layout::cuda::copy (<layout/cuda/copy.hpp>), which uses
/// the same bulk path and converts layouts on the GPU; layout::copy forwards to it when a view's
/// memory space says the host cannot reach it. The geometry (runs, overlap) is in runs.hpp.
#pragma once

#include "backend.hpp"
#include "config.hpp"
#include "error.hpp"
#include "execution.hpp"
#include "layouts/leaf_pack.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "runs.hpp"
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

/// copy_same_layout_bytes in host memory for views that do not overlap; with threads, each
/// thread copies one contiguous share of the runs laid end to end (4 KiB multiples).
template <class T, class Layout, class DM, class SM, class Policy>
void copy_same_layout_on_host(const view<T, Layout, DM>& dst, const view<const T, Layout, SM>& src,
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
template <class T, class DstLayout, class SrcLayout, class DM, class SM,
          class Policy = exec::parallel_policy>
void convert_on_host(const view<T, DstLayout, DM>& dst, const view<const T, SrcLayout, SM>& src,
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

// ---- selections: some leaves of each element ---------------------------------------------------

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

/// The chosen leaves' values, one column each: the staging block of an overlapping or
/// cross-memory copy of selections, which holds nothing else.
template <class S, class Memory = host_memory>
using selection_stage =
    scratch<leaf_pack_of<selected_t<S>, typename S::leaf_list>, policy::soa, Memory>;

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

/// layout::copy between views the host reaches (copy's contract).
template <class Policy, class T, class DstLayout, class SrcLayout, class DM, class SM>
void copy_on_host(const Policy& policy, const view<const T, SrcLayout, SM>& src,
                  const view<T, DstLayout, DM>& dst) {
    static_assert(SM::host_accessible && DM::host_accessible);
    if (src.size() != dst.size()) throw_copy_size_mismatch("layout::copy", src.size(), dst.size());
    const std::size_t n = src.size();
    if (!views_overlap(src, dst)) {
        if constexpr (std::is_same_v<DstLayout, SrcLayout>)
            copy_same_layout_on_host(dst, src, n, policy);
        else
            convert_on_host(dst, src, n, policy);
        return;
    }
    if constexpr (std::is_same_v<DstLayout, SrcLayout>) {
        if (runs_move_independently(dst, src, n)) {
            for_each_run(dst, src, n, [](void* d, const void* s, std::size_t bytes) {
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
    copy_same_layout_on_host(copy, src, n, policy);
    if constexpr (std::is_same_v<DstLayout, SrcLayout>)
        copy_same_layout_on_host(dst, view<const T, SrcLayout>(copy), n, policy);
    else
        convert_on_host(dst, view<const T, SrcLayout>(copy), n, policy);
}

} // namespace detail

/// Copies the chosen fields of every element of src into those of dst (any memory, any two
/// layouts, any selections of the same leaf types in the same order); dst's other fields are
/// not touched. Throws std::length_error, writing nothing, when the sizes differ. Selections
/// may overlap (the result is the old src, through a staging block of the chosen leaves).
///
///     layout::copy(a.select<&P::x, &P::y>(), b.select<&P::x, &P::y>());   // only x and y move
template <class SrcView, auto... SrcKeys, class DstView, auto... DstKeys>
void copy(const selection<SrcView, SrcKeys...>& src, const selection<DstView, DstKeys...>& dst) {
    using S = selection<SrcView, SrcKeys...>;
    using D = selection<DstView, DstKeys...>;
    if constexpr (detail::on_device_v<S, D>) {
        decltype(detail::device_backend_for<S, D>())::copy(src, dst, stream_ref{});
    } else {
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
}

/// Copies every element of src into dst (any two layouts of the same T), on this thread
/// (exec::serial) or all cores (exec::parallel, the default; see <layout/execution.hpp>).
/// Throws std::length_error, writing nothing, when the sizes differ. The views may overlap
/// (two ranges of one container, a view of a container's own block): the result is the old
/// src, as with std::memmove. Overlapping views of one layout move each run with memmove;
/// other overlaps go through a temporary copy of src (which may throw std::bad_alloc, before
/// anything is written). Threads split the non-overlapping copies only: memmove of overlapping
/// runs stays on one thread, and the result is the serial one either way.
/// A view in memory the host cannot reach (a device view) makes it layout::cuda::copy on the
/// default stream (backend.hpp); call that with a stream to choose one.
template <class Policy, class T, class DstLayout, class SrcLayout, class DM, class SM>
    requires exec::is_policy_v<Policy>
void copy(const Policy& policy, const view<const T, SrcLayout, SM>& src,
          const view<T, DstLayout, DM>& dst) {
    using Src = view<const T, SrcLayout, SM>;
    using Dst = view<T, DstLayout, DM>;
    if constexpr (detail::on_device_v<Src, Dst>) {
        (void)policy;
        decltype(detail::device_backend_for<Src, Dst>())::copy(src, dst, stream_ref{});
    } else {
        detail::copy_on_host(policy, src, dst);
    }
}
template <class Policy, class T, class DstLayout, class SrcLayout, class DM, class SM>
    requires(exec::is_policy_v<Policy> && !std::is_const_v<T>)
void copy(const Policy& policy, const view<T, SrcLayout, SM>& src,
          const view<T, DstLayout, DM>& dst) {
    copy(policy, view<const T, SrcLayout, SM>(src), dst);
}
template <class T, class DstLayout, class SrcLayout, class DM, class SM>
void copy(const view<const T, SrcLayout, SM>& src, const view<T, DstLayout, DM>& dst) {
    copy(exec::parallel, src, dst);
}
template <class T, class DstLayout, class SrcLayout, class DM, class SM>
    requires(!std::is_const_v<T>)
void copy(const view<T, SrcLayout, SM>& src, const view<T, DstLayout, DM>& dst) {
    copy(exec::parallel, view<const T, SrcLayout, SM>(src), dst);
}

} // namespace layout
