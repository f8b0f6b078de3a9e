/// \file cuda/convert.hpp
/// Layout conversion on the GPU, with coalesced reads and writes on both sides.
///
///     layout::cuda::convert(soa_view, aos_view);            // dst, src; any two layouts of one T
///     layout::cuda::convert(aosoa_view, soa_view, stream);  // asynchronous, like a kernel launch
///
/// Both views must be in memory the GPU can reach and must not overlap. What runs:
///
///     same layout          cudaMemcpyAsync per contiguous run (AoS: 1, SoA: 1 per leaf,
///                          AoSoA: the whole blocks, then a kernel for a partial last block)
///     AoS <-> SoA/AoSoA    the tile kernel: a block stages a chunk of the AoS side through
///                          shared memory as raw bytes (16-byte coalesced accesses), and one
///                          thread per element moves its leaves to or from the other side,
///                          where consecutive threads touch consecutive addresses of a leaf
///     SoA/AoSoA <-> SoA/AoSoA   one thread per element, leaf by leaf: already coalesced
///
/// Reading an element's leaves from a staged AoS tile is a transpose: thread t reads the
/// 4-byte word t * sizeof(T) / 4 + k, so with sizeof(T) = 32 bytes, threads 0, 4, 8, ... hit
/// one bank (32 banks of 4 bytes) and the read takes 8 passes. One word of padding every 128
/// bytes shifts each group of 4 elements by one bank and makes it conflict free; a compile-time
/// bank model (tile_shape::pad below) decides, per T, whether the padding helps.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/convert.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../view.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

using layout::detail::leaf_table;

template <class Layout>
inline constexpr bool is_aosoa_v = false;
template <std::size_t N>
inline constexpr bool is_aosoa_v<policy::aosoa<N>> = true;

inline constexpr int convert_threads = 256;

/// Byte b of a staged tile lives at tile + padded<Pad>(b): Pad bytes after every 128.
template <int Pad>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr int padded(int b) noexcept {
    return b + Pad * (b >> 7);
}

/// Shared-memory passes (wavefronts) a warp needs when thread t reads the 4-byte word that
/// holds byte t * stride + offset of a tile padded by pad bytes per 128: the largest number of
/// distinct words that fall in one bank (the same word read twice is a broadcast, not a conflict).
constexpr int bank_passes(int pad, int stride, int offset) {
    int words[32] = {};
    int worst = 0;
    for (int t = 0; t < 32; ++t) {
        const int b = t * stride + offset;
        words[t] = (b + pad * (b >> 7)) / 4;
    }
    for (int bank = 0; bank < 32; ++bank) {
        int distinct = 0;
        for (int t = 0; t < 32; ++t) {
            bool seen = words[t] % 32 != bank;
            for (int u = 0; u < t && !seen; ++u) seen = words[u] == words[t];
            distinct += seen ? 0 : 1;
        }
        worst = distinct > worst ? distinct : worst;
    }
    return worst;
}

/// How a chunk of T is staged: chunk elements per tile, the padding, the tile's size.
template <class T>
struct tile_shape {
    static constexpr int size = static_cast<int>(sizeof(T));

    /// Elements per tile: one per thread, more for small T (up to 8 KiB of tile, so that a
    /// block moves enough bytes to pay for its barriers), fewer for large T (at most 32 KiB,
    /// so that several blocks fit an SM), and a multiple of 16: 16 elements span a multiple of
    /// 16 bytes, so every chunk starts as aligned as the AoS pointer itself.
    static constexpr int chunk = [] {
        std::size_t c = convert_threads;
        while (c < 2048 && 2 * c * sizeof(T) <= 8 * 1024) c *= 2;
        while (c > 16 && c * sizeof(T) > 32 * 1024) c /= 2;
        return static_cast<int>(c);
    }();

    /// Leaves are read from the tile as one access (1, 2, 4 bytes) or as 4-byte words (8, 16
    /// bytes); either way an aligned leaf never straddles a 128-byte padding boundary.
    static constexpr bool leaves_fit = [] {
        for (const auto& leaf : leaf_table<T>) {
            const std::size_t s = leaf.size;
            if (leaf.alignment != s || (s != 1 && s != 2 && s != 4 && s != 8 && s != 16))
                return false;
        }
        return true;
    }();

    static constexpr int passes(int pad) {
        int total = 0;
        for (const auto& leaf : leaf_table<T>) {
            const int words = leaf.size < 4 ? 1 : static_cast<int>(leaf.size / 4);
            for (int k = 0; k < words; ++k)
                total += bank_passes(pad, size, static_cast<int>(leaf.offset) + 4 * k);
        }
        return total;
    }
    /// Padding only where the bank model says it removes passes (it adds some for odd word
    /// strides, which are conflict free as they are).
    static constexpr int pad = leaves_fit && passes(4) < passes(0) ? 4 : 0;

