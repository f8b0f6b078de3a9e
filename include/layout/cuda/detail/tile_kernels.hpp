/// \file cuda/detail/tile_kernels.hpp
/// The tile kernels of layout::cuda::copy (cuda/convert.hpp), AoS <-> SoA/AoSoA: a block stages a
/// chunk of the AoS side through shared memory as raw bytes (16-byte coalesced accesses where the
/// AoS pointer allows), and one thread per element moves its leaves to or from the other side. The
/// tile's shape and padding are tile_shape's (<layout/cuda/detail/tile_shape.hpp>).
///
///     convert_from_aos_kernel<T, policy::soa, 16><<<grid, convert_threads, 0, stream>>>(
///         soa_view, aos_bytes, chunks);   // dst, src
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/tile_kernels.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../reflect.hpp"
#include "../../view.hpp"
#include "tile_shape.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace layout::cuda::detail {

/// Stores v at tile byte b. With padding, the tile is only 4-byte aligned past the first 128
/// bytes, so wider values go as 4-byte words. b is a multiple of sizeof(V) (a leaf at its
/// alignment, or a piece), so v never straddles a padding boundary: one address for all words.
template <int Pad, class V>
__device__ LAYOUT_FORCEINLINE void tile_put(std::byte* tile, int b, const V& v) {
    std::byte* at = tile + padded<Pad>(b);
    if constexpr (Pad == 0 || sizeof(V) <= 4) {
        *reinterpret_cast<V*>(at) = v;
    } else {
        unsigned words[sizeof(V) / 4];
        std::memcpy(words, &v, sizeof(V));
        LAYOUT_UNROLL
        for (int k = 0; k < int(sizeof(V) / 4); ++k) reinterpret_cast<unsigned*>(at)[k] = words[k];
    }
}

template <int Pad, class V>
__device__ LAYOUT_FORCEINLINE V tile_get(const std::byte* tile, int b) {
    const std::byte* at = tile + padded<Pad>(b);
    if constexpr (Pad == 0 || sizeof(V) <= 4) {
        return *reinterpret_cast<const V*>(at);
    } else {
        unsigned words[sizeof(V) / 4];
        LAYOUT_UNROLL
        for (int k = 0; k < int(sizeof(V) / 4); ++k)
            words[k] = reinterpret_cast<const unsigned*>(at)[k];
        if constexpr (std::is_same_v<V, uint4>) {
            return make_uint4(words[0], words[1], words[2], words[3]); // memcpy put it on the stack
        } else {
            V v;
            std::memcpy(&v, words, sizeof(V));
            return v;
        }
    }
}

template <int Unit>
using piece_t =
    std::conditional_t<Unit == 16, uint4, std::conditional_t<Unit == 4, unsigned, std::byte>>;

/// Global -> tile, nbytes of one chunk, consecutive threads on consecutive Unit-sized pieces
/// (coalesced). A whole chunk (nbytes == Whole, a constant) is loaded into registers first, so
/// that all of a thread's loads are in flight together; the last, partial chunk goes piece by
/// piece and then byte by byte.
template <int Pad, int Unit, int Whole>
__device__ LAYOUT_FORCEINLINE void global_to_tile(const std::byte* LAYOUT_RESTRICT g,
                                                  std::byte* tile, int nbytes) {
    using piece = piece_t<Unit>;
    if (nbytes == Whole) {
        constexpr int pieces = Whole / Unit;
        constexpr int per_thread = (pieces + convert_threads - 1) / convert_threads;
        piece v[per_thread];
        LAYOUT_UNROLL
        for (int j = 0; j < per_thread; ++j) {
            const int p = int(threadIdx.x) + j * convert_threads;
            if (pieces % convert_threads == 0 || p < pieces)
                v[j] = *reinterpret_cast<const piece*>(g + p * Unit);
        }
        LAYOUT_UNROLL
        for (int j = 0; j < per_thread; ++j) {
            const int p = int(threadIdx.x) + j * convert_threads;
            if (pieces % convert_threads == 0 || p < pieces) tile_put<Pad>(tile, p * Unit, v[j]);
        }
        return;
    }
    const int whole = nbytes / Unit * Unit;
    for (int k = int(threadIdx.x) * Unit; k < whole; k += convert_threads * Unit)
        tile_put<Pad>(tile, k, *reinterpret_cast<const piece*>(g + k));
    for (int k = whole + int(threadIdx.x); k < nbytes; k += convert_threads)
        tile[padded<Pad>(k)] = g[k];
}

/// Tile -> global, the same way round (stores need not be grouped to overlap).
template <int Pad, int Unit>
__device__ LAYOUT_FORCEINLINE void tile_to_global(const std::byte* tile,
                                                  std::byte* LAYOUT_RESTRICT g, int nbytes) {
    using piece = piece_t<Unit>;
    const int whole = nbytes / Unit * Unit;
    for (int k = int(threadIdx.x) * Unit; k < whole; k += convert_threads * Unit)
        *reinterpret_cast<piece*>(g + k) = tile_get<Pad, piece>(tile, k);
    for (int k = whole + int(threadIdx.x); k < nbytes; k += convert_threads)
        g[k] = tile[padded<Pad>(k)];
}

