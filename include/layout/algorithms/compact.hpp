/// \file algorithms/compact.hpp
/// layout::remove_if and layout::stable_partition: elements chosen by a
/// predicate over the element proxy, moved to the front in their order, in any layout.
///
///     // p = {a, b, c, d, e}, dead(b) and dead(d)
///     std::size_t n = layout::remove_if(p, dead);          // p = {a, c, e}, n = 3
///     std::size_t k = layout::stable_partition(q, alive);  // q = {a, c, e, b, d}, k = 3
///
/// The predicate takes a read-only element proxy (`[](const auto& e) { return
/// layout::get<&P::mass>(e) <= 0; }`), or anything the proxy converts to (`const P&`, which
/// loads the whole element). It is called once per element, in index order.
///
/// remove_if returns how many elements were kept. A container is resized to that; for a view,
/// the elements from there on are left valid but unspecified (std::remove_if's contract).
/// stable_partition keeps every element: those that satisfy pred first, then the others, both
/// in their old order; it returns how many satisfy pred.
///
/// Should pred throw (at element i), the exception reaches the caller and nothing is lost or
/// duplicated: remove_if leaves the elements it kept of [0, i) followed by all of [i, n) in
/// their order (a container is resized to that count; a view's elements past it are valid but
/// unspecified), as if the scan had stopped before i; stable_partition leaves x unchanged (it
/// calls pred for every element before it moves any).
///
/// remove_if moves each kept element once, in one pass over x, allocating nothing.
/// stable_partition calls pred for every element first, then allocates room for the elements
/// that do not satisfy it (std::bad_alloc before anything is written), and moves each element
/// once more. Both run on the calling thread: in place and stable, a pass on several threads
/// would have to go through a second copy of the elements, twice the memory traffic.
/// The GPU versions are in <layout/cuda/algorithms.hpp>; a device container or view given to
/// these names goes there (backend.hpp).
#pragma once

#include "../backend.hpp"
#include "../config.hpp"
#include "../memory.hpp"
#include "../reflect.hpp"
#include "../scratch.hpp"
#include "../view.hpp"
#include "detail/algorithm_arguments.hpp"
#include "gather_scatter.hpp"

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout {
namespace detail {

/// A predicate over the read-only element proxies of views of X.
template <class Pred, class X>
concept element_predicate =
    std::predicate<const Pred&, typename view<const typename view_of_t<X>::value_type,
                                              typename view_of_t<X>::layout_type,
                                              typename view_of_t<X>::memory_type>::reference>;

template <class X>
constexpr void check_compactable() {
    using V = view_of_t<X>;
    static_assert(!std::is_const_v<typename V::element_type>,
                  "layout::remove_if / stable_partition: the view or container is read-only");
}

/// The container's new size (views keep theirs).
template <class X>
void shrink_to(X& x, std::size_t n) {
    if constexpr (is_vector_v<std::remove_const_t<X>>) x.resize(n);
}

template <class T, class L, class M1, class M2>
void move_element(const view<T, L, M1>& to, std::size_t i, const view<T, L, M2>& from,
                  std::size_t j) {
    copy_leaves(to.storage().at(i), from.storage().at(j),
                std::make_index_sequence<leaf_count_v<std::remove_const_t<T>>>{});
}

} // namespace detail

/// Removes the elements for which pred(element) is true, keeping the others in order at the
/// front; returns how many were kept. A container (host-accessible memory) is resized to that.
///
///     auto n = layout::remove_if(particles, [](const auto& p) {
///         return layout::get<&Particle::mass>(p) <= 0; });
template <detail::viewable X, class Pred>
    requires detail::element_predicate<Pred, X>
std::size_t remove_if(X&& x, Pred pred) {
    if constexpr (detail::on_device_v<X>)
        return decltype(detail::device_backend_for<X>())::remove_if(x, pred);
    else {
        detail::check_compactable<X>();
        const auto v = detail::as_view(x);
        using T = typename decltype(v)::value_type;
        using L = typename decltype(v)::layout_type;
        const view<const T, L, typename decltype(v)::memory_type> read = v;
        const std::size_t n = v.size();
        std::size_t kept = 0, i = 0;
        try {
            for (; i < n; ++i) {
                if (pred(read[i])) continue;
                if (kept != i) detail::move_element(v, kept, v, i);
                ++kept;
            }
        } catch (...) {
            // Close the gap: the elements pred has not judged follow the kept ones.
            if (kept != i)
                for (std::size_t j = i; j < n; ++j) detail::move_element(v, kept + (j - i), v, j);
            detail::shrink_to(x, kept + (n - i));
            throw;
        }
        detail::shrink_to(x, kept);
        return kept;
    }
}

/// Reorders x so that the elements for which pred(element) is true come first, and the others
/// after them, each group in its old order; returns how many satisfy pred.
///
///     auto alive = layout::stable_partition(particles, [](const auto& p) {
///         return layout::get<&Particle::mass>(p) > 0; });   // [0, alive): the living
template <detail::viewable X, class Pred>
    requires detail::element_predicate<Pred, X>
std::size_t stable_partition(X&& x, Pred pred) {
    if constexpr (detail::on_device_v<X>)
        return decltype(detail::device_backend_for<X>())::stable_partition(x, pred);
    else {
        detail::check_compactable<X>();
        const auto v = detail::as_view(x);
        using T = typename decltype(v)::value_type;
        using L = typename decltype(v)::layout_type;
        const std::size_t n = v.size();
        const view<const T, L, typename decltype(v)::memory_type> read = v;
        std::vector<bool> first(n);
        std::size_t selected = 0;
        for (std::size_t i = 0; i < n; ++i) {
            first[i] = pred(read[i]);
            if (first[i]) ++selected;
        }
        // The only allocation, before anything is written.
        const scratch<T, L> rest_block(n - selected, host_memory::default_resource());
        const view<T, L> rest = rest_block.view();
        std::size_t front = 0, back = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!first[i])
                detail::move_element(rest, back++, v, i);
            else if (front++ != i)
                detail::move_element(v, front - 1, v, i);
        }
        for (std::size_t j = 0; j < back; ++j) detail::move_element(v, selected + j, rest, j);
        return selected;
    }
}

} // namespace layout
