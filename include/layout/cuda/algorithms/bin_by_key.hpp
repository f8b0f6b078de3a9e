/// \file cuda/algorithms/bin_by_key.hpp
/// layout::cuda::bin_by_key: groups elements by an integer key in [0, num_bins) with a CUB radix
/// sort on the bits num_bins needs, returns the permutation and where each bin starts, and
/// optionally reorders every field of a view or container the same way.
///
///     auto bins = layout::cuda::bin_by_key(cells, n_cells, src);   // + bins.offsets per cell
///     auto b = layout::cuda::bin_by_key<&P::cell>(src, n_cells, ws); // by the element's field
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
#include "../workspace.hpp"
#include "permute.hpp"
#include "reorder.hpp"
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

template <class K, class Index>
void launch_bin_offsets(const K* sorted, std::size_t n, std::size_t num_bins, Index* offsets,
                        cudaStream_t stream, const char* function) {
    bin_offsets_kernel<<<grid_size(num_bins + 1, block_size, function), block_size, 0, stream>>>(
        sorted, n, num_bins, offsets);
    check_launch("layout::cuda::detail::bin_offsets_kernel");
}

/// The bits a key in [0, num_bins) needs (at most the key's width).
template <class U>
int bin_bits(std::size_t num_bins) {
    return num_bins <= 1 ? 1
                         : std::min(static_cast<int>(sizeof(U) * 8),
                                    static_cast<int>(
                                        std::bit_width(static_cast<std::uint64_t>(num_bins - 1))));
}

/// Sorts the keys (in place where keys_writable, else into the workspace) on the bits num_bins
/// needs, perm into perm_out (or the workspace), the offsets into offsets_out: what every
/// bin_by_key shares. Returns where the permutation ended.
/// With LAYOUT_CHECK_BOUNDS: std::out_of_range for the first key not below num_bins.
template <class K>
void validate_keys(const K* keys, std::size_t n, std::size_t num_bins, cudaStream_t stream,
                   const char* function) {
    validate_indices(function, "key", keys, n, num_bins, "the number of bins is", stream);
}

template <class Index, class K>
Index* bin_pairs(K* keys, bool keys_writable, std::size_t n, std::size_t num_bins, Index* perm_out,
                 Index* offsets_out, workspace& ws, cudaStream_t stream, const char* function) {
    static_assert(std::is_integral_v<K>, "layout::cuda::bin_by_key: keys must be integers");
    validate_keys(keys, n, num_bins, stream, function);
    // Keys in [0, num_bins) are non-negative: sort them as unsigned, on the low bits only.
    using U = std::make_unsigned_t<std::remove_const_t<K>>;
    const auto sorted = sort_pairs<Index>(reinterpret_cast<U*>(keys), keys_writable, n, 0,
                                          bin_bits<U>(num_bins), perm_out, ws, stream, function);
    launch_bin_offsets(sorted.keys, n, num_bins, offsets_out, stream, function);
    if (keys_writable && n && sorted.keys != reinterpret_cast<U*>(keys))
        check(cudaMemcpyAsync(keys, sorted.keys, n * sizeof(K), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    return sorted.perm;
}

} // namespace detail

// ---- binning by key -----------------------------------------------------------------------------

/// The result of bin_by_key in device memory: bin b holds positions [offsets[b], offsets[b+1]).
template <class Index = std::uint32_t>
struct bins {
    layout::vector<Index, policy::aos, device_memory> permutation;
    layout::vector<Index, policy::aos, device_memory> offsets; // num_bins + 1 entries
};

/// The same, as spans into a workspace (bin_by_key with a workspace): valid until its next use.
template <class Index = std::uint32_t>
struct bins_view {
    std::span<const Index> permutation;
    std::span<const Index> offsets; // num_bins + 1 entries
};

/// Groups by an integer key in [0, num_bins): a stable CUB radix sort on only the bits that
/// num_bins needs (18 bits for 64^3 cells: 3 passes instead of 4), keys sorted in place, then
/// the bin offsets by binary search. An out-of-range key throws std::out_of_range with
/// LAYOUT_CHECK_BOUNDS on and gives wrong bins otherwise. On stream (default: the default
/// stream); temporaries from the device's default pool.
template <class Index = std::uint32_t, detail::device_key_range Keys>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, stream_ref stream = {}) {
    const auto k = detail::device_span(keys);
    constexpr const char* function = "layout::cuda::bin_by_key";
    const std::size_t n = k.size();
    layout::detail::check_index_type<Index>(function, n);
    layout::detail::check_bin_count(function, num_bins,
                                    layout::vector<Index, policy::aos, device_memory>::max_size());
    workspace ws(stream);
    // The results are allocated before the sort changes the keys: a failed allocation throws
    // with nothing changed.
    bins<Index> result{detail::permutation_for<Index>(keys, n, stream),
                       detail::permutation_for<Index>(keys, num_bins + 1, stream)};
    Index* p = result.permutation.view().data();
    Index* at = detail::bin_pairs<Index>(
        k.data(), true, n, num_bins, p, result.offsets.view().data(), ws, native(stream), function);
    if (n && at != p)
        check(cudaMemcpyAsync(p, at, n * sizeof(Index), cudaMemcpyDefault, native(stream)),
              "cudaMemcpyAsync");
    return result;
}

