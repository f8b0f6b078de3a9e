/// \file cuda/convert.hpp
/// Layout conversion on the GPU, with coalesced reads and writes on both sides: the engine of
/// layout::cuda::copy and of layout::transfer between memory the GPU reaches (users call those).
///
///     detail::convert_views(aos_view, soa_view, stream);  // src, dst; any two layouts of one T
///
/// Both views must be in memory the GPU can reach. They may overlap (two ranges of one
/// container, a view of the other's block), as with std::memmove: the result is the old src.
/// Overlapping views go through a temporary copy of src (stream-ordered, cudaMallocAsync),
/// because kernels assume their views' leaves alias nothing and cudaMemcpy's overlapping ranges
/// are undefined. What runs otherwise:
///
///     same layout          cudaMemcpyAsync per contiguous run (AoS: 1, SoA: 1 per leaf,
///                          AoSoA: the whole blocks, then a kernel for a partial last block)
///     AoS <-> SoA/AoSoA    the tile kernel: a block stages a chunk of the AoS side through
///                          shared memory as raw bytes (16-byte coalesced accesses), and one
///                          thread per element moves its leaves to or from the other side,
///                          where consecutive threads touch consecutive addresses of a leaf
///     SoA/AoSoA <-> SoA/AoSoA   one thread per element, leaf by leaf: already coalesced
///
/// The tile kernel's shared-memory layout and bank model are in cuda/detail/tile_shape.hpp, the
/// kernels in cuda/detail/tile_kernels.hpp; this header holds the dispatch above and the element
/// kernel.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/convert.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../runs.hpp"
#include "../scratch.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "detail/tile_kernels.hpp"
#include "detail/tile_shape.hpp"
#include "error.hpp"
#include "memory.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

/// Element i of src to element i of dst, for i in [first, last): all leaves are loaded before
/// any is stored, so the loads are in flight together.
template <class T, class Dst, class Src, class DM, class SM>
__global__ void convert_elements_kernel(layout::view<T, Dst, DM> dst,
                                        layout::view<const T, Src, SM> src, std::size_t first,
                                        std::size_t last) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = first + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < last;
         i += stride) {
        const auto from = src.storage().at(i);
        const auto to = dst.storage().at(i);
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            T value;
            ((layout::detail::leaf_ref<L>(value) = from.template leaf<L>()), ...);
            ((to.template leaf<L>() = layout::detail::leaf_ref<L>(value)), ...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    }
}

template <class T, class Dst, class Src, class DM, class SM>
void convert_elements(layout::view<T, Dst, DM> dst, layout::view<const T, Src, SM> src,
                      std::size_t first, std::size_t last, cudaStream_t stream) {
    if (first >= last) return;
    const unsigned grid = strided_grid_size((last - first + convert_threads - 1) / convert_threads);
    convert_elements_kernel<<<grid, convert_threads, 0, stream>>>(dst, src, first, last);
    check_launch("layout::cuda::copy (element kernel)");
}

inline void copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
    if (bytes)
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream),
              "cudaMemcpyAsync in layout::cuda::copy");
}

/// Converts the n = src.size() elements of src into dst, on the GPU, asynchronously on stream.
/// The caller (layout::cuda::copy, layout::transfer) has checked the sizes; throws
/// layout::cuda::error if a launch or copy fails.
template <class T, class SrcLayout, class DstLayout, class SM, class DM>
void convert_views(layout::view<const T, SrcLayout, SM> src, layout::view<T, DstLayout, DM> dst,
                   cudaStream_t stream) {
    static_assert(!std::is_const_v<T>, "layout: cuda::copy writes dst: pass a mutable view");
    const std::size_t n = src.size();
    if (n == 0) return;
    if (layout::detail::views_overlap(dst, src)) {
        // Neither copy below overlaps: the scratch block is fresh.
        const layout::scratch<T, SrcLayout, device_memory> scratch(
            n, device_memory::default_resource(), stream);
        const auto copy = scratch.view();
        convert_views(src, copy, stream);
        convert_views(layout::view<const T, SrcLayout, device_memory>(copy), dst, stream);
        return;
    }

    using shape = tile_shape<T>;
    constexpr bool same = std::is_same_v<DstLayout, SrcLayout>;
    // The tile kernel serves a side that is an array of whole T's (AoS), whatever the other.
    constexpr bool from_aos = layout::detail::packed_elements_v<T, SrcLayout>;
    constexpr bool to_aos = layout::detail::packed_elements_v<T, DstLayout>;

    if constexpr (same) {
        // The layout's runs, one cudaMemcpyAsync each; a partly filled last block (AoSoA),
        // whose runs are one per leaf, goes element by element in one kernel instead, which
        // leaves the lanes past the end of dst (another view's elements, perhaps) alone.
        using map = mapping<T, SrcLayout>;
        const std::size_t whole = n / map::rounded_capacity(1) * map::rounded_capacity(1);
        SrcLayout::template runs<T>(
            whole,
            [&](std::size_t bytes, void* d, const void* s) { copy_async(d, s, bytes, stream); },
            dst.storage(), src.storage());
        if constexpr (map::rounded_capacity(1) > 1) convert_elements(dst, src, whole, n, stream);
    } else if constexpr ((from_aos || to_aos) && shape::usable) {
        const std::size_t chunks = (n + shape::chunk - 1) / shape::chunk;
        const unsigned grid = strided_grid_size(chunks);
        // The piece size is a template parameter rather than a branch in the kernel, so that
        // each instance holds one path.
        auto launch = [&]<int Unit>(std::integral_constant<int, Unit>) {
            if constexpr (from_aos)
                convert_from_aos_kernel<T, decltype(dst), Unit>
                    <<<grid, convert_threads, 0, stream>>>(
                        dst, reinterpret_cast<const std::byte*>(src.storage().data), chunks);
            else
                convert_to_aos_kernel<T, decltype(src), Unit><<<grid, convert_threads, 0, stream>>>(
                    reinterpret_cast<std::byte*>(dst.storage().data), src, chunks);
        };
        const void* aos = nullptr;
        if constexpr (from_aos)
            aos = src.storage().data;
        else
            aos = dst.storage().data;
        switch (unit_for(aos)) {
        case 16:
            launch(std::integral_constant<int, 16>{});
            break;
        case 4:
            launch(std::integral_constant<int, 4>{});
            break;
        default:
            launch(std::integral_constant<int, 1>{});
            break;
        }
        check_launch("layout::cuda::copy (tile kernel)");
    } else {
        convert_elements(dst, src, 0, n, stream);
    }
}

} // namespace detail
} // namespace layout::cuda