    static constexpr int bytes = padded<pad>(chunk * size) + pad;
    static constexpr int per_thread = (chunk + convert_threads - 1) / convert_threads;
    static constexpr bool usable = leaves_fit && chunk * sizeof(T) <= 48 * 1024;
};

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
template <class T, class Dst, int Unit>
__global__ void convert_from_aos_kernel(layout::view<T, Dst> dst,
                                        const std::byte* LAYOUT_RESTRICT src, std::size_t chunks) {
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
template <class T, class Src, int Unit>
__global__ void convert_to_aos_kernel(std::byte* LAYOUT_RESTRICT dst,
                                      layout::view<const T, Src> src, std::size_t chunks) {
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

/// Element i of src to element i of dst, for i in [first, last): all leaves are loaded before
/// any is stored, so the loads are in flight together.
template <class T, class Dst, class Src>
__global__ void convert_elements_kernel(layout::view<T, Dst> dst, layout::view<const T, Src> src,
                                        std::size_t first, std::size_t last) {
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

inline unsigned convert_grid(std::size_t work_items) {
    const std::size_t blocks = work_items < std::size_t(INT_MAX) ? work_items : INT_MAX;
    return static_cast<unsigned>(blocks);
}

template <class T, class Dst, class Src>
void convert_elements(layout::view<T, Dst> dst, layout::view<const T, Src> src, std::size_t first,
                      std::size_t last, cudaStream_t stream) {
    if (first >= last) return;
    const unsigned grid = convert_grid((last - first + convert_threads - 1) / convert_threads);
    convert_elements_kernel<<<grid, convert_threads, 0, stream>>>(dst, src, first, last);
    check_launch("layout::cuda::convert (element kernel)");
}

inline void copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
    if (bytes)
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream),
              "cudaMemcpyAsync in layout::cuda::convert");
}

} // namespace detail

/// Converts the n = src.size() elements of src into dst, on the GPU, asynchronously on stream.
/// Throws std::length_error if the sizes differ, layout::cuda::error if a launch or copy fails.
///
///     layout::cuda::convert(soa.view(), layout::view<const P, policy::aos>(aos_ptr, n));
///     // then soa.view().column<&P::x>()[i] == aos_ptr[i].x for every i
template <class T, class DstLayout, class SrcLayout>
void convert(layout::view<T, DstLayout> dst, layout::view<const T, SrcLayout> src,
             cudaStream_t stream = 0) {
    static_assert(!std::is_const_v<T>, "layout: cuda::convert writes dst: pass a mutable view");
    if (dst.size() != src.size())
        throw std::length_error("layout::cuda::convert: size mismatch (dst has " +
                                std::to_string(dst.size()) + " elements, src " +
                                std::to_string(src.size()) + ")");
    const std::size_t n = src.size();
    if (n == 0) return;

    using shape = detail::tile_shape<T>;
    constexpr bool same = std::is_same_v<DstLayout, SrcLayout>;
    constexpr bool from_aos = std::is_same_v<SrcLayout, policy::aos>;
    constexpr bool to_aos = std::is_same_v<DstLayout, policy::aos>;

    if constexpr (same && from_aos) {
        detail::copy_async(dst.storage().data, src.storage().data, n * sizeof(T), stream);
    } else if constexpr (same && std::is_same_v<SrcLayout, policy::soa>) {
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            detail::copy_async(dst.storage().columns[l], src.storage().columns[l],
                               n * detail::leaf_table<T>[l].size, stream);
    } else if constexpr (same) {
        // Whole blocks in one copy; a partial last block element by element, so that lanes
        // past the end of dst (another view's elements, perhaps) are left alone.
        static_assert(detail::is_aosoa_v<SrcLayout>, "layout: cuda::convert: unknown layout");
        const std::size_t whole = n / SrcLayout::lanes;
        detail::copy_async(dst.storage().data, src.storage().data,
                           whole * mapping<T, SrcLayout>::block_bytes, stream);
        detail::convert_elements(dst, src, whole * SrcLayout::lanes, n, stream);
    } else if constexpr ((from_aos || to_aos) && shape::usable) {
        const std::size_t chunks = (n + shape::chunk - 1) / shape::chunk;
        const unsigned grid = detail::convert_grid(chunks);
        // The piece size is a template parameter rather than a branch in the kernel, so that
        // each instance holds one path.
        auto launch = [&]<int Unit>(std::integral_constant<int, Unit>) {
            if constexpr (from_aos)
                detail::convert_from_aos_kernel<T, DstLayout, Unit>
                    <<<grid, detail::convert_threads, 0, stream>>>(
                        dst, reinterpret_cast<const std::byte*>(src.storage().data), chunks);
            else
                detail::convert_to_aos_kernel<T, SrcLayout, Unit>
                    <<<grid, detail::convert_threads, 0, stream>>>(
                        reinterpret_cast<std::byte*>(dst.storage().data), src, chunks);
        };
        const void* aos = nullptr;
        if constexpr (from_aos)
            aos = src.storage().data;
        else
            aos = dst.storage().data;
        switch (detail::unit_for(aos)) {
        case 16: launch(std::integral_constant<int, 16>{}); break;
        case 4: launch(std::integral_constant<int, 4>{}); break;
        default: launch(std::integral_constant<int, 1>{}); break;
        }
        check_launch("layout::cuda::convert (tile kernel)");
    } else {
        detail::convert_elements(dst, src, 0, n, stream);
    }
}

/// The same from a mutable source view.
template <class T, class DstLayout, class SrcLayout>
    requires(!std::is_const_v<T>)
void convert(layout::view<T, DstLayout> dst, layout::view<T, SrcLayout> src,
             cudaStream_t stream = 0) {
    convert(dst, layout::view<const T, SrcLayout>(src), stream);
}

} // namespace layout::cuda