/// The widest piece the AoS pointer's alignment allows (the same for every chunk).
inline int unit_for(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a % 16 == 0 ? 16 : a % 4 == 0 ? 4 : 1;
}

/// Byte offset of leaf L inside T, as a scalar constant: device code may use a constexpr
/// scalar directly, but not index a host constexpr array (leaf_table) at run time.
template <class T, std::size_t L>
inline constexpr int leaf_offset_v = static_cast<int>(leaf_table<T>[L].offset);

/// T's padding bytes (covered by no leaf): zeroed in the tile, so that a converted AoS array
/// holds zeros there rather than whatever the tile held before.
template <class T>
inline constexpr auto padding_table = [] {
    std::array<bool, sizeof(T)> covered{};
    for (const auto& leaf : leaf_table<T>)
        for (std::size_t k = 0; k < leaf.size; ++k) covered[leaf.offset + k] = true;
    std::array<int, sizeof(T) + 1> offsets{}; // [sizeof(T)]: the count
    int n = 0;
    for (std::size_t k = 0; k < sizeof(T); ++k)
        if (!covered[k]) offsets[n++] = static_cast<int>(k);
    offsets[sizeof(T)] = n;
    return offsets;
}();
template <class T>
inline constexpr std::size_t padding_count_v = std::size_t(padding_table<T>[sizeof(T)]);
template <class T, std::size_t K>
inline constexpr int padding_offset_v = padding_table<T>[K];

/// AoS -> SoA/AoSoA. Grid-stride over chunks; sizes past 2^31 elements index with size_t.
template <class T, class DstView, int Unit>
__global__ void convert_from_aos_kernel(DstView dst, const std::byte* LAYOUT_RESTRICT src,
                                        std::size_t chunks) {
    using shape = tile_shape<T>;
    __shared__ alignas(16) std::byte tile[shape::bytes];
    const std::size_t n = dst.size();
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t first = chunk * shape::chunk;
        const int count = n - first < std::size_t(shape::chunk) ? int(n - first) : shape::chunk;
        global_to_tile<shape::pad, Unit, shape::chunk * shape::size>(src + first * sizeof(T), tile,
                                                                     count * shape::size);
        __syncthreads(); // elements straddle the pieces other threads staged

        LAYOUT_UNROLL
        for (int j = 0; j < shape::per_thread; ++j) {
            const int e = int(threadIdx.x) + j * convert_threads;
            if (e >= count) break;
            const auto to = dst.storage().at(first + e);
            const int base = e * shape::size;
            // All reads, then all writes: with each leaf read and then written, the SASS
            // waited on every load before issuing the next.
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                T value;
                ((layout::detail::leaf_ref<L>(value) =
                      tile_get<shape::pad, leaf_t<T, L>>(tile, base + leaf_offset_v<T, L>)),
                 ...);
                ((to.template leaf<L>() = layout::detail::leaf_ref<L>(value)), ...);
            }(std::make_index_sequence<leaf_count_v<T>>{});
        }
        __syncthreads(); // the next chunk overwrites the tile
    }
}

/// SoA/AoSoA -> AoS: the same tile, filled leaf by leaf, then written out as raw bytes.
template <class T, class SrcView, int Unit>
__global__ void convert_to_aos_kernel(std::byte* LAYOUT_RESTRICT dst, SrcView src,
                                      std::size_t chunks) {
    using shape = tile_shape<T>;
    __shared__ alignas(16) std::byte tile[shape::bytes];
    const std::size_t n = src.size();
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t first = chunk * shape::chunk;
        const int count = n - first < std::size_t(shape::chunk) ? int(n - first) : shape::chunk;
        LAYOUT_UNROLL
        for (int j = 0; j < shape::per_thread; ++j) {
            const int e = int(threadIdx.x) + j * convert_threads;
            if (e >= count) break;
            const auto from = src.storage().at(first + e);
            const int base = e * shape::size;
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                T value; // all global loads in flight before the first tile store (see above)
                ((layout::detail::leaf_ref<L>(value) = from.template leaf<L>()), ...);
                (tile_put<shape::pad>(tile, base + leaf_offset_v<T, L>,
                                      layout::detail::leaf_ref<L>(value)),
                 ...);
            }(std::make_index_sequence<leaf_count_v<T>>{});
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                ((tile[padded<shape::pad>(base + padding_offset_v<T, K>)] = std::byte{0}), ...);
            }(std::make_index_sequence<padding_count_v<T>>{});
        }
        __syncthreads(); // the pieces written out hold leaves of other threads' elements

        tile_to_global<shape::pad, Unit>(tile, dst + first * sizeof(T), count * shape::size);
        __syncthreads();
    }
}

} // namespace layout::cuda::detail
