/// \file cuda/algorithms/sort_by_key.hpp
/// layout::cuda::sort_by_key: a stable CUB radix sort of keys in device memory that returns the
/// permutation, and optionally reorders every field of a view or container the same way (one
/// gather); detail::sort_permutation is the sort that bin_by_key shares.
///
///     auto perm = layout::cuda::sort_by_key(keys, particles);   // CUB radix sort, then gather
///
/// The contracts are in <layout/cuda/algorithms.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/sort_by_key.hpp needs a CUDA compiler (nvcc)"
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

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace layout::cuda {
namespace detail {

template <class Index>
__global__ void iota_kernel(Index* out, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<Index>(i);
}

/// Sorts keys (in place) stably on bits [begin_bit, end_bit) with CUB and returns the
/// permutation. U is the key type CUB sees.
template <class Index, class U>
layout::vector<Index, policy::aos, device_memory>
sort_permutation(U* keys, std::size_t n, int begin_bit, int end_bit, cudaStream_t stream,
                 const char* function) {
    layout::detail::check_index_type<Index>(function, n);
    layout::vector<Index, policy::aos, device_memory> perm(n);
    if (n == 0) return perm;
    Index* p = perm.view().storage().data;
    iota_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(p, n);
    check_launch("layout::cuda::detail::iota_kernel");

    stream_buffer<U> keys_alt(n, stream);
    stream_buffer<Index> perm_alt(n, stream);
    cub::DoubleBuffer<U> k(keys, keys_alt.get());
    cub::DoubleBuffer<Index> v(p, perm_alt.get());
    // n fits in Index (checked above): count in the matching unsigned width, so that CUB uses
    // 32-bit offsets whenever 32-bit indices do.
    using count_type = std::conditional_t<(sizeof(Index) <= 4), std::uint32_t, std::uint64_t>;
    const auto count = static_cast<count_type>(n);
    std::size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, count, begin_bit, end_bit,
                                          stream),
          "cub::DeviceRadixSort::SortPairs");
    stream_buffer<std::byte> temp(temp_bytes, stream);
    check(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, count, begin_bit, end_bit,
                                          stream),
          "cub::DeviceRadixSort::SortPairs");
    if (k.Current() != keys)
        check(cudaMemcpyAsync(keys, k.Current(), n * sizeof(U), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    if (v.Current() != p)
        check(cudaMemcpyAsync(p, v.Current(), n * sizeof(Index), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    return perm;
}

} // namespace detail

// ---- sorting by key -----------------------------------------------------------------------------

/// Sorts keys (device memory, arithmetic type) stably in place with CUB's radix sort and returns
/// the permutation: perm[i] = the old position of the element now at i. Index defaults to 32
/// bits (half the bytes of 64-bit indices through the sort); n must fit in Index, else
/// std::length_error. Floating-point keys sort by CUB's order (-0.0 before +0.0; NaNs last).
template <class Index = std::uint32_t, detail::device_key_range Keys>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys,
                                                              cudaStream_t stream = 0) {
    const auto k = detail::device_span(keys);
#if LAYOUT_CHECK_BOUNDS
    if (!k.empty()) detail::check_device_accessible(k.data(), "layout::cuda::sort_by_key", "keys");
#endif
    using K = typename decltype(k)::value_type;
    return detail::sort_permutation<Index>(k.data(), k.size(), 0, int(sizeof(K) * 8), stream,
                                           "layout::cuda::sort_by_key");
}

/// Sorts keys and reorders every field of x (a device container or a view of device memory, any
/// layout) the same way: a CUB sort of (key, index) pairs, then one gather of x. Returns the
/// permutation. The keys may be one of x's own columns (sorting by a field of the element):
/// x is saved before the sort, and the gather writes that column sorted. Keys that overlap x
/// otherwise throw std::invalid_argument, before anything is launched.
///
///     auto perm = layout::cuda::sort_by_key(cell_of_particle, particles);
///     layout::cuda::sort_by_key(std::span<int>(soa.view().column<&P::cell>().data(), n), soa);
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys, X&& x,
                                                              cudaStream_t stream = 0) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::sort_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    if (k.size() != v.size())
        layout::detail::throw_size_mismatch("layout::cuda::sort_by_key", k.size(), "keys", v.size(),
                                            "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible("layout::cuda::sort_by_key", v, v);
#endif
    (void)layout::detail::keys_are_column_of("layout::cuda::sort_by_key", v, k);
    const detail::permute_scratch scratch(v, stream); // allocated before the keys change
    scratch.save(stream); // x as it was, with its key column unsorted if the keys are one
    auto perm = cuda::sort_by_key<Index>(k, stream);
    scratch.gather_back(perm.view().storage().data, stream, "layout::cuda::sort_by_key");
    return perm;
}

} // namespace layout::cuda
