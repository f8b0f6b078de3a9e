/// \file algorithms/detail/algorithm_arguments.hpp
/// What the algorithms accept, host and device alike: views and layout::vector containers (a
/// container stands for its view()), contiguous ranges of integer indices and of writable keys,
/// and the compile-time checks that a source and a destination agree.
///
///     layout::detail::as_view(particles)            // particles.view(), or a view itself
///     layout::detail::index_span(std::vector<int>)  // std::span<const int>
///     layout::detail::key_span(keys)                // std::span<K>, keys sorted in place
#pragma once

#include "../../config.hpp"
#include "../../vector.hpp"
#include "../../view.hpp"

#include <concepts>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>

namespace layout::detail {

template <class X>
inline constexpr bool is_view_v = false;
template <class T, class L, class M>
inline constexpr bool is_view_v<view<T, L, M>> = true;

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

/// True for views and containers whose memory the host cannot touch.
template <class X>
constexpr bool in_device_only_memory() {
    return !std::remove_cvref_t<X>::memory_type::host_accessible;
}
/// True for views and containers whose memory kernels cannot touch.
template <class X>
constexpr bool in_host_only_memory() {
    return !std::remove_cvref_t<X>::memory_type::device_accessible;
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

} // namespace layout::detail
