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
/// A container's remove_if goes through a second block instead (remove_into: the kept elements
/// selected into it, one pass, and the blocks swapped), from a workspace: the caller's, which
/// keeps its memory from call to call, or a local one.
///
/// Streams: everything runs on `stream`: the container's own stream (x.stream()) when none is
/// given, else the default stream for a view. Both return the new count, which the host learns
/// by reading it back: each call waits for `stream` once, at its end. A container is resized on
/// the host then (remove_if). Temporaries are stream-ordered, from the container's resource (the
/// device's default pool for a view); if one cannot be allocated, the resource's exception
/// (layout::cuda::bad_alloc) is thrown before anything was written.
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
#include "../workspace.hpp"
#include "permute.hpp"
#include "reorder.hpp"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

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
template <bool Value, class T, class L, class M, class Pred>
__global__ void flag_kernel(layout::view<const T, L, M> v, Pred pred, unsigned char* flags) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < v.size()) flags[i] = static_cast<bool>(pred(v[i])) == Value;
}

template <bool Value, class T, class L, class M, class Pred>
void launch_flags(const layout::view<const T, L, M>& v, const Pred& pred, unsigned char* flags,
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
template <std::size_t Leaf, class T, class L, class M>
auto leaf_values(const layout::view<T, L, M>& v) {
    if constexpr (layout::detail::contiguous_columns_v<layout::view<T, L, M>>)
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
template <class T, class L, class M, class Pred>
std::size_t remove_on_device(const layout::view<T, L, M>& v, const Pred& pred, cudaStream_t stream,
                             resource_ref resource) {
    constexpr const char* function = "layout::cuda::remove_if";
    const auto n = static_cast<std::int64_t>(v.size());
    stream_buffer<std::int64_t> count(1, stream, resource);
    std::size_t temp_bytes = 0;
    if constexpr (layout::detail::packed_elements_v<T, L>) {
        const keep_unless<T, L, Pred> keep{pred};
        check(cub::DeviceSelect::If(nullptr, temp_bytes, v.data(), count.get(), n, keep, stream),
              "cub::DeviceSelect::If");
        stream_buffer<std::byte> temp(temp_bytes, stream, resource);
        check(cub::DeviceSelect::If(temp.get(), temp_bytes, v.data(), count.get(), n, keep, stream),
              "cub::DeviceSelect::If");
    } else {
        stream_buffer<unsigned char> flags(v.size(), stream, resource);
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
            stream_buffer<std::byte> temp(temp_bytes, stream, resource);
            launch_flags<false>(layout::view<const T, L, M>(v), pred, flags.get(), stream,
                                function);
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
template <class I, class T, class L, class M, class Pred>
std::size_t partition_on_device(const layout::view<T, L, M>& v, const Pred& pred,
                                cudaStream_t stream, resource_ref resource) {
    constexpr const char* function = "layout::cuda::stable_partition";
    const std::size_t n = v.size();
    stream_buffer<unsigned char> flags(n, stream, resource);
    stream_buffer<I> positions(n, stream, resource), perm(n, stream, resource);
    stream_buffer<std::int64_t> count(1, stream, resource);
    std::size_t temp_bytes = 0;
    check(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, flags.get(), positions.get(),
                                         ::cuda::std::plus<>{}, I{0}, n, stream),
          "cub::DeviceScan::ExclusiveScan");
    stream_buffer<std::byte> temp(temp_bytes, stream, resource);
    const permute_scratch scratch(v, stream, resource); // every allocation before the first write
    launch_flags<true>(layout::view<const T, L, M>(v), pred, flags.get(), stream, function);
    check(cub::DeviceScan::ExclusiveScan(temp.get(), temp_bytes, flags.get(), positions.get(),
                                         ::cuda::std::plus<>{}, I{0}, n, stream),
          "cub::DeviceScan::ExclusiveScan");
    partition_places_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(
        flags.get(), positions.get(), n, perm.get(), count.get());
    check_launch(function);
    scratch.permute(perm.get(), stream, function);
    return read_count(count.get(), stream);
}

/// A position's element is kept: what the selection of kept positions asks.
template <class T, class L, class M, class Pred>
struct keep_position {
    layout::view<const T, L, M> v;
    Pred pred;
    LAYOUT_EXEC_CHECK_DISABLE
    template <class I>
    __device__ bool operator()(const I& i) const {
        return !static_cast<bool>(pred(v[static_cast<std::size_t>(i)]));
    }
};

/// remove_if of a container through the workspace: the kept elements are selected into its
/// second block (AoS: whole elements, one CUB selection; other layouts: the kept positions by one
/// selection, then one gather of every leaf), which becomes the container's. One read of what
/// pred reads, one of the kept elements, one write of them; one wait, for the count.
template <class C, class Pred>
std::size_t remove_into(C& c, const Pred& pred, workspace& ws, cudaStream_t stream) {
    constexpr const char* function = "layout::cuda::remove_if";
    using T = typename C::value_type;
    using L = typename C::layout_type;
    using M = typename C::memory_type;
    const std::size_t n = c.size();
    if (n == 0) return 0;
    const auto to = ws.element_view(c, n); // every allocation before the first write
    auto* count = ws.get<std::int64_t>(workspace::slot::counter, 1);
    const layout::view<const T, L, M> from = c.view();
    std::size_t temp_bytes = 0;
    const auto select = [&](auto first, auto out, auto keep) {
        const auto m = static_cast<std::int64_t>(n);
        check(cub::DeviceSelect::If(nullptr, temp_bytes, first, out, count, m, keep, stream),
              "cub::DeviceSelect::If");
        void* temp = ws.bytes(workspace::slot::temp, temp_bytes);
        check(cub::DeviceSelect::If(temp, temp_bytes, first, out, count, m, keep, stream),
              "cub::DeviceSelect::If");
    };
    const auto positions = [&]<class I>(I*) {
        I* kept = ws.get<I>(workspace::slot::indices, n);
        select(thrust::counting_iterator<I>(0), kept, keep_position<T, L, M, Pred>{from, pred});
        reorder_into_counted(c, kept, count, ws, stream, function);
    };
    if constexpr (layout::detail::packed_elements_v<T, L>)
        select(from.data(), to.data(), keep_unless<T, L, Pred>{pred});
    else if (n <= std::numeric_limits<std::uint32_t>::max())
        positions(static_cast<std::uint32_t*>(nullptr));
    else
        positions(static_cast<std::uint64_t*>(nullptr));
    const std::size_t kept = read_count(count, stream);
    ws.adopt_elements(c, kept);
    return kept;
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
/// front; returns how many were kept, and resizes a container to that. Waits for stream, once.
/// A container is compacted into a second block from a local workspace (its resource, on
/// stream); a view in place.
template <layout::detail::viewable X, class Pred>
std::size_t remove_if(X&& x, Pred pred, stream_ref stream) {
    const auto v = detail::mutable_device_view(x, "layout::cuda::remove_if");
    if constexpr (layout::detail::is_vector_v<std::remove_cvref_t<X>>) {
        workspace ws(stream, x.resource());
        return detail::remove_into(x, pred, ws, native(stream));
    } else {
        return v.size() ? detail::remove_on_device(v, pred, native(stream),
                                                   device_memory::default_resource())
                        : 0;
    }
}
/// On the container's stream (a view: the default stream).
template <layout::detail::viewable X, class Pred>
std::size_t remove_if(X&& x, Pred pred) {
    return cuda::remove_if(x, pred, detail::stream_for(x));
}
/// On the container's stream, with the workspace's memory (ws must serve that stream, else
/// std::invalid_argument): once the workspace is warm, nothing is allocated. The kept elements
/// go to the workspace's second block, which becomes the container's (its old block stays in
/// the workspace). One wait, for the count.
///
///     layout::cuda::workspace ws(particles.stream());
///     std::size_t kept = layout::cuda::remove_if(particles, left_the_box{}, ws);
template <class C, class Pred>
    requires layout::detail::is_vector_v<C>
std::size_t remove_if(C& c, Pred pred, workspace& ws) {
    (void)detail::mutable_device_view(c, "layout::cuda::remove_if");
    ws.check_stream(c.stream(), "layout::cuda::remove_if");
    return detail::remove_into(c, pred, ws, native(c.stream()));
}

/// Reorders x so that the elements for which pred(element) is true come first, the others
/// after them, each group in its old order; returns how many satisfy pred. Waits for stream.
template <layout::detail::viewable X, class Pred>
std::size_t stable_partition(X&& x, Pred pred, stream_ref stream) {
    const auto v = detail::mutable_device_view(x, "layout::cuda::stable_partition");
    if (v.size() == 0) return 0;
    const cudaStream_t s = native(stream);
    const resource_ref resource = detail::resource_for(x);
    // 32-bit places where they suffice: half the bytes through the scan.
    if (v.size() <= std::numeric_limits<std::uint32_t>::max())
        return detail::partition_on_device<std::uint32_t>(v, pred, s, resource);
    return detail::partition_on_device<std::uint64_t>(v, pred, s, resource);
}
/// On the container's stream (a view: the default stream).
template <layout::detail::viewable X, class Pred>
std::size_t stable_partition(X&& x, Pred pred) {
    return cuda::stable_partition(x, pred, detail::stream_for(x));
}

} // namespace layout::cuda
