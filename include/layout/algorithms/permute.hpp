/// \file algorithms/permute.hpp
/// layout::permute and layout::permute_in_place in host memory: a gather whose indices are a
/// permutation of [0, n) (checked with LAYOUT_CHECK_BOUNDS), into another view or in place.
///
///     // src = {a, b, c, d}, perm = {2, 0, 3, 1}
///     layout::permute(src, perm, dst);            // dst = {c, a, d, b}
///     layout::permute_in_place(particles, perm);  // the same, through a scratch copy
///
/// The contracts are in <layout/algorithms.hpp>.
#pragma once

#include "../backend.hpp"
#include "../config.hpp"
#include "../copy.hpp"
#include "../execution.hpp"
#include "../memory.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "detail/algorithm_arguments.hpp"
#include "detail/algorithm_checks.hpp"
#include "gather_scatter.hpp"

#include <cstddef>
#include <span>
#include <type_traits>

namespace layout {
namespace detail {

/// v[i] = v[perm[i]] for a validated permutation, through a scratch copy of v in its layout.
/// Both steps on all cores under exec::parallel (each element written by one thread).
template <class T, class L, class M, class I, class Policy = exec::serial_policy>
void permute_in_place_on_host(const view<T, L, M>& v, std::span<const I> perm,
                              const Policy& how = {}) {
    const std::size_t n = v.size();
    if (n == 0) return;
    // The only allocation: before anything is written.
    const layout::scratch<T, L> scratch(n, host_memory::default_resource());
    const view<T, L> copy = scratch.view();
    copy_same_layout_on_host(copy, view<const T, L, M>(v), n, how);
    gather_on_host(v, view<const T, L>(copy), perm, how);
}

} // namespace detail

// ---- permute ----------------------------------------------------------------------------------

/// dst[i] = src[perm[i]], where perm is a permutation of [0, n): gather with equal sizes. With
/// LAYOUT_CHECK_BOUNDS, an index out of range throws std::out_of_range, a repeated one
/// std::invalid_argument.
template <class Policy, detail::viewable Src, class Perm, detail::viewable Dst>
    requires(exec::is_policy_v<Policy> &&
             (detail::index_range<Perm> || detail::on_device_v<Src, Dst>))
void permute(const Policy& policy, Src&& src, Perm&& perm, Dst&& dst) {
    if constexpr (detail::on_device_v<Src, Dst>) {
        (void)policy;
        decltype(detail::device_backend_for<Src, Dst>())::permute(src, perm, dst);
    } else {
        const auto p = detail::index_span(perm);
        const std::size_t n = detail::as_view(src).size(), m = detail::as_view(dst).size();
        if (p.size() != n)
            detail::throw_size_mismatch("layout::permute", p.size(), "indices", n, "the source");
        if (p.size() != m)
            detail::throw_size_mismatch("layout::permute", p.size(), "indices", m,
                                        "the destination");
        detail::validate_permutation("layout::permute", p);
        gather(policy, src, p, dst);
    }
}
template <detail::viewable Src, class Perm, detail::viewable Dst>
    requires(detail::index_range<Perm> || detail::on_device_v<Src, Dst>)
void permute(Src&& src, Perm&& perm, Dst&& dst) {
    permute(exec::parallel, src, perm, dst);
}

/// v[i] = old v[perm[i]] for every i, through a scratch copy of v (same layout, n elements),
/// so views of v stay valid. A container or a mutable view; perm as for permute.
template <class Policy, detail::viewable X, class Perm>
    requires(exec::is_policy_v<Policy> && (detail::index_range<Perm> || detail::on_device_v<X>))
void permute_in_place(const Policy& policy, X&& x, Perm&& perm) {
    if constexpr (detail::on_device_v<X>) {
        (void)policy;
        decltype(detail::device_backend_for<X>())::permute_in_place(x, perm);
    } else {
        const auto v = detail::as_view(x);
        static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                      "layout::permute_in_place: the view or container is read-only");
        const auto p = detail::index_span(perm);
        if (p.size() != v.size())
            detail::throw_size_mismatch("layout::permute_in_place", p.size(), "indices", v.size(),
                                        "the view");
        detail::validate_permutation("layout::permute_in_place", p);
        detail::permute_in_place_on_host(v, p, policy);
    }
}
template <detail::viewable X, class Perm>
    requires(detail::index_range<Perm> || detail::on_device_v<X>)
void permute_in_place(X&& x, Perm&& perm) {
    permute_in_place(exec::parallel, x, perm);
}

} // namespace layout
