/// \file cuda/algorithms/reorder.hpp
/// Reordering a device container through a second block, as a hand-written step does with
/// double buffers: the elements are gathered once into the workspace's element block, which
/// then becomes the container's (its old block stays in the workspace for the next call). One
/// pass over the elements, where an in-place reorder needs two (a copy aside, a gather back).
///
///     detail::reorder_into(c, perm, n, ws, stream);           // c[i] = old c[perm[i]], i < n
///     detail::reorder_into_counted(c, kept, count, ws, s);    // the count still on the device
///
/// While the stream is captured into a CUDA graph, the container keeps its block (the graph
/// replays the addresses it saw): the elements are copied back from the second block, one more
/// pass in bulk, so that the graph can be replayed any number of times.
///
/// Also, for sorts by a field that is not a contiguous column, the keys copied out with the
/// first permutation in one pass (copy_keys_and_positions), and the reorder that writes the key
/// leaf from the sorted keys (reorder_into_with_keys).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/reorder.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../path.hpp"
#include "../../policies.hpp"
#include "../../reflect.hpp"
#include "../../runs.hpp"
#include "../../vector.hpp"
#include "../../view.hpp"
#include "../detail/launch.hpp"
#include "../error.hpp"
#include "../workspace.hpp"
#include "gather_scatter.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout::cuda::detail {

/// dst[i] = src[indices[i]] for i < *count (a count a CUB selection left on the device).
template <class T, class DL, class SL, class DM, class SM, class I, class Count>
__global__ void
gather_counted_kernel(layout::view<T, DL, DM> dst, layout::view<const T, SL, SM> src,
                      const I* LAYOUT_RESTRICT indices, const Count* LAYOUT_RESTRICT count) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= static_cast<std::size_t>(*count)) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(i), src.storage().at(j),
                                std::make_index_sequence<leaf_count_v<T>>{});
}

/// Whether stream is being captured into a CUDA graph.
inline bool capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
    return status != cudaStreamCaptureStatusNone;
}

/// c's elements back from the element block, where a graph is being captured: a graph replays
/// the addresses it captured, so the container keeps its block there (one more copy, in bulk).
template <class C>
void keep_block_while_capturing(C& c, std::size_t n, workspace& ws, cudaStream_t stream) {
    if (!capturing(stream)) {
        ws.adopt_elements(c, n);
        return;
    }
    using T = typename C::value_type;
    using L = typename C::layout_type;
    const auto from = ws.element_view(c, n);
    layout::detail::for_each_run(
        c.view(), layout::view<const T, L, typename C::memory_type>(from), n,
        [&](void* d, const void* s, std::size_t bytes) {
            check(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpyAsync");
        });
    layout::detail::size_access::set(c, n);
}

/// c[i] = old c[perm[i]] for i in [0, n), then c.size() == n: through ws's element block,
/// which becomes c's (while a graph is captured, copied back instead).
template <class C, class I>
void reorder_into(C& c, const I* perm, std::size_t n, workspace& ws, cudaStream_t stream,
                  const char* function) {
    using T = typename C::value_type;
    const auto to = ws.element_view(c, n);
    launch_gather(to,
                  layout::view<const T, typename C::layout_type, typename C::memory_type>(c.view()),
                  perm, n, stream, function);
    keep_block_while_capturing(c, n, ws, stream);
}

/// The same for the first *count indices (at most c.size()), a count still on the device: the
/// launch covers c.size() threads, those past the count return at once. The host learns the
/// count later (one wait for the whole algorithm); c.size() is set then by the caller.
template <class C, class I, class Count>
void reorder_into_counted(C& c, const I* indices, const Count* count, workspace& ws,
                          cudaStream_t stream, const char* function) {
    using T = typename C::value_type;
    const std::size_t n = c.size();
    const auto to = ws.element_view(c, n);
    if (n == 0) return;
    gather_counted_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(
        to, layout::view<const T, typename C::layout_type, typename C::memory_type>(c.view()),
        indices, count);
    check_launch(function);
}

/// dst[i] = src[indices[i]] for every leaf but Skip, whose new values the caller wrote.
template <class Leaves, class T, class DL, class SL, class DM, class SM, class I>
__global__ void gather_leaves_kernel(layout::view<T, DL, DM> dst, layout::view<const T, SL, SM> src,
                                     const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(i), src.storage().at(j), Leaves{});
}

/// The leaves of T but Skip.
template <class T, std::size_t Skip>
constexpr auto leaves_but() {
    constexpr std::size_t n = leaf_count_v<T>;
    return []<std::size_t... K>(std::index_sequence<K...>) {
        return std::index_sequence<(K < Skip ? K : K + 1)...>{};
    }(std::make_index_sequence<n - 1>{});
}

