/// \file algorithms/bin_by_key.hpp
/// layout::bin_by_key in host memory: a stable counting sort of integer keys in [0, num_bins)
/// that returns the permutation and where each bin starts, and optionally reorders every field
/// of a view or container the same way.
///
///     auto bins = layout::bin_by_key(cells, n_cells, particles);
///     // particles of cell c: [bins.offsets[c], bins.offsets[c + 1]); bins.permutation as for
///     // sort_by_key
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
#include <span>
#include <type_traits>
#include <vector>

namespace layout {

/// The result of bin_by_key: the stable permutation that groups the keys by bin, and where each
/// bin starts. Bin b holds positions [offsets[b], offsets[b + 1]); offsets.size() == bins + 1.
template <class Index = std::size_t>
struct bins {
    std::vector<Index> permutation;
    std::vector<Index> offsets;
};

namespace detail {

/// The permutation and offsets of bin_by_key; keys are only read (validated first).
template <class Index, class K>
bins<Index> bin_permutation(std::span<K> k, std::size_t num_bins) {
    static_assert(std::is_integral_v<K> && !std::is_same_v<K, bool>,
                  "layout::bin_by_key: keys must be integers in [0, num_bins)");
    const std::size_t n = k.size();
    check_index_type<Index>("layout::bin_by_key", n);
    check_bin_count("layout::bin_by_key", num_bins, std::vector<Index>().max_size());
    validate_indices("layout::bin_by_key", "key", std::span<const K>(k), num_bins,
                     "the number of bins is");

    bins<Index> result{std::vector<Index>(n), std::vector<Index>(num_bins + 1, Index{0})};
    auto& offsets = result.offsets;
    for (std::size_t i = 0; i < n; ++i) ++offsets[static_cast<std::size_t>(k[i]) + 1];
    for (std::size_t b = 0; b < num_bins; ++b) offsets[b + 1] += offsets[b];
    std::vector<Index> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
        result.permutation[static_cast<std::size_t>(next[static_cast<std::size_t>(k[i])]++)] =
            static_cast<Index>(i);
    return result;
}

/// The keys in bin order: bin b's value over [offsets[b], offsets[b + 1]). Does not allocate.
template <class K, class Index>
void write_binned_keys(std::span<K> k, const std::vector<Index>& offsets) noexcept {
    for (std::size_t b = 0; b + 1 < offsets.size(); ++b)
        std::fill(k.begin() + static_cast<std::ptrdiff_t>(offsets[b]),
                  k.begin() + static_cast<std::ptrdiff_t>(offsets[b + 1]), static_cast<K>(b));
}

} // namespace detail

/// Groups elements by an integer key in [0, num_bins) (a counting sort: stable, O(n + bins)).
/// keys are sorted in place. An out-of-range key throws std::out_of_range when LAYOUT_CHECK_BOUNDS
/// is on and is undefined behaviour otherwise. num_bins so large that num_bins + 1 offsets cannot
/// be held (SIZE_MAX) throws std::length_error; a failed allocation leaves the keys unchanged.
///
///     std::vector<unsigned> cell = {2, 0, 2, 1};
///     auto b = layout::bin_by_key(cell, 4);   // permutation {1, 3, 0, 2}, offsets {0, 1, 2, 4, 4}
template <class Index = std::size_t, detail::key_range Keys>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins) {
    const auto k = detail::key_span(keys);
    bins<Index> result = detail::bin_permutation<Index>(k, num_bins);
    detail::write_binned_keys(k, result.offsets);
    return result;
}

/// bin_by_key, and every field of x (a container or mutable view) reordered the same way: after
/// it, the elements of bin b are x[offsets[b]] .. x[offsets[b + 1] - 1], in their old order.
/// The keys may be one of x's own columns (x.column<&P::cell>().span()); keys that overlap
/// x otherwise throw std::invalid_argument. Strong guarantee: if an allocation fails, neither
/// keys nor x has changed.
/// Under exec::parallel (the default) the reordering of x runs on all cores; the counting sort
/// is one thread's, so the permutation is the serial one.
template <class Index = std::size_t, class Policy, detail::key_range Keys, detail::viewable X>
    requires exec::is_policy_v<Policy>
bins<Index> bin_by_key(const Policy& policy, Keys&& keys, std::size_t num_bins, X&& x) {
    static_assert(!detail::in_device_only_memory<X>(),
                  "layout::bin_by_key: the container is in device memory; use "
                  "layout::cuda::bin_by_key (<layout/cuda/algorithms.hpp>), which returns its "
                  "permutation in device memory");
    const auto v = detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::bin_by_key: the view or container is read-only");
    const auto k = detail::key_span(keys);
    if (k.size() != v.size())
        detail::throw_size_mismatch("layout::bin_by_key", k.size(), "keys", v.size(), "the view");
    const bool keys_in_x = detail::keys_are_column_of("layout::bin_by_key", v, k);
    bins<Index> result = detail::bin_permutation<Index>(k, num_bins);
    // Reordering x reorders its key column too (sorted then); otherwise the keys are written
    // after it, which allocates nothing.
    detail::permute_in_place_on_host(v, std::span<const Index>(result.permutation), policy);
    if (!keys_in_x) detail::write_binned_keys(k, result.offsets);
    return result;
}
template <class Index = std::size_t, detail::key_range Keys, detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x) {
    return bin_by_key<Index>(exec::parallel, keys, num_bins, x);
}

} // namespace layout
