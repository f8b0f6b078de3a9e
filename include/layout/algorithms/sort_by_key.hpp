/// \file algorithms/sort_by_key.hpp
/// layout::sort_by_key in host memory: a stable sort of keys that returns the permutation, and
/// optionally reorders every field of a view or container the same way.
///
///     std::vector<int> keys = {3, 1, 3, 0};
///     auto perm = layout::sort_by_key(keys, particles);  // perm = {3, 1, 0, 2}, keys sorted
///
/// The contracts are in <layout/algorithms.hpp>.
#pragma once

#include "../config.hpp"
#include "../detail/algorithm_arguments.hpp"
#include "../detail/algorithm_checks.hpp"
#include "permute.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

namespace layout {

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
        detail::throw_size_mismatch("layout::sort_by_key", k.size(), "keys", v.size(), "the view");
    std::vector<Index> perm = sort_by_key<Index>(k);
    detail::permute_in_place_on_host(v, std::span<const Index>(perm));
    return perm;
}

} // namespace layout
