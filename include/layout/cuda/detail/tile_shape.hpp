/// \file cuda/detail/tile_shape.hpp
/// How the tile kernels of layout::cuda::copy (cuda/convert.hpp) stage a chunk of an AoS array in
/// shared memory, decided at compile time per T: elements per tile, the padding, the tile's size.
///
///     tile_shape<Particle>::chunk   // 256 elements of 32 bytes: an 8 KiB tile
///     tile_shape<Particle>::pad     // 4: one word of padding every 128 bytes
///
/// Reading an element's leaves from a staged AoS tile is a transpose: thread t reads the
/// 4-byte word t * sizeof(T) / 4 + k, so with sizeof(T) = 32 bytes, threads 0, 4, 8, ... hit
/// one bank (32 banks of 4 bytes) and the read takes 8 passes. One word of padding every 128
/// bytes shifts each group of 4 elements by one bank and makes it conflict free; a compile-time
/// bank model (tile_shape::pad) decides, per T, whether the padding helps.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/tile_shape.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../reflect.hpp"
#include "launch.hpp"

#include <cstddef>

namespace layout::cuda::detail {

using layout::detail::leaf_table;

inline constexpr int convert_threads = static_cast<int>(block_size);

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

} // namespace layout::cuda::detail
