/// \file policies.hpp
/// The three layouts, and the byte offset each gives to (element i, leaf l).
///
///     struct P { float x; double d; };                    // leaves: x (4 B), d (8 B)
///     mapping<P, policy::aos>::offset(i, l, cap)          // i*16 + {0, 8}[l]
///     mapping<P, policy::soa>::offset(i, l, cap)          // {0, round_up(4*cap, 256) + 256}[l] + i*{4, 8}[l]
///     mapping<P, policy::aosoa<32>>::offset(i, l, cap)    // (i/32)*384 + {0, 128}[l] + (i%32)*{4, 8}[l]
///
/// AoS is exactly the user's struct, so a std::vector<P> can be viewed with no copy. SoA starts
/// every column on a 256-byte boundary (one warp's 32 floats fill one 128-byte line; 256 for
/// the reason given at column_stride). AoSoA<N> keeps N lanes
/// of each leaf together inside a block: SoA inside a block, AoS across blocks.
#pragma once

#include "config.hpp"
#include "reflect.hpp"

#include <array>
#include <cstddef>
#include <limits>

namespace layout {
namespace policy {

/// Array of structures: element i is a T at byte i * sizeof(T).
struct aos {};

/// Structure of arrays: one column per leaf, each starting on a column_alignment boundary.
struct soa {
    static constexpr std::size_t column_alignment = 256;
};

/// Array of structures of arrays: blocks of Lanes elements, each block holding Lanes values of
/// leaf 0, then Lanes values of leaf 1, and so on.
template <std::size_t Lanes>
struct aosoa {
    static_assert(Lanes >= 1, "layout: aosoa needs at least one lane per block");
    static constexpr std::size_t lanes = Lanes;
};

} // namespace policy

/// Allocation alignment of every container block: enough for any leaf and for a SoA column.
inline constexpr std::size_t block_alignment = policy::soa::column_alignment;

/// (element, leaf, capacity) -> byte offset from the start of the block, for each layout.
/// Everything is constexpr so that the layout proofs run in constant evaluation.
template <class T, class Layout>
struct mapping;

template <class T>
struct mapping<T, policy::aos> {
    static constexpr std::size_t bytes(std::size_t capacity) { return capacity * sizeof(T); }
    static constexpr std::size_t offset(std::size_t i, std::size_t leaf, std::size_t /*capacity*/) {
        return i * sizeof(T) + detail::leaf_table<T>[leaf].offset;
    }
};

template <class T>
struct mapping<T, policy::soa> {
    /// Bytes from the start of column l to the start of column l + 1: the column padded to a
    /// multiple of column_alignment, plus one more. Without the extra, columns of a power-of-two
    /// capacity start a multiple of 4 KiB apart and share CPU cache sets (a host SoA loop over
    /// eight such columns ran 2.8x slower). 256, not 128: on an H100 a six-column drift over
    /// columns 128 bytes (or 64 KiB + 128) out of step ran 1.3% slower than over columns 0,
    /// 256, 1024 or 4096 bytes out of step, or separately allocated (94.4% against 95.6% of a
    /// float4 copy, 2026-11-23).
    static constexpr std::size_t column_stride(std::size_t leaf, std::size_t capacity) {
        return capacity == 0 ? 0
                             : detail::align_up(capacity * detail::leaf_table<T>[leaf].size,
                                                policy::soa::column_alignment) +
                                   policy::soa::column_alignment;
    }
    static constexpr std::size_t column_offset(std::size_t leaf, std::size_t capacity) {
        std::size_t offset = 0;
        for (std::size_t l = 0; l < leaf; ++l) offset += column_stride(l, capacity);
        return offset;
    }
    static constexpr std::size_t bytes(std::size_t capacity) {
        return column_offset(leaf_count_v<T>, capacity);
    }
    static constexpr std::size_t offset(std::size_t i, std::size_t leaf, std::size_t capacity) {
        return column_offset(leaf, capacity) + i * detail::leaf_table<T>[leaf].size;
    }
};

template <class T, std::size_t Lanes>
struct mapping<T, policy::aosoa<Lanes>> {
    /// A block holds Lanes elements' bytes plus less than as much again of padding between the
    /// leaves' lane runs; past this bound block_bytes would wrap (aosoa<T, 1 << 59> gave 0).
    static constexpr bool lanes_fit =
        Lanes <= std::numeric_limits<std::size_t>::max() / 4 / sizeof(T);
    static_assert(lanes_fit, "layout: aosoa<T, Lanes>: a block of Lanes elements does not fit in "
                             "std::size_t; use a lane count near the warp size (32)");

    /// Offset of leaf l's Lanes values inside a block; [leaf_count] is the padded block size.
    /// (Computed for one lane when Lanes is refused, so that only the message above appears.)
    static constexpr auto lane_offsets = [] {
        constexpr std::size_t lanes = lanes_fit ? Lanes : 1;
        std::array<std::size_t, leaf_count_v<T> + 1> offsets{};
        std::size_t end = 0, max_alignment = 1;
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
            const auto& leaf = detail::leaf_table<T>[l];
            offsets[l] = detail::align_up(end, leaf.alignment);
            end = offsets[l] + lanes * leaf.size;
            max_alignment = leaf.alignment > max_alignment ? leaf.alignment : max_alignment;
        }
        offsets[leaf_count_v<T>] = detail::align_up(end, max_alignment);
        return offsets;
    }();
    static constexpr std::size_t block_bytes = lane_offsets[leaf_count_v<T>];

    static constexpr std::size_t blocks(std::size_t capacity) {
        return (capacity + Lanes - 1) / Lanes;
    }
    static constexpr std::size_t bytes(std::size_t capacity) {
        return blocks(capacity) * block_bytes;
    }
    static constexpr std::size_t offset(std::size_t i, std::size_t leaf, std::size_t /*capacity*/) {
        return i / Lanes * block_bytes + lane_offsets[leaf] +
               i % Lanes * detail::leaf_table<T>[leaf].size;
    }
};

namespace detail {
/// Instantiates what a layout checks about T at compile time (the aosoa lane count), for view
/// and vector, which otherwise reach the mapping only inside member functions.
template <class T, class Layout>
constexpr bool layout_fits() {
    if constexpr (requires { mapping<T, Layout>::lanes_fit; })
        return mapping<T, Layout>::lanes_fit;
    else
        return true;
}
} // namespace detail

} // namespace layout
