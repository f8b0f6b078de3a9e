/// \file cuda/transfer.hpp
/// layout::transfer for every pair of memory spaces with a device-resident side (device or
/// managed memory): how containers copy, convert, fill and ready blocks with the GPU, in the
/// order of a stream and without synchronizing the device (<layout/transfer.hpp> has the contract).
///
///     dev_soa = host_aos;   // host runs to a device block in AoS (staged), transposed on the GPU
///     host_aos = dev_soa;   // transposed into a device block, copied back; waits for the stream
///
/// A copy into memory the host can reach waits for its stream (only that one) before returning:
/// a container's elements are readable when the assignment returns. Copies between views the GPU
/// reaches use the tile kernels of <layout/cuda/convert.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/transfer.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../memory.hpp"
#include "../runs.hpp"
#include "../scratch.hpp"
#include "../transfer.hpp"
#include "../view.hpp"
#include "convert.hpp"
#include "detail/launch.hpp"
#include "error.hpp"
#include "memory.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace layout::cuda::detail {

template <class T, class Layout, class M>
__global__ void fill_kernel(layout::view<T, Layout, M> v, std::size_t first, std::size_t last,
                            T value) {
    const std::size_t i = first + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < last) v[i] = value;
}

/// The same layout between host and device: one cudaMemcpyAsync per contiguous run.
template <class T, class Layout, class SM, class DM>
void copy_runs(const layout::view<const T, Layout, SM>& src, const layout::view<T, Layout, DM>& dst,
               cudaStream_t stream) {
    layout::detail::for_each_run(
        dst, src, src.size(), [&](void* d, const void* s, std::size_t bytes) {
            check(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
        });
}

/// Zeroes the bytes of a new block that whole-run copies read but no element write covers (AoS
/// padding inside T, padding between an AoSoA block's lane runs): copies of the block then read
/// only defined bytes, and compute-sanitizer's initcheck stays clean. Layouts whose runs hold
/// nothing but leaves (SoA, unpadded AoS and AoSoA) skip the pass.
template <class T, class Layout, class M>
void zero_padding(const layout::view<T, Layout, M>& block, cudaStream_t stream) {
    std::size_t payload = 0;
    for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
        payload += layout::detail::leaf_table<T>[l].size;
    std::size_t run_bytes = 0;
    const layout::view<const T, Layout, M> same(block);
    layout::detail::for_each_run(
        block, same, block.size(),
        [&](void*, const void*, std::size_t bytes) { run_bytes += bytes; });
    if (run_bytes == block.size() * payload) return;
    layout::detail::for_each_run(block, same, block.size(),
                                 [&](void* d, const void*, std::size_t bytes) {
                                     check(cudaMemsetAsync(d, 0, bytes, stream), "cudaMemsetAsync");
                                 });
}

} // namespace layout::cuda::detail

namespace layout {

template <class DstMemory, class SrcMemory>
    requires(device_resident_v<DstMemory> || device_resident_v<SrcMemory>)
struct transfer<DstMemory, SrcMemory> {
    template <class T, class DstLayout, class SrcLayout>
    static void copy(const view<const T, SrcLayout, SrcMemory>& src,
                     const view<T, DstLayout, DstMemory>& dst, stream_ref stream) {
        const cudaStream_t s = cuda::native(stream);
        constexpr bool same = std::is_same_v<DstLayout, SrcLayout>;
        const resource_ref device = cuda::device_memory::default_resource();
        if constexpr (SrcMemory::device_accessible && DstMemory::device_accessible) {
            cuda::detail::convert_views(src, dst, s);
        } else if constexpr (same) {
            cuda::detail::copy_runs(src, dst, s);
        } else if constexpr (!SrcMemory::device_accessible) {
            // Pageable host source: its runs to a device block in its own layout, then converted.
            const scratch<T, SrcLayout, cuda::device_memory> staged(src.size(), device, stream);
            cuda::detail::copy_runs(src, staged.view(), s);
            cuda::detail::convert_views(
                view<const T, SrcLayout, cuda::device_memory>(staged.view()), dst, s);
        } else {
            // Pageable host destination: converted into a device block in its layout, then copied.
            const scratch<T, DstLayout, cuda::device_memory> staged(dst.size(), device, stream);
            cuda::detail::zero_padding(staged.view(), s);
            cuda::detail::convert_views(src, staged.view(), s);
            cuda::detail::copy_runs(view<const T, DstLayout, cuda::device_memory>(staged.view()),
                                    dst, s);
        }
        if constexpr (DstMemory::host_accessible)
            cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize after a copy to the host");
    }

    template <class T, class Layout>
    static void prepare_block(const view<T, Layout, DstMemory>& block, stream_ref stream) {
        static_assert(std::is_same_v<DstMemory, SrcMemory>);
        const cudaStream_t s = cuda::native(stream);
        cuda::detail::zero_padding(block, s);
        if constexpr (DstMemory::host_accessible) // managed memory: the host may write it next
            cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize after cudaMemsetAsync");
    }

    template <class T, class Layout>
    static void fill(const view<T, Layout, DstMemory>& v, std::size_t first, std::size_t last,
                     const T& value, stream_ref stream) {
        static_assert(std::is_same_v<DstMemory, SrcMemory>);
        if (first >= last) return;
        const cudaStream_t s = cuda::native(stream);
        constexpr unsigned block = cuda::detail::block_size;
        cuda::detail::fill_kernel<<<
            cuda::detail::grid_size(last - first, block, "layout::vector fill"), block, 0, s>>>(
            v, first, last, value);
        cuda::check_launch("layout::cuda fill_kernel");
        if constexpr (DstMemory::host_accessible)
            cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize after fill_kernel");
    }
};

} // namespace layout