/// bin_by_key, and every field of x reordered the same way: after it, bin b's elements are
/// x[offsets[b]] .. x[offsets[b + 1] - 1], in their old relative order. The keys may be one of
/// x's own columns, as for sort_by_key; keys that overlap x otherwise throw
/// std::invalid_argument. The results come from x's resource, on the stream; a container whose
/// keys are separate is reordered through a second block (one pass).
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x, stream_ref stream) {
    constexpr const char* function = "layout::cuda::bin_by_key";
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::bin_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    const std::size_t n = k.size();
    if (n != v.size())
        layout::detail::throw_size_mismatch(function, n, "keys", v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, v, v);
#endif
    layout::detail::check_index_type<Index>(function, n);
    layout::detail::check_bin_count(function, num_bins,
                                    layout::vector<Index, policy::aos, device_memory>::max_size());
    const cudaStream_t s = native(stream);
    const bool keys_in_x = layout::detail::keys_are_column_of(function, v, k);
    workspace ws(stream, detail::resource_for(x));
    bins<Index> result{detail::permutation_for<Index>(x, n, stream),
                       detail::permutation_for<Index>(x, num_bins + 1, stream)};
    Index* p = result.permutation.view().data();
    Index* offsets = result.offsets.view().data();
    auto sort = [&] {
        Index* at =
            detail::bin_pairs<Index>(k.data(), true, n, num_bins, p, offsets, ws, s, function);
        if (n && at != p)
            check(cudaMemcpyAsync(p, at, n * sizeof(Index), cudaMemcpyDefault, s),
                  "cudaMemcpyAsync");
    };
    constexpr bool container = layout::detail::is_vector_v<std::remove_cvref_t<X>>;
    if constexpr (container) {
        if (!keys_in_x) {
            (void)ws.element_view(x, n); // every allocation before the first write
            sort();
            detail::reorder_into(x, p, n, ws, s, function);
            return result;
        }
    }
    const detail::permute_scratch scratch(v, s, detail::resource_for(x)); // before keys change
    scratch.save(s); // x as it was, with its key column unsorted if the keys are one
    sort();
    scratch.gather_back(p, s, function);
    return result;
}
/// On x's stream where x is a container (else the default stream).
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x) {
    return cuda::bin_by_key<Index>(keys, num_bins, x, detail::stream_for(x));
}

