/// \file cuda/copy.hpp
/// layout::cuda::copy(src, dst, stream): dst[i] = src[i] for views of the same T in any two layouts,
/// asynchronously on stream, source first as in layout::copy. Where each view lives is its type's
/// memory space, known at compile time (no pointer queries). Views the GPU reaches (device,
/// pinned, managed memory) are copied or converted by the GPU and nothing synchronizes; a view
/// of pageable host memory is staged through a stream-ordered device block, and a copy into one
/// waits for its stream before returning (the host reads it next). layout::copy on a device view
/// comes here (backend.hpp).
///
///     layout::cuda::copy(aos_dev.view(), soa_dev.view(), stream);   // transposed on the GPU
///     layout::cuda::copy(soa_dev.view(), host_aos.view(), stream);  // then host_aos is there
///
/// Throws std::length_error if the sizes differ; the views may overlap (as with memmove).
/// Selections (view.select<...>()) copy only their chosen fields, the same way.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/copy.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../copy.hpp"
#include "../memory.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "error.hpp"
#include "memory.hpp"
#include "transfer.hpp"
#include "workspace.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::cuda {

namespace detail {
/// True if the GPU can reach p (device, pinned or managed memory).
inline bool device_reachable(const void* p) {
    if (p == nullptr) return true; // an empty view
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, p), "cudaPointerGetAttributes");
    return attributes.type != cudaMemoryTypeUnregistered;
}
template <class V>
bool device_reachable_view(const V& v) {
    return v.size() == 0 || device_reachable(&v.storage().at(0).template leaf<0>());
}
} // namespace detail

/// dst[i] = src[i]: where each side lives is read from the views' memory spaces at compile time
/// (memory.hpp): the GPU copies or converts where it reaches both sides (device, pinned, managed
/// memory), else stages through a device block; a copy into pageable memory waits.
/// Deprecated (goes in the next release): a view<T, L> that does not say its memory (host memory,
/// the default) over memory the GPU reaches, as views were spelled before they knew their memory,
/// is still found out at run time (cudaPointerGetAttributes), here only.
template <class T, class SrcLayout, class DstLayout, class SM, class DM>
void copy(const layout::view<const T, SrcLayout, SM>& src,
          const layout::view<T, DstLayout, DM>& dst, stream_ref stream = {}) {
    if (src.size() != dst.size())
        layout::detail::throw_copy_size_mismatch("layout::cuda::copy", src.size(), dst.size());
    using layout::detail::with_memory;
    constexpr bool src_host = std::is_same_v<SM, host_memory>;
    constexpr bool dst_host = std::is_same_v<DM, host_memory>;
    if constexpr (src_host || dst_host) {
        const bool src_gpu = src_host ? detail::device_reachable_view(src) : SM::device_accessible;
        const bool dst_gpu = dst_host ? detail::device_reachable_view(dst) : DM::device_accessible;
        if (src_host && src_gpu) return cuda::copy(with_memory<device_memory>(src), dst, stream);
        if (dst_host && dst_gpu) return cuda::copy(src, with_memory<device_memory>(dst), stream);
    }
    if constexpr (SM::device_accessible && DM::device_accessible) {
        transfer<device_memory, device_memory>::copy(with_memory<device_memory>(src),
                                                     with_memory<device_memory>(dst), stream);
        if constexpr (DM::host_accessible) // pinned or managed: the host reads it next
            check(cudaStreamSynchronize(native(stream)),
                  "cudaStreamSynchronize after a copy to host-accessible memory");
    } else if constexpr (DM::device_accessible)
        transfer<device_memory, host_memory>::copy(with_memory<host_memory>(src),
                                                   with_memory<device_memory>(dst), stream);
    else if constexpr (SM::device_accessible)
        transfer<host_memory, device_memory>::copy(with_memory<device_memory>(src),
                                                   with_memory<host_memory>(dst), stream);
    else
        layout::detail::copy_on_host(exec::parallel, src, dst);
}
// clang-format off
template <class T, class SrcLayout, class DstLayout, class SM, class DM>
    requires(!std::is_const_v<T>)
