/// \file cuda/algorithms/bin_by_key.hpp
/// layout::cuda::bin_by_key: groups elements by an integer key in [0, num_bins) with a CUB radix
/// sort on the bits num_bins needs, returns the permutation and where each bin starts, and
/// optionally reorders every field of a view or container the same way.
///
///     auto bins = layout::cuda::bin_by_key(cells, n_cells, src);   // + bins.offsets per cell
///
/// The contracts are in <layout/cuda/algorithms.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/bin_by_key.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/detail/algorithm_checks.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../vector.hpp"
#include "../detail/algorithm_checks.hpp"
#include "../detail/device_ranges.hpp"
#include "../detail/launch.hpp"
#include "../error.hpp"
#include "../memory.hpp"
#include "permute.hpp"
#include "sort_by_key.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

/// offsets[b] = the first position whose key is >= b, for b in [0, num_bins] (sorted keys).
template <class K, class Index>
__global__ void bin_offsets_kernel(const K* sorted, std::size_t n, std::size_t num_bins,
                                   Index* offsets) {
    const std::size_t b = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (b > num_bins) return;
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (static_cast<std::size_t>(sorted[mid]) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    offsets[b] = static_cast<Index>(lo);
}

} // namespace detail

// ---- binning by key -----------------------------------------------------------------------------

/// The result of bin_by_key in device memory: bin b holds positions [offsets[b], offsets[b+1]).
template <class Index = std::uint32_t>
struct bins {
    layout::vector<Index, policy::aos, device_memory> permutation;
    layout::vector<Index, policy::aos, device_memory> offsets; // num_bins + 1 entries
};

/// Groups by an integer key in [0, num_bins): a stable CUB radix sort on only the bits that
/// num_bins needs (18 bits for 64^3 cells: 3 passes instead of 4), keys sorted in place, then
/// the bin offsets by binary search. An out-of-range key throws std::out_of_range with
/// LAYOUT_CHECK_BOUNDS on and gives wrong bins otherwise.
template <class Index = std::uint32_t, detail::device_key_range Keys>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, cudaStream_t stream = 0) {
    const auto k = detail::device_span(keys);
    using K = typename decltype(k)::value_type;
    static_assert(std::is_integral_v<K>, "layout::cuda::bin_by_key: keys must be integers");
    constexpr const char* function = "layout::cuda::bin_by_key";
    const std::size_t n = k.size();
    layout::detail::check_index_type<Index>(function, n);
    layout::detail::check_bin_count(function, num_bins,
                                    layout::vector<Index, policy::aos, device_memory>::max_size());
    detail::validate_indices(function, "key", k.data(), n, num_bins, "the number of bins is",
                             stream);
    // Keys in [0, num_bins) are non-negative: sort them as unsigned, on the low bits only.
    using U = std::make_unsigned_t<K>;
    // (At most the key's width: more bins than K can name need no more bits.)
    const int end_bit =
        num_bins <= 1
            ? 1
            : std::min(static_cast<int>(sizeof(U) * 8),
                       static_cast<int>(std::bit_width(static_cast<std::uint64_t>(num_bins - 1))));
    // The offsets are allocated before the sort changes the keys: a failed allocation throws
    // with nothing changed.
    layout::vector<Index, policy::aos, device_memory> offsets(num_bins + 1);
    bins<Index> result{detail::sort_permutation<Index>(reinterpret_cast<U*>(k.data()), n, 0,
                                                       end_bit, stream, function),
                       std::move(offsets)};
    detail::bin_offsets_kernel<<<detail::grid_size(num_bins + 1, detail::block_size, function),
                                 detail::block_size, 0, stream>>>(
        reinterpret_cast<const U*>(k.data()), n, num_bins, result.offsets.view().storage().data);
    check_launch("layout::cuda::detail::bin_offsets_kernel");
    return result;
}

/// bin_by_key, and every field of x reordered the same way: after it, bin b's elements are
/// x[offsets[b]] .. x[offsets[b + 1] - 1], in their old relative order. The keys may be one of
/// x's own columns, as for sort_by_key; keys that overlap x otherwise throw
/// std::invalid_argument.
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x, cudaStream_t stream = 0) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::bin_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    if (k.size() != v.size())
        layout::detail::throw_size_mismatch("layout::cuda::bin_by_key", k.size(), "keys", v.size(),
                                            "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible("layout::cuda::bin_by_key", v, v);
#endif
    (void)layout::detail::keys_are_column_of("layout::cuda::bin_by_key", v, k);
    const detail::permute_scratch scratch(v, stream); // allocated before the keys change
    scratch.save(stream); // x as it was, with its key column unsorted if the keys are one
    bins<Index> result = cuda::bin_by_key<Index>(k, num_bins, stream);
    scratch.gather_back(result.permutation.view().storage().data, stream,
                        "layout::cuda::bin_by_key");
    return result;
}

} // namespace layout::cuda
