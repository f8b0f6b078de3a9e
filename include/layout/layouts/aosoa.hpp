/// \file layouts/aosoa.hpp
/// Array of structures of arrays: blocks of Lanes elements, each block holding Lanes values of
/// leaf 0, then Lanes values of leaf 1, and so on: SoA inside a block, AoS across blocks.
///
///     struct P { float x; double d; };                    // leaves: x (4 B), d (8 B)
///     mapping<P, policy::aosoa<32>>::offset(i, l, cap)    // (i/32)*384 + {0, 128}[l] + (i%32)*{4, 8}[l]
///
/// Also here: aosoa_block<Lanes>, the layout of the one-block views that layout::for_each_index
/// hands a functor (host_loop.hpp on the host, cuda/for_each.hpp on the GPU).
#pragma once

#include "../config.hpp"
#include "../reflect.hpp"
#include "concept.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

namespace layout::detail {

template <std::size_t Lanes>
struct aosoa_block;

/// Where each leaf's run of `lanes` values starts in a block (leaves in order, by size and
/// alignment), each aligned for its leaf; returns the block's size, padded to the widest
/// alignment. The layout's arithmetic, for its mapping and for code that places leaves known
/// only at run time (the advisor's candidate splits).
constexpr std::size_t place_lanes(std::size_t lanes, std::span<const std::size_t> size,
                                  std::span<const std::size_t> alignment,
                                  std::span<std::size_t> offsets) {
    std::size_t end = 0, max_alignment = 1;
    for (std::size_t l = 0; l < size.size(); ++l) {
        offsets[l] = detail::align_up(end, alignment[l]);
        end = offsets[l] + lanes * size[l];
        max_alignment = alignment[l] > max_alignment ? alignment[l] : max_alignment;
    }
    return detail::align_up(end, max_alignment);
}

} // namespace layout::detail

namespace layout::policy {

template <std::size_t Lanes>
struct aosoa {
    static_assert(Lanes >= 1, "layout: aosoa needs at least one lane per block");
    static constexpr std::size_t lanes = Lanes;
    /// The layout of a view of one block (storage::block, storage::block_of).
    using block_layout = detail::aosoa_block<Lanes>;
    /// Deprecated (0.1), removed in the next release: only the advisor named layouts, now by
    /// layout::advisor::layout_name<L> (<layout/advise/layout_name.hpp>).
    static std::string name() { return "aosoa" + std::to_string(Lanes); }

    template <class T>
    struct mapping {
        /// A block holds Lanes elements' bytes plus less than as much again of padding between
        /// the leaves' lane runs; past this bound block_bytes would wrap (aosoa<T, 1 << 59> gave 0).
        static constexpr bool lanes_fit =
            Lanes <= std::numeric_limits<std::size_t>::max() / 4 / sizeof(T);
        static_assert(lanes_fit, "layout: aosoa<T, Lanes>: a block of Lanes elements does not fit "
                                 "in std::size_t; use a lane count near the warp size (32)");

        /// Offset of leaf l's Lanes values inside a block; [leaf_count] is the padded block size.
        /// (Computed for one lane when Lanes is refused, so that only the message above appears.)
        static constexpr auto lane_offsets = [] {
            std::array<std::size_t, leaf_count_v<T>> size{}, alignment{};
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
                size[l] = detail::leaf_table<T>[l].size;
                alignment[l] = detail::leaf_table<T>[l].alignment;
            }
            std::array<std::size_t, leaf_count_v<T> + 1> offsets{};
            offsets[leaf_count_v<T>] =
                detail::place_lanes(lanes_fit ? Lanes : 1, size, alignment, offsets);
            return offsets;
        }();
        static constexpr std::size_t block_bytes = lane_offsets[leaf_count_v<T>];
        /// A leaf's values are adjacent within a block.
        static constexpr std::size_t leaf_run = Lanes;

        static constexpr std::size_t blocks(std::size_t capacity) {
            return (capacity + Lanes - 1) / Lanes;
        }
        static constexpr std::size_t bytes(std::size_t capacity) {
            return blocks(capacity) * block_bytes;
        }
        static constexpr std::size_t offset(std::size_t i, std::size_t leaf,
                                            std::size_t /*capacity*/) {
            return i / Lanes * block_bytes + lane_offsets[leaf] +
                   i % Lanes * detail::leaf_table<T>[leaf].size;
        }
        /// Whole blocks: the last one is paid for anyway.
        static constexpr std::size_t rounded_capacity(std::size_t n) { return blocks(n) * Lanes; }
    };

    /// A block's address and a lane in it.
    template <class E>
    struct cursor {
        using byte = detail::copy_const_t<E, std::byte>;
        using map = mapping<std::remove_const_t<E>>;
        byte* block;
        std::size_t lane;
        template <std::size_t L>
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE detail::copy_const_t<E, leaf_t<E, L>>&
        leaf() const noexcept {
            using leaf_type = detail::copy_const_t<E, leaf_t<E, L>>;
            return detail::restrict_at(reinterpret_cast<leaf_type*>(block + map::lane_offsets[L]),
                                       lane);
        }
    };