/// Bins a device container by one of its own integer fields, in [0, num_bins), in every layout
/// (the key named as column<...>() names it), on the container's stream, with the workspace's
/// memory: once it is warm, nothing is allocated. The keys are the column itself where it is
/// contiguous (SoA), else a copy in the workspace; the elements are gathered once into the
/// workspace's second block, which becomes the container's. Returns the permutation and the
/// offsets as spans into the workspace (valid until its next use). Throws
/// std::invalid_argument if ws serves another stream.
///
///     layout::cuda::workspace ws(particles.stream());
///     auto b = layout::cuda::bin_by_key<&Particle::cell>(particles, 64 * 64 * 64, ws);
///     // cell c's particles: particles.view()[b.offsets[c]] .. [b.offsets[c + 1] - 1]
template <auto Key, auto... Rest, class Index = std::uint32_t, class C>
    requires layout::detail::is_vector_v<C>
bins_view<Index> bin_by_key(C& c, std::size_t num_bins, workspace& ws) {
    constexpr const char* function = "layout::cuda::bin_by_key";
    detail::check_device_container<C>();
    ws.check_stream(c.stream(), function);
    using T = typename C::value_type;
    constexpr std::size_t leaf = layout::detail::leaf_of_path<T, Key, Rest...>();
    using K = leaf_t<T, leaf>;
    static_assert(std::is_integral_v<K> && !std::is_same_v<K, bool>,
                  "layout::cuda::bin_by_key: the key field must be an integer");
    const std::size_t n = c.size();
    layout::detail::check_index_type<Index>(function, n);
    layout::detail::check_bin_count(function, num_bins,
                                    layout::vector<Index, policy::aos, device_memory>::max_size());
    const cudaStream_t s = native(c.stream());
    const auto to = ws.element_view(c, n); // every allocation before the first write
    Index* offsets = ws.get<Index>(workspace::slot::offsets, num_bins + 1);
    constexpr bool own_column = decltype(c.view().template leaf_column<leaf>())::is_contiguous;
    if constexpr (own_column) {
        // The key column is the sort's double buffer with the new block's column, as in a
        // hand-written step: the sorted keys land there, and the gather skips that leaf.
        K* old_keys = c.view().template leaf_column<leaf>().data();
        K* new_keys = to.template leaf_column<leaf>().data();
        detail::validate_keys(old_keys, n, num_bins, s, function);
        using U = std::make_unsigned_t<K>;
        const auto sorted = detail::sort_pairs_in(
            reinterpret_cast<U*>(old_keys), reinterpret_cast<U*>(new_keys), n,
            detail::bin_bits<U>(num_bins), static_cast<Index*>(nullptr), ws, s, function);
        if (n && sorted.keys != reinterpret_cast<U*>(new_keys))
            check(cudaMemcpyAsync(new_keys, sorted.keys, n * sizeof(K), cudaMemcpyDefault, s),
                  "cudaMemcpyAsync");
        detail::launch_bin_offsets(reinterpret_cast<const U*>(new_keys), n, num_bins, offsets, s,
                                   function);
        detail::reorder_into_but<leaf>(c, to, sorted.perm, n, ws, s, function);
        return {{sorted.perm, n}, {offsets, num_bins + 1}};
    } else {
        // The keys and the first permutation in one pass, into the workspace, sorted there
        // (not copied back: they are scratch); the gather takes the key leaf from them.
        using U = std::make_unsigned_t<K>;
        const auto b = detail::copy_keys_and_positions<leaf, U, Index>(c.view(), ws, s, function);
        detail::validate_keys(reinterpret_cast<const K*>(b.keys), n, num_bins, s, function);
        const auto sorted =
            detail::sort_prepared_pairs(b.keys, b.keys_alt, b.perm, b.perm_alt, n, 0,
                                        detail::bin_bits<U>(num_bins), ws, s, function);
        detail::launch_bin_offsets(sorted.keys, n, num_bins, offsets, s, function);
        detail::reorder_into_with_keys<leaf>(c, sorted.perm, sorted.keys, n, ws, s, function);
        return {{sorted.perm, n}, {offsets, num_bins + 1}};
    }
}

} // namespace layout::cuda
