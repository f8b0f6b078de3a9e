/// \file cuda/algorithms/gather_scatter.hpp
/// layout::cuda::gather and layout::cuda::scatter: their kernels, and the launches that
/// permute, sort_by_key and bin_by_key reuse.
///
///     layout::cuda::gather(src, idx, dst);          // dst[i] = src[idx[i]], one thread per i
///     layout::cuda::scatter(dst, idx, src);         // src[idx[i]] = dst[i]
///
/// Kernels: thread i reads indices[i] once and copies every leaf of element indices[i] to
/// element i (gather), or of element i to element indices[i] (scatter). Each leaf is a separate
/// load and store, so under SoA and AoSoA a warp's writes of one leaf are contiguous (gather)
/// and its reads of one leaf are contiguous (scatter). AoS to AoS, when sizeof(T) is a multiple
/// of 16 (or 8) bytes and both arrays are so aligned, whole elements move in 16- (8-) byte
/// vector accesses instead: per leaf, that is a wider access of the same bytes.
///
/// The contracts (streams, errors, repeated indices) are in <layout/cuda/algorithms.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/gather_scatter.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/detail/algorithm_checks.hpp"
#include "../../algorithms/gather_scatter.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../reflect.hpp"
#include "../../view.hpp"
#include "../detail/algorithm_checks.hpp"
#include "../detail/device_ranges.hpp"
#include "../detail/launch.hpp"
#include "../error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

// ---- kernels ------------------------------------------------------------------------------------

/// dst[i] = src[indices[i]], every leaf; one thread per destination element.
template <class T, class DL, class SL, class DM, class SM, class I>
__global__ void gather_kernel(layout::view<T, DL, DM> dst, layout::view<const T, SL, SM> src,
                              const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(i), src.storage().at(j),
                                std::make_index_sequence<leaf_count_v<T>>{});
}

/// dst[indices[i]] = src[i], every leaf; one thread per source element.
template <class T, class DL, class SL, class DM, class SM, class I>
__global__ void scatter_kernel(layout::view<T, DL, DM> dst, layout::view<const T, SL, SM> src,
                               const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(j), src.storage().at(i),
                                std::make_index_sequence<leaf_count_v<T>>{});
}

/// AoS to AoS: whole elements in 16- or 8-byte vector accesses (two LDG.128 for a 32-byte
/// Particle instead of eight 4-byte loads, each of which makes a warp touch 32 sectors). Chunk is
/// a vector of Word, Word as wide as the widest leaf: the PTX memory model treats a vector access
/// as one access per Word, and no leaf straddles two Words, so a scatter with repeated indices
/// still never tears a leaf. Padding bytes are copied too.
template <class Chunk, bool Gather, class T, class I>
__global__ void move_chunks_kernel(T* LAYOUT_RESTRICT dst, const T* LAYOUT_RESTRICT src,
                                   const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto k = static_cast<std::size_t>(indices[i]);
    const Chunk* s = reinterpret_cast<const Chunk*>(src + (Gather ? k : i));
    Chunk* d = reinterpret_cast<Chunk*>(dst + (Gather ? i : k));
    constexpr std::size_t chunks = sizeof(T) / sizeof(Chunk);
#pragma unroll
    for (std::size_t c = 0; c < chunks; ++c) d[c] = s[c];
}

/// The widest leaf of T, in bytes.
template <class T>
constexpr std::size_t widest_leaf() {
    std::size_t w = 0;
    for (const auto& leaf : layout::detail::leaf_table<T>) w = leaf.size > w ? leaf.size : w;
    return w;
}

/// Launches move_chunks_kernel if both sides are AoS and T splits into aligned 16- or 8-byte
/// chunks of Words at least as wide as its widest leaf; returns false (nothing launched) if not.
template <bool Gather, class T, class DL, class SL, class DM, class SM, class I>
bool launch_chunks(const layout::view<T, DL, DM>& dst, const layout::view<const T, SL, SM>& src,
                   const I* indices, std::size_t n, unsigned grid, cudaStream_t stream) {
    if constexpr (layout::detail::packed_elements_v<T, DL> &&
                  layout::detail::packed_elements_v<T, SL> && widest_leaf<T>() <= 8) {
        const auto address = reinterpret_cast<std::uintptr_t>(dst.storage().data) |
                             reinterpret_cast<std::uintptr_t>(src.storage().data);
        using word16 = std::conditional_t<(widest_leaf<T>() <= 4), uint4, ulonglong2>;
        using word8 = std::conditional_t<(widest_leaf<T>() <= 4), uint2, unsigned long long>;
        if constexpr (sizeof(T) % 16 == 0) {
            if (address % 16 == 0) {
                move_chunks_kernel<word16, Gather><<<grid, block_size, 0, stream>>>(
                    dst.storage().data, src.storage().data, indices, n);
                return true;
            }
        }
        if constexpr (sizeof(T) % 8 == 0) {
            if (address % 8 == 0) {
                move_chunks_kernel<word8, Gather><<<grid, block_size, 0, stream>>>(
                    dst.storage().data, src.storage().data, indices, n);
                return true;
            }
        }
    }
    (void)dst, (void)src, (void)indices, (void)n, (void)grid, (void)stream;
    return false;
}