    /// A pointer to the first block.
    template <class E>
    struct storage {
        using cursor = aosoa::cursor<E>;
        using byte = detail::copy_const_t<E, std::byte>;
        byte* data;

        static storage from_block(detail::copy_const_t<E, void>* block,
                                  std::size_t /*capacity*/) noexcept {
            return {static_cast<byte*>(block)};
        }
        /// view(blocks, n) over blocks the user owns, laid out as mapping says.
        LAYOUT_HOST_DEVICE static storage
        from_pointer(detail::copy_const_t<E, void>* blocks) noexcept {
            return {static_cast<byte*>(blocks)};
        }

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            return {data + i / Lanes * cursor::map::block_bytes, i % Lanes};
        }
        LAYOUT_HOST_DEVICE detail::copy_const_t<E, void>* first_byte() const noexcept {
            return data;
        }
        /// The storage of a view of block k (detail::aosoa_block): layout::for_each_index's
        /// lane loop on the host (host_loop.hpp).
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto block(std::size_t k) const noexcept {
            using block = typename block_layout::template storage<E>;
            return block{data + k * cursor::map::block_bytes, k * Lanes};
        }
        /// The storage of a view of the block holding element i (detail::aosoa_block), whose
        /// lane arithmetic is affine in the element index: cuda::for_each_index gives a thread
        /// its consecutive elements through it, so that their accesses to a leaf merge into one
        /// vector access (with i % Lanes per element they stay scalar).
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto block_of(std::size_t i) const noexcept {
            using block = typename block_layout::template storage<E>;
            return block{data + i / Lanes * cursor::map::block_bytes, i, i % Lanes};
        }

        /// Kernel arguments: the one pointer, and back.
        template <class F>
        decltype(auto) split(F&& f) const {
            return f(data);
        }
        LAYOUT_HOST_DEVICE static storage rebuild(byte* data) noexcept { return {data}; }

        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        LAYOUT_HOST_DEVICE operator storage<const Mutable>() const noexcept {
            return {data};
        }
    };

    /// The whole blocks in one run; then, for a partly filled last block, only its live lanes,
    /// leaf by leaf, so that nothing uninitialized is read and no lane past n is written.
    template <class T, class F, class... S>
    static void runs(std::size_t n, F&& f, const S&... s) {
        using map = mapping<T>;
        const std::size_t full = n / Lanes, tail = n % Lanes;
        if (full) f(full * map::block_bytes, detail::void_pointer(s.data)...);
        if (tail)
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
                const std::size_t at = full * map::block_bytes + map::lane_offsets[l];
                f(tail * detail::leaf_table<T>[l].size, detail::void_pointer(s.data + at)...);
            }
    }

    /// layout::for_each_index on the host runs blocks of Lanes elements (host_loop.hpp).
    using host_units = detail::blocks_of<Lanes>;
};

} // namespace layout::policy

namespace layout::detail {

/// The layout of a view whose storage holds one AoSoA block and the index of an element in it,
/// `first`, at lane `lane0`. Elements are indexed as in the whole aosoa<Lanes> view (i, not
/// i % Lanes), so a functor's v[i] keeps its meaning; for an i of the held block at or after
/// first, the lane is lane0 + (i - first), affine in i, so a loop over the block's lanes
/// vectorizes like a hand-written block/lane loop (i % Lanes and i / Lanes are not affine in i:
/// a loop over v[i] of a whole aosoa view stays scalar), and a GPU thread's consecutive elements
/// merge into vector accesses. Only for_each_index makes these views (layout::for_each_index:
/// whole blocks, lane0 = 0; cuda::for_each_index: a thread's run, through storage::block_of);
/// there is no mapping to allocate one.
template <std::size_t Lanes>
struct aosoa_block {
    static constexpr std::size_t lanes = Lanes;

    template <class E>
    struct storage {
        using cursor = typename policy::aosoa<Lanes>::template cursor<E>;
        using byte = copy_const_t<E, std::byte>;
        byte* block;           ///< the block holding element first
        std::size_t first;     ///< an element of the block
        std::size_t lane0 = 0; ///< its lane, first % Lanes

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            // Wraps for i < first; Lanes - lane0 rather than Lanes keeps i in the block. Both
            // tests fold away where i is first plus a constant that the caller's loop bounds.
            const std::size_t ahead = i - first;
            if (ahead < Lanes - lane0) return {block, lane0 + ahead};
            // Another block (a functor reaching past element i): the whole view's arithmetic.
            byte* data = block - first / Lanes * cursor::map::block_bytes;
            return {data + i / Lanes * cursor::map::block_bytes, i % Lanes};
        }
        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        LAYOUT_HOST_DEVICE operator storage<const Mutable>() const noexcept {
            return {block, first, lane0};
        }
    };
};

} // namespace layout::detail