/// c[i] = old c[perm[i]] for every leaf but KeyLeaf, whose sorted values the caller has already
/// written into the element block (to); then the blocks swap, as reorder_into.
template <std::size_t KeyLeaf, class C, class To, class I>
void reorder_into_but(C& c, const To& to, const I* perm, std::size_t n, workspace& ws,
                      cudaStream_t stream, const char* function) {
    using T = typename C::value_type;
    if (n) {
        const layout::view<const T, typename C::layout_type, typename C::memory_type> from =
            c.view();
        using leaves = decltype(leaves_but<T, KeyLeaf>());
        gather_leaves_kernel<leaves>
            <<<grid_size(n, block_size, function), block_size, 0, stream>>>(to, from, perm, n);
        check_launch(function);
    }
    keep_block_while_capturing(c, n, ws, stream);
}

/// dst[i] = src[indices[i]] for every leaf but KeyLeaf, and dst[i]'s KeyLeaf = sorted_keys[i].
template <class Leaves, std::size_t KeyLeaf, class T, class DL, class SL, class DM, class SM,
          class I, class K>
__global__ void gather_leaves_and_key_kernel(layout::view<T, DL, DM> dst,
                                             layout::view<const T, SL, SM> src,
                                             const I* LAYOUT_RESTRICT indices,
                                             const K* LAYOUT_RESTRICT sorted_keys, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(i), src.storage().at(j), Leaves{});
    dst.storage().at(i).template leaf<KeyLeaf>() = sorted_keys[i];
}

/// reorder_into, given the sorted keys (a copy of leaf KeyLeaf that the sort ordered): where
/// the layout splits an element's leaves apart (SoA blocks, AoSoA, a split), the key leaf is
/// written from them in order instead of gathered, one scattered read less per element, as a
/// hand-written SoA sort does; under AoS the whole element is gathered (its key shares its
/// cache lines).
template <std::size_t KeyLeaf, class C, class I, class K>
void reorder_into_with_keys(C& c, const I* perm, const K* sorted_keys, std::size_t n, workspace& ws,
                            cudaStream_t stream, const char* function) {
    using T = typename C::value_type;
    if constexpr (std::is_same_v<typename C::layout_type, policy::aos>) {
        (void)sorted_keys;
        reorder_into(c, perm, n, ws, stream, function);
    } else {
        const auto to = ws.element_view(c, n);
        if (n) {
            using leaves = decltype(leaves_but<T, KeyLeaf>());
            gather_leaves_and_key_kernel<leaves, KeyLeaf>
                <<<grid_size(n, block_size, function), block_size, 0, stream>>>(
                    to,
                    layout::view<const T, typename C::layout_type, typename C::memory_type>(
                        c.view()),
                    perm, sorted_keys, n);
            check_launch(function);
        }
        keep_block_while_capturing(c, n, ws, stream);
    }
}

/// keys[i] = the leaf Leaf of v[i], positions[i] = i: a sort's keys and first permutation.
template <std::size_t Leaf, class V, class K, class I>
__global__ void copy_keys_kernel(V v, K* LAYOUT_RESTRICT keys, I* LAYOUT_RESTRICT positions) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= v.size()) return;
    keys[i] = v.storage().at(i).template leaf<Leaf>();
    positions[i] = static_cast<I>(i);
}

/// A sort's double buffers in the workspace (slots keys, keys_alt, indices, indices_alt).
template <class Key, class Index>
struct key_buffers {
    Key *keys, *keys_alt;
    Index *perm, *perm_alt;
};

/// The double buffers of a sort by leaf Leaf of v (as Key), their first halves filled in one
/// pass: keys[i] = the leaf of v[i], perm[i] = i.
template <std::size_t Leaf, class Key, class Index, class V>
key_buffers<Key, Index> copy_keys_and_positions(const V& v, workspace& ws, cudaStream_t stream,
                                                const char* function) {
    const std::size_t n = v.size();
    const key_buffers<Key, Index> b{
        ws.get<Key>(workspace::slot::keys, n), ws.get<Key>(workspace::slot::keys_alt, n),
        ws.get<Index>(workspace::slot::indices, n), ws.get<Index>(workspace::slot::indices_alt, n)};
    if (n == 0) return b;
    copy_keys_kernel<Leaf><<<grid_size(n, block_size, function), block_size, 0, stream>>>(
        layout::view<const typename V::value_type, typename V::layout_type,
                     typename V::memory_type>(v),
        b.keys, b.perm);
    check_launch(function);
    return b;
}

} // namespace layout::cuda::detail
