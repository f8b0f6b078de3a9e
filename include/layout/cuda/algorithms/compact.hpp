/// \file cuda/algorithms/compact.hpp
/// layout::cuda::remove_if and layout::cuda::stable_partition: the device versions of
/// <layout/algorithms/compact.hpp>, stable, on every layout.
///
///     auto n = layout::cuda::remove_if(particles, dead);        // particles.size() == n
///     auto k = layout::cuda::stable_partition(particles, alive); // [0, k) alive, in order
///
/// The predicate is a functor (or an extended __device__ lambda) that takes a read-only element
/// proxy, or anything the proxy converts to (const T&); it is called once per element, in no
/// particular order, on the device.
///
/// remove_if compacts in place with CUB's DeviceSelect, which keeps the order and needs no
/// second copy of the elements: where elements are whole T objects (AoS), one cub::DeviceSelect::If
/// over them; otherwise a kernel writes one keep-flag per element and each leaf's column is
/// compacted by cub::DeviceSelect::Flagged (a SoA column is a plain pointer). stable_partition
/// writes a flag per element, scans the flags (cub::DeviceScan) into each element's place, and
/// moves the elements there through a scratch copy (permute_in_place's path).
///
/// Streams: everything runs on `stream`: the container's own stream (x.stream()) when none is
/// given, else the default stream for a view. Both return the new count, which the host learns
/// by reading it back: each call waits for `stream` once, at its end. A container is resized on
/// the host then (remove_if). Temporaries are stream-ordered (cudaMallocAsync); if one cannot be
/// allocated, layout::cuda::bad_alloc is thrown before anything was written.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/compact.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/compact.hpp"
#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../config.hpp"
#include "../../reflect.hpp"
#include "../../view.hpp"
#include "../detail/algorithm_checks.hpp"
#include "../detail/launch.hpp"
#include "../error.hpp"
#include "../memory_resource.hpp"
#include "permute.hpp"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

/// flags[i] = (pred(v[i]) == Value).
LAYOUT_EXEC_CHECK_DISABLE
template <bool Value, class T, class L, class Pred>
__global__ void flag_kernel(layout::view<const T, L> v, Pred pred, unsigned char* flags) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < v.size()) flags[i] = static_cast<bool>(pred(v[i])) == Value;
}

template <bool Value, class T, class L, class Pred>
void launch_flags(const layout::view<const T, L>& v, const Pred& pred, unsigned char* flags,
                  cudaStream_t stream, const char* function) {
    flag_kernel<Value>
        <<<grid_size(v.size(), block_size, function), block_size, 0, stream>>>(v, pred, flags);
    check_launch(function);
}

/// Not pred, over whole elements: what cub::DeviceSelect::If keeps where elements are T objects.
template <class T, class L, class Pred>
struct keep_unless {
    Pred pred;
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE bool operator()(const T& e) const {
        return !static_cast<bool>(pred(layout::view<const T, L>(&e, 1)[0]));
    }
};

/// Leaf's values as CUB reads and writes them: the column's pointer where it is contiguous,
/// else the column's iterator.
template <std::size_t Leaf, class T, class L>
auto leaf_values(const layout::view<T, L>& v) {
    if constexpr (layout::detail::contiguous_columns_v<layout::view<T, L>>)
        return v.storage().template leaf_data<Leaf>();
    else
        return v.template leaf_column<Leaf>().begin();
}

