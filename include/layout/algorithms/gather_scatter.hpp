/// \file algorithms/gather_scatter.hpp
/// layout::gather and layout::scatter in host memory, and the element copies they make (which
/// the device kernels of <layout/cuda/algorithms.hpp> share).
///
///     // src = {a, b, c, d}, indices = {2, 0, 3}
///     layout::gather(src, indices, dst3);     // dst3[i] = src[indices[i]]:    {c, a, d}
///     layout::scatter(src3, indices, dst);    // dst[indices[i]] = src3[i]:    {s1, _, s0, s2}
///
/// The contracts are in <layout/algorithms.hpp>.
#pragma once

#include "../backend.hpp"
#include "../config.hpp"
#include "../copy.hpp"
#include "../execution.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../view.hpp"
#include "detail/algorithm_arguments.hpp"
#include "detail/algorithm_checks.hpp"

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout {
namespace detail {

// ---- the element copies (shared with the device kernels) -------------------------------------

/// Every leaf of the element at s to the element at d, leaf 0 first.
template <class DstCursor, class SrcCursor, std::size_t... L>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void copy_leaves(const DstCursor& d, const SrcCursor& s,
                                                       std::index_sequence<L...>) noexcept {
    ((d.template leaf<L>() = s.template leaf<L>()), ...);
}

/// One leaf of dst[to(i)] = src[from(i)] for every i in [begin, end), leaf L.
template <std::size_t L, class DstStorage, class SrcStorage, class To, class From>
void copy_leaf_column(const DstStorage& d, const SrcStorage& s, std::size_t begin, std::size_t end,
                      To to, From from) {
    for (std::size_t i = begin; i < end; ++i)
        d.at(to(i)).template leaf<L>() = s.at(from(i)).template leaf<L>();
}
template <std::size_t L, class DstStorage, class SrcStorage, class To, class From>
void copy_leaf_column(const DstStorage& d, const SrcStorage& s, std::size_t n, To to, From from) {
    copy_leaf_column<L>(d, s, 0, n, to, from);
}

/// dst[to(i)] = src[from(i)] for i in [0, n). The random side decides the loop order: when it
/// is SoA, one column at a time (each pass has one random stream; element by element, a SoA
/// element costs a cache line and a TLB entry per leaf at once: 3x slower at 2M particles);
/// otherwise element by element (a whole AoS element is one or two cache lines). With threads,
/// each takes a contiguous share of i, in the same loop order: the caller makes sure that no
/// two i write one element (gather: to(i) = i; scatter: distinct indices).
template <bool RandomSideIsSoa, class T, class DL, class SL, class DM, class SM, class To,
          class From>
void move_on_host(const view<T, DL, DM>& dst, const view<const T, SL, SM>& src, std::size_t n,
                  To to, From from, bool threads = false) {
    const auto d = dst.storage();
    const auto s = src.storage();
    run_shares(threads, n, 64, [&](std::size_t begin, std::size_t end) {
        if constexpr (RandomSideIsSoa) {
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                (copy_leaf_column<L>(d, s, begin, end, to, from), ...);
            }(std::make_index_sequence<leaf_count_v<T>>{});
        } else {
            for (std::size_t i = begin; i < end; ++i)
                copy_leaves(d.at(to(i)), s.at(from(i)),
                            std::make_index_sequence<leaf_count_v<T>>{});
        }
    });
}

template <class T, class DL, class SL, class DM, class SM, class I,
          class Policy = exec::serial_policy>
void gather_on_host(const view<T, DL, DM>& dst, const view<const T, SL, SM>& src,
                    std::span<const I> indices, const Policy& how = {}) {
    // Thread k writes dst[i] for the i of its share only: the serial result.
    move_on_host<contiguous_columns_v<view<const T, SL, SM>>>(
        dst, src, indices.size(), [](std::size_t i) { return i; },
        [indices](std::size_t i) { return static_cast<std::size_t>(indices[i]); },
        use_threads(how, indices.size()));
}

/// Whether no index appears twice (indices already validated to be below size). Allocates
/// size bytes.
template <class I>
bool indices_distinct(std::span<const I> indices, std::size_t size) {
    std::vector<unsigned char> seen(size);
    for (const I index : indices) {
        auto& s = seen[static_cast<std::size_t>(index)];
        if (s) return false;
        s = 1;
    }
    return true;
}

/// In index order: with repeated indices the last write wins, and it is the same source element
/// for every leaf (each leaf's pass also ends with the largest i). Threads only for distinct
/// indices: with repeated ones the order of the writes decides the result, so they stay in one
/// thread's index order.
template <class T, class DL, class SL, class DM, class SM, class I,
          class Policy = exec::serial_policy>
void scatter_on_host(const view<T, DL, DM>& dst, const view<const T, SL, SM>& src,
                     std::span<const I> indices, const Policy& how = {}) {
    const bool threads = use_threads(how, indices.size()) && indices_distinct(indices, dst.size());
    move_on_host<contiguous_columns_v<view<T, DL, DM>>>(
        dst, src, indices.size(),
        [indices](std::size_t i) { return static_cast<std::size_t>(indices[i]); },
        [](std::size_t i) { return i; }, threads);
}

} // namespace detail