void copy(const layout::view<T, SrcLayout, SM>& src, const layout::view<T, DstLayout, DM>& dst,
          stream_ref stream = {}) {
    cuda::copy(layout::view<const T, SrcLayout, SM>(src), dst, stream);
}
// clang-format on

namespace detail {
/// dst's leaves DL... of elements [to, to + n) = src's leaves SL... (paired in order) of
/// [from, from + n), one cudaMemcpyAsync a leaf: both are (narrowed) storages of contiguous
/// columns (SoA).
template <class DS, class SS, std::size_t... DL, std::size_t... SL>
void copy_columns(const DS& dst, std::size_t to, const SS& src, std::size_t from, std::size_t n,
                  std::index_sequence<DL...>, std::index_sequence<SL...>, cudaStream_t s) {
    // The columns' addresses, from the first elements' leaves (nothing is read).
    ((check(cudaMemcpyAsync(
                &dst.at(to).template leaf<DL>(), &src.at(from).template leaf<SL>(),
                n * sizeof(std::remove_cvref_t<decltype(src.at(from).template leaf<SL>())>),
                cudaMemcpyDefault, s),
            "cudaMemcpyAsync (layout::cuda::copy of columns)")),
     ...);
}
/// dst's leaves DL... of element i = src's leaves SL... (paired in order) of element from + i,
/// one thread an element; dst and src are (narrowed) storages the GPU reaches.
template <class DS, class SS, std::size_t... DL, std::size_t... SL>
__device__ LAYOUT_FORCEINLINE void copy_leaves_of(const DS& dst, const SS& src, std::size_t i,
                                                  std::size_t from, std::index_sequence<DL...>,
                                                  std::index_sequence<SL...>) {
    const auto in = src.at(from + i);
    const auto out = dst.at(i);
    ((out.template leaf<DL>() = in.template leaf<SL>()), ...);
}
template <class DS, class SS, class DL, class SL>
__global__ void copy_leaves_kernel(DS dst, SS src, std::size_t from, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) copy_leaves_of(dst, src, i, from, DL{}, SL{});
}
/// Elements [0, n) of dst from [from, from + n) of src (from: 0 unless given).
template <class DS, class SS, class DL, class SL>
void copy_leaves_on_gpu(const DS& dst, const SS& src, std::size_t n, DL, SL, cudaStream_t s,
                        std::size_t from = 0) {
    copy_leaves_kernel<DS, SS, DL, SL>
        <<<grid_size(n, block_size, "layout::cuda::copy"), block_size, 0, s>>>(dst, src, from, n);
    check_launch("layout::cuda::copy (selection kernel)");
}

/// Elements a chunk of a copy of n staged through the GPU: a quarter of the copy, at least
/// stage_chunk. Each chunk costs a transfer a column (some microseconds each: 16 chunks of 2^19
/// elements ran 5% slower than whole columns) and the first chunk's gather runs alone, so a few
/// large chunks; the two stages hold half the copy.
inline constexpr std::size_t stage_chunk = std::size_t{1} << 20;
constexpr std::size_t stage_chunk_for(std::size_t n) noexcept {
    const std::size_t quarter = (n + 3) / 4;
    return n < stage_chunk ? n : quarter < stage_chunk ? stage_chunk : quarter;
}