/// The count CUB wrote, read back; waits for stream.
inline std::size_t read_count(const std::int64_t* count, cudaStream_t stream) {
    std::int64_t n = 0;
    check(cudaMemcpyAsync(&n, count, sizeof n, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return static_cast<std::size_t>(n);
}

/// Keeps the elements for which pred is false, in order at the front; returns how many.
template <class T, class L, class Pred>
std::size_t remove_on_device(const layout::view<T, L>& v, const Pred& pred, cudaStream_t stream) {
    constexpr const char* function = "layout::cuda::remove_if";
    const auto n = static_cast<std::int64_t>(v.size());
    stream_buffer<std::int64_t> count(1, stream);
    std::size_t temp_bytes = 0;
    if constexpr (layout::detail::packed_elements_v<T, L>) {
        const keep_unless<T, L, Pred> keep{pred};
        check(cub::DeviceSelect::If(nullptr, temp_bytes, v.data(), count.get(), n, keep, stream),
              "cub::DeviceSelect::If");
        stream_buffer<std::byte> temp(temp_bytes, stream);
        check(cub::DeviceSelect::If(temp.get(), temp_bytes, v.data(), count.get(), n, keep, stream),
              "cub::DeviceSelect::If");
    } else {
        stream_buffer<unsigned char> flags(v.size(), stream);
        [&]<std::size_t... Leaf>(std::index_sequence<Leaf...>) {
            // One temporary, as large as the largest leaf's needs.
            (([&] {
                 std::size_t bytes = 0;
                 check(cub::DeviceSelect::Flagged(nullptr, bytes, leaf_values<Leaf>(v), flags.get(),
                                                  count.get(), n, stream),
                       "cub::DeviceSelect::Flagged");
                 temp_bytes = std::max(temp_bytes, bytes);
             }()),
             ...);
            stream_buffer<std::byte> temp(temp_bytes, stream);
            launch_flags<false>(layout::view<const T, L>(v), pred, flags.get(), stream, function);
            (check(cub::DeviceSelect::Flagged(temp.get(), temp_bytes, leaf_values<Leaf>(v),
                                              flags.get(), count.get(), n, stream),
                   "cub::DeviceSelect::Flagged"),
             ...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    }
    return read_count(count.get(), stream);
}

/// perm[d] = i, where d is element i's place after the partition: a flagged element at its
/// position among the flagged ones, the others after all of them, in their order. The last
/// thread also writes the number flagged.
template <class I>
__global__ void partition_places_kernel(const unsigned char* flags, const I* positions,
                                        std::size_t n, I* perm, std::int64_t* selected) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const I flagged = positions[n - 1] + flags[n - 1];
    const I index = static_cast<I>(i);
    perm[flags[i] ? positions[i] : flagged + (index - positions[i])] = index;
    if (i == n - 1) *selected = static_cast<std::int64_t>(flagged);
}

/// Moves the elements for which pred is true to the front, the others after them, both in
/// order; returns how many satisfy pred. I: an index type that holds v.size().
template <class I, class T, class L, class Pred>
std::size_t partition_on_device(const layout::view<T, L>& v, const Pred& pred,
                                cudaStream_t stream) {
    constexpr const char* function = "layout::cuda::stable_partition";
    const std::size_t n = v.size();
    stream_buffer<unsigned char> flags(n, stream);
    stream_buffer<I> positions(n, stream), perm(n, stream);
    stream_buffer<std::int64_t> count(1, stream);
    std::size_t temp_bytes = 0;
    check(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, flags.get(), positions.get(),
                                         ::cuda::std::plus<>{}, I{0}, n, stream),
          "cub::DeviceScan::ExclusiveScan");
    stream_buffer<std::byte> temp(temp_bytes, stream);
    const permute_scratch scratch(v, stream); // every allocation before the first write
    launch_flags<true>(layout::view<const T, L>(v), pred, flags.get(), stream, function);
    check(cub::DeviceScan::ExclusiveScan(temp.get(), temp_bytes, flags.get(), positions.get(),
                                         ::cuda::std::plus<>{}, I{0}, n, stream),
          "cub::DeviceScan::ExclusiveScan");
    partition_places_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(
        flags.get(), positions.get(), n, perm.get(), count.get());
    check_launch(function);
    scratch.permute(perm.get(), stream, function);
    return read_count(count.get(), stream);
}

/// The stream of x: a container's own, the default stream for a view.
template <class X>
cudaStream_t stream_of(const X& x) noexcept {
    if constexpr (layout::detail::is_vector_v<std::remove_cv_t<X>>)
        return native(x.stream());
    else
        return 0;
}

template <class X>
auto mutable_device_view(X& x, const char* function) {
    check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::remove_if / stable_partition: the view or container is "
                  "read-only");
#if LAYOUT_CHECK_BOUNDS
    check_views_accessible(function, v, v);
#else
    (void)function;
#endif
    return v;
}

} // namespace detail

// ---- remove_if / stable_partition ---------------------------------------------------------------

/// Removes the elements for which pred(element) is true, keeping the others in order at the
/// front; returns how many were kept, and resizes a container to that. Waits for stream.
template <layout::detail::viewable X, class Pred>
std::size_t remove_if(X&& x, Pred pred, cudaStream_t stream) {
    const auto v = detail::mutable_device_view(x, "layout::cuda::remove_if");
    const std::size_t kept = v.size() ? detail::remove_on_device(v, pred, stream) : 0;
    layout::detail::shrink_to(x, kept);
    return kept;
}
/// On the container's stream (a view: the default stream).
template <layout::detail::viewable X, class Pred>
std::size_t remove_if(X&& x, Pred pred) {
    return cuda::remove_if(x, pred, detail::stream_of(x));
}

/// Reorders x so that the elements for which pred(element) is true come first, the others
/// after them, each group in its old order; returns how many satisfy pred. Waits for stream.
template <layout::detail::viewable X, class Pred>
std::size_t stable_partition(X&& x, Pred pred, cudaStream_t stream) {
    const auto v = detail::mutable_device_view(x, "layout::cuda::stable_partition");
    if (v.size() == 0) return 0;
    // 32-bit places where they suffice: half the bytes through the scan.
    if (v.size() <= std::numeric_limits<std::uint32_t>::max())
        return detail::partition_on_device<std::uint32_t>(v, pred, stream);
    return detail::partition_on_device<std::uint64_t>(v, pred, stream);
}
/// On the container's stream (a view: the default stream).
template <layout::detail::viewable X, class Pred>
std::size_t stable_partition(X&& x, Pred pred) {
    return cuda::stable_partition(x, pred, detail::stream_of(x));
}

} // namespace layout::cuda
