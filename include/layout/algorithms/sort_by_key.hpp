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
#include "../execution.hpp"
#include "detail/algorithm_arguments.hpp"
#include "detail/algorithm_checks.hpp"
#include "permute.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

namespace layout {

namespace detail {

/// The permutation that sorts k stably; k itself is left as it is.
template <class Index, class K>
std::vector<Index> stable_sort_permutation(std::span<K> k) {
    const std::size_t n = k.size();
    if (n) check_index_type<Index>("layout::sort_by_key", n - 1);
    std::vector<Index> perm(n);
    std::iota(perm.begin(), perm.end(), Index{0});
    std::stable_sort(perm.begin(), perm.end(), [&](Index a, Index b) {
        return k[static_cast<std::size_t>(a)] < k[static_cast<std::size_t>(b)];
    });
    return perm;
}

/// k[perm[i]] for every i, in a new vector (allocated before the keys are written, so that a
/// failed allocation leaves them as they were).
template <class K, class Index>
std::vector<std::remove_const_t<K>> keys_in_order(std::span<K> k, const std::vector<Index>& perm) {
    std::vector<std::remove_const_t<K>> sorted(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) sorted[i] = k[static_cast<std::size_t>(perm[i])];
    return sorted;
}

} // namespace detail

// ---- sorting by key -----------------------------------------------------------------------------

/// The permutation that sorts keys stably (perm[i] = the old position of the element now at i);
/// keys are sorted in place. Keys must be totally ordered by < (no NaN). If an allocation
/// fails, std::bad_alloc is thrown with the keys unchanged.
///
///     std::vector<int> keys = {3, 1, 3, 0};
///     auto perm = layout::sort_by_key(keys);       // perm = {3, 1, 0, 2}, keys = {0, 1, 3, 3}
template <class Index = std::size_t, detail::key_range Keys>
std::vector<Index> sort_by_key(Keys&& keys) {
    const auto k = detail::key_span(keys);
    std::vector<Index> perm = detail::stable_sort_permutation<Index>(k);
    const auto sorted = detail::keys_in_order(k, perm);
    std::copy(sorted.begin(), sorted.end(), k.begin());
    return perm;
}

/// Sorts keys stably and reorders every field of x (a container or mutable view, any layout)
/// the same way; returns the permutation (x_new[i] = x_old[perm[i]]).
///
///     auto perm = layout::sort_by_key(cell_of_particle, particles);
///     auto by_cell = layout::sort_by_key(soa.column<&P::cell>().span(), soa);
///     // the keys may be one of x's own columns (a field of the element): they end up sorted
///
/// Throws std::length_error when keys and x differ in size, or when n-1 does not fit in Index;
/// std::invalid_argument when the keys overlap x's elements without being one of its columns.
/// Strong guarantee: if an allocation fails (std::bad_alloc), neither keys nor x has changed.
/// Under exec::parallel (the default) the reordering of x runs on all cores; the permutation
/// is computed on one thread (std::stable_sort), so it is the serial one.
template <class Index = std::size_t, class Policy, detail::key_range Keys, detail::viewable X>
    requires exec::is_policy_v<Policy>
std::vector<Index> sort_by_key(const Policy& policy, Keys&& keys, X&& x) {
    static_assert(!detail::in_device_only_memory<X>(),
                  "layout::sort_by_key: the container is in device memory; use "
                  "layout::cuda::sort_by_key (<layout/cuda/algorithms.hpp>), which returns its "
                  "permutation in device memory");
    const auto v = detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::sort_by_key: the view or container is read-only");
    const auto k = detail::key_span(keys);
    if (k.size() != v.size())
        detail::throw_size_mismatch("layout::sort_by_key", k.size(), "keys", v.size(), "the view");
    const bool keys_in_x = detail::keys_are_column_of("layout::sort_by_key", v, k);
    // Everything that allocates comes before the first write.
    std::vector<Index> perm = detail::stable_sort_permutation<Index>(k);
    std::vector<typename decltype(k)::value_type> sorted;
    if (!keys_in_x) sorted = detail::keys_in_order(k, perm);
    // Reordering x reorders its key column too: written once, sorted.
    detail::permute_in_place_on_host(v, std::span<const Index>(perm), policy);
    std::copy(sorted.begin(), sorted.end(), k.begin());
    return perm;
}
template <class Index = std::size_t, detail::key_range Keys, detail::viewable X>
std::vector<Index> sort_by_key(Keys&& keys, X&& x) {
    return sort_by_key<Index>(exec::parallel, keys, x);
}

} // namespace layout