/// src's chosen leaves into dst's SoA columns across the bus, chunk by chunk: a kernel gathers a
/// chunk into one of two device stages (SoA) on the workspace's stream while the copy engine
/// moves the previous one on a side stream, so dst is written by the copy engine (a kernel's
/// stores into pinned memory ran 5% slower) at the cost of one chunk's gather. Both side
/// streams join the workspace's stream before this returns.
template <class S, class D>
void copy_through_stage(const S& src, const D& dst, workspace& ws) {
    using leaves =
        layout::detail::leaf_pack_of<layout::detail::selected_t<S>, typename S::leaf_list>;
    using stage_view = layout::view<leaves, layout::policy::soa, device_memory>;
    using map = layout::mapping<leaves, layout::policy::soa>;
    using all = std::make_index_sequence<S::leaves.size()>;
    const std::size_t n = src.size();
    const std::size_t chunk = stage_chunk_for(n);
    const std::size_t capacity = map::rounded_capacity(chunk);
    const std::size_t bytes = (map::bytes(capacity) + 255) / 256 * 256;
    auto* const stages = static_cast<std::byte*>(ws.bytes(workspace::slot::stage, 2 * bytes));
    const cudaStream_t s = native(ws.stream());
    std::size_t k = 0;
    for (std::size_t first = 0; first < n; first += chunk, ++k) {
        const std::size_t count = n - first < chunk ? n - first : chunk;
        side_stream& side = ws.side(k % 2);
        if (k >= 2) side.join(s); // the copy out of this stage, two chunks ago, is done
        const stage_view stage(
            stage_view::storage_type::from_block(stages + (k % 2) * bytes, capacity), count);
        copy_leaves_on_gpu(stage.storage(), src.storage(), count, all{},
                           layout::detail::selected_leaves_t<S>{}, s, first);
        side.fork(s);
        copy_columns(dst.storage(), first, stage.storage(), 0, count,
                     layout::detail::selected_leaves_t<D>{}, all{}, side.side());
    }
    for (unsigned b = 0; b < 2 && b < k; ++b) ws.side(b).join(s);
}
} // namespace detail

/// The chosen fields of src into those of dst, as layout::copy does on the host, for
/// selections anywhere: on the GPU where it reaches both, else through staging blocks that hold
/// the chosen leaves alone, packed in columns, so that only those bytes cross between host and
/// device. Asynchronous on stream where both lie on the GPU and dst is device memory; a copy
/// into memory the host reads (pageable, pinned, managed) waits for its stream before
/// returning, as a copy of whole elements does.
///
///     layout::cuda::copy(host.select<&P::x, &P::y, &P::z>(), dev.select<&P::x, &P::y, &P::z>());
template <class SrcView, auto... SrcKeys, class DstView, auto... DstKeys>
void copy(const layout::selection<SrcView, SrcKeys...>& src,
          const layout::selection<DstView, DstKeys...>& dst, stream_ref stream = {}) {
    using S = layout::selection<SrcView, SrcKeys...>;
    using D = layout::selection<DstView, DstKeys...>;
    layout::detail::check_selections<S, D>();
    if (src.size() != dst.size())
        layout::detail::throw_copy_size_mismatch("layout::cuda::copy", src.size(), dst.size());
    const std::size_t n = src.size();
    if (n == 0) return;
    const cudaStream_t s = native(stream);
    constexpr bool src_on_gpu = S::memory_type::device_accessible;
    constexpr bool dst_on_gpu = D::memory_type::device_accessible;
    using src_leaves = layout::detail::selected_leaves_t<S>;
    using dst_leaves = layout::detail::selected_leaves_t<D>;
    using all = std::make_index_sequence<S::leaves.size()>;
    using stage = layout::detail::selection_stage<S>;
    if constexpr (!src_on_gpu && !dst_on_gpu) {
        layout::copy(src, dst);
    } else if constexpr (src_on_gpu && dst_on_gpu) {
        constexpr bool columns = layout::detail::contiguous_columns_v<SrcView> &&
                                 layout::detail::contiguous_columns_v<DstView>;
        constexpr bool crosses_bus =
            S::memory_type::host_accessible || D::memory_type::host_accessible;
        if (!layout::detail::selections_overlap(src, dst)) {
            // Column to column across the bus (into pinned memory): the copy engine, whose
            // transfers ran 5% faster than a kernel's stores there (8M particles, H200).
            if constexpr (columns && crosses_bus)
                detail::copy_columns(dst.storage(), 0, src.storage(), 0, n, dst_leaves{},
                                     src_leaves{}, s);
            else
                detail::copy_leaves_on_gpu(dst.storage(), src.storage(), n, dst_leaves{},
                                           src_leaves{}, s);
        } else {
            const layout::detail::selection_stage<S, device_memory> staged(
                n, device_memory::default_resource(), stream);
            detail::copy_leaves_on_gpu(staged.view().storage(), src.storage(), n, all{},
                                       src_leaves{}, s);
            detail::copy_leaves_on_gpu(dst.storage(), staged.view().storage(), n, dst_leaves{},
                                       all{}, s);
        }
        if constexpr (D::memory_type::host_accessible) // as a whole-element copy: wait
            check(cudaStreamSynchronize(s),
                  "cudaStreamSynchronize after a copy to host-accessible memory");
    } else {
        const stage on_host(n, host_memory::default_resource());
        const layout::detail::selection_stage<S, device_memory> on_device(
            n, device_memory::default_resource(), stream);
        const auto host_view = on_host.view();
        const auto device_view = on_device.view();
        using leaves = typename decltype(host_view)::value_type;
        if constexpr (dst_on_gpu) {
            layout::detail::copy_leaves(host_view.storage(), src.storage(), n, all{}, src_leaves{});
            detail::copy_runs(layout::view<const leaves, layout::policy::soa>(host_view),
                              device_view, s);
            detail::copy_leaves_on_gpu(dst.storage(), device_view.storage(), n, dst_leaves{}, all{},
                                       s);
        } else {
            detail::copy_leaves_on_gpu(device_view.storage(), src.storage(), n, all{}, src_leaves{},
                                       s);
            detail::copy_runs(
                layout::view<const leaves, layout::policy::soa, device_memory>(device_view),
                host_view, s);
        }
        // The host stage is read (or written next) by the host: wait for the stream.
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize in layout::cuda::copy");
        if constexpr (!dst_on_gpu)
            layout::detail::copy_leaves(dst.storage(), host_view.storage(), n, dst_leaves{}, all{});
    }
}