// ---- the launches -------------------------------------------------------------------------------

template <class T, class DL, class SL, class DM, class SM, class I>
void launch_gather(const layout::view<T, DL, DM>& dst, const layout::view<const T, SL, SM>& src,
                   const I* indices, std::size_t n, cudaStream_t stream, const char* function) {
    if (n == 0) return;
    const unsigned grid = grid_size(n, block_size, function);
    if (!launch_chunks<true>(dst, src, indices, n, grid, stream))
        gather_kernel<<<grid, block_size, 0, stream>>>(dst, src, indices, n);
    check_launch(function);
}

template <class T, class DL, class SL, class DM, class SM, class I>
void launch_scatter(const layout::view<T, DL, DM>& dst, const layout::view<const T, SL, SM>& src,
                    const I* indices, std::size_t n, cudaStream_t stream, const char* function) {
    if (n == 0) return;
    const unsigned grid = grid_size(n, block_size, function);
    if (!launch_chunks<false>(dst, src, indices, n, grid, stream))
        scatter_kernel<<<grid, block_size, 0, stream>>>(dst, src, indices, n);
    check_launch(function);
}

} // namespace detail

// ---- gather / scatter ---------------------------------------------------------------------------

/// dst[i] = src[indices[i]] for i in [0, count): indices is a device pointer. Asynchronous on
/// stream. Throws std::length_error if dst.size() != count.
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void gather(Src&& src, const I* indices, std::size_t count, Dst&& dst, stream_ref stream) {
    constexpr const char* function = "layout::cuda::gather";
    const cudaStream_t s = native(stream);
    const auto [sv, dv] = detail::check_device_move(function, src, dst, count,
                                                    layout::detail::per_index::destination);
    detail::validate_indices(function, "index", indices, count, sv.size(), "the source's size is",
                             s);
    detail::launch_gather(dv, sv, indices, count, s, function);
}
/// On dst's stream where dst is a container, else src's, else the default stream.
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void gather(Src&& src, const I* indices, std::size_t count, Dst&& dst) {
    cuda::gather(src, indices, count, dst, detail::stream_for(dst, src));
}

/// dst[i] = src[indices[i]]; indices: a layout::cuda::aos_vector<I>, a view<I, aos> or a
/// std::span over device memory.
template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void gather(Src&& src, Indices&& indices, Dst&& dst, stream_ref stream) {
    const auto idx = detail::device_span(indices);
    cuda::gather(src, idx.data(), idx.size(), dst, stream);
}
template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void gather(Src&& src, Indices&& indices, Dst&& dst) {
    cuda::gather(src, indices, dst, detail::stream_for(dst, src));
}

/// dst[indices[i]] = src[i] for i in [0, count). Throws std::length_error if src.size() !=
/// count. Repeated indices: see <layout/cuda/algorithms.hpp> (per leaf, one of the colliding
/// values).
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void scatter(Src&& src, const I* indices, std::size_t count, Dst&& dst, stream_ref stream) {
    constexpr const char* function = "layout::cuda::scatter";
    const cudaStream_t s = native(stream);
    const auto [sv, dv] =
        detail::check_device_move(function, src, dst, count, layout::detail::per_index::source);
    detail::validate_indices(function, "index", indices, count, dv.size(),
                             "the destination's size is", s);
    detail::launch_scatter(dv, sv, indices, count, s, function);
}
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void scatter(Src&& src, const I* indices, std::size_t count, Dst&& dst) {
    cuda::scatter(src, indices, count, dst, detail::stream_for(dst, src));
}

template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void scatter(Src&& src, Indices&& indices, Dst&& dst, stream_ref stream) {
    const auto idx = detail::device_span(indices);
    cuda::scatter(src, idx.data(), idx.size(), dst, stream);
}
template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void scatter(Src&& src, Indices&& indices, Dst&& dst) {
    cuda::scatter(src, indices, dst, detail::stream_for(dst, src));
}

} // namespace layout::cuda