// ---- gather / scatter ---------------------------------------------------------------------------

/// dst[i] = src[indices[i]] for every i (any two layouts of the same T; in device memory, on
/// the GPU: backend.hpp).
///
///     // src = {a, b, c, d}
///     layout::gather(src, std::vector<int>{3, 3, 0}, dst);   // dst = {d, d, a}
///
/// Throws std::length_error if dst.size() != indices.size(), std::invalid_argument if src and
/// dst overlap. With LAYOUT_CHECK_BOUNDS, an index >= src.size() throws std::out_of_range.
/// On this thread (exec::serial) or all cores (exec::parallel, the default): the same result.
template <class Policy, detail::viewable Src, class Indices, detail::viewable Dst>
    requires(exec::is_policy_v<Policy> &&
             (detail::index_range<Indices> || detail::on_device_v<Src, Dst>))
void gather(const Policy& policy, Src&& src, Indices&& indices, Dst&& dst) {
    if constexpr (detail::on_device_v<Src, Dst>) {
        (void)policy;
        decltype(detail::device_backend_for<Src, Dst>())::gather(src, indices, dst);
    } else {
        const auto idx = detail::index_span(indices);
        const auto [s, d] = detail::check_indexed_move("layout::gather", src, dst, idx.size(),
                                                       detail::per_index::destination);
        detail::validate_indices("layout::gather", "index", idx, s.size(), "the source's size is");
        detail::gather_on_host(d, s, idx, policy);
    }
}
template <detail::viewable Src, class Indices, detail::viewable Dst>
    requires(detail::index_range<Indices> || detail::on_device_v<Src, Dst>)
void gather(Src&& src, Indices&& indices, Dst&& dst) {
    gather(exec::parallel, src, indices, dst);
}

/// dst[indices[i]] = src[i] for every i (any two layouts of the same T; in device memory, on
/// the GPU: backend.hpp).
///
///     // src = {a, b, c}
///     layout::scatter(src, std::vector<int>{2, 0, 2}, dst);  // dst = {b, ?, c}: last write wins
///
/// Elements of dst that no index names are left as they were. With repeated indices the last
/// write wins: dst[j] is the whole element src[i] for the largest i with indices[i] == j.
/// Throws std::length_error if src.size() != indices.size(), std::invalid_argument if src and
/// dst overlap. With LAYOUT_CHECK_BOUNDS, an index >= dst.size() throws std::out_of_range.
/// On this thread (exec::serial) or all cores (exec::parallel, the default; threads only when
/// the indices are distinct, checked with dst.size() bytes of scratch): the same result.
template <class Policy, detail::viewable Src, class Indices, detail::viewable Dst>
    requires(exec::is_policy_v<Policy> &&
             (detail::index_range<Indices> || detail::on_device_v<Src, Dst>))
void scatter(const Policy& policy, Src&& src, Indices&& indices, Dst&& dst) {
    if constexpr (detail::on_device_v<Src, Dst>) {
        (void)policy;
        decltype(detail::device_backend_for<Src, Dst>())::scatter(src, indices, dst);
    } else {
        const auto idx = detail::index_span(indices);
        const auto [s, d] = detail::check_indexed_move("layout::scatter", src, dst, idx.size(),
                                                       detail::per_index::source);
        detail::validate_indices("layout::scatter", "index", idx, d.size(),
                                 "the destination's size is");
        detail::scatter_on_host(d, s, idx, policy);
    }
}
template <detail::viewable Src, class Indices, detail::viewable Dst>
    requires(detail::index_range<Indices> || detail::on_device_v<Src, Dst>)
void scatter(Src&& src, Indices&& indices, Dst&& dst) {
    scatter(exec::parallel, src, indices, dst);
}

} // namespace layout