/// The same on ws's stream, with what the copy needs from the workspace (kept for the next
/// call: nothing allocated once warm). Chosen fields of device memory in a layout whose fields
/// are not columns (AoS, AoSoA, split) copied into SoA columns of pinned or managed memory go
/// through two stages on the GPU, a chunk at a time, so that the copy engine writes them beside
/// the kernel that gathers the next chunk (ws.side() streams, joined before returning); every
/// other copy is copy(src, dst, ws.stream()). Waits for the stream before returning, as that does.
///
///     layout::cuda::workspace ws(particles);
///     layout::cuda::copy(particles.view().select<&P::x, &P::id>(),
///                        pinned.view().select<&P::x, &P::id>(), ws);   // every 25 steps
template <class SrcView, auto... SrcKeys, class DstView, auto... DstKeys>
void copy(const layout::selection<SrcView, SrcKeys...>& src,
          const layout::selection<DstView, DstKeys...>& dst, workspace& ws) {
    using S = layout::selection<SrcView, SrcKeys...>;
    using D = layout::selection<DstView, DstKeys...>;
    constexpr bool staged = S::memory_type::device_accessible && !S::memory_type::host_accessible &&
                            D::memory_type::device_accessible && D::memory_type::host_accessible &&
                            layout::detail::contiguous_columns_v<DstView> &&
                            !layout::detail::contiguous_columns_v<SrcView>;
    if constexpr (staged) {
        layout::detail::check_selections<S, D>();
        if (src.size() != dst.size())
            layout::detail::throw_copy_size_mismatch("layout::cuda::copy", src.size(), dst.size());
        if (src.size() != 0 && !layout::detail::selections_overlap(src, dst)) {
            detail::copy_through_stage(src, dst, ws);
            check(cudaStreamSynchronize(native(ws.stream())),
                  "cudaStreamSynchronize after a copy to host-accessible memory");
            return;
        }
    }
    copy(src, dst, ws.stream());
}

} // namespace layout::cuda
