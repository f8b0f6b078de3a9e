/// \file advise/geometry.hpp
/// Where leaf l of element i lies under one layout, for the cost model (advise/cost.hpp): the
/// library's own mapping (layout::mapping<T, L>::offset) for a layout named in the code, and for
/// a split the advisor proposes at run time (advise/split.hpp), the same arithmetic as aos, soa
/// and aosoa<N> over the leaves of each part (tests/host/advise_test.cpp checks it against the
/// mapping of the split it spells).
///
///     auto g = geometry_of<Particle, policy::aosoa<32>>();
///     g.offset(33, 1, g.capacity) == 384 + 128 + 4     // element 33's y: block 1, lane 1
///     g.runs[1] == 32                                    // 32 consecutive y values adjacent
#pragma once

#include "../config.hpp"
#include "../layouts/concept.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "shadow.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace layout::advisor {

/// Where element i's leaf l lies under one layout (bytes from the start of the allocation).
struct layout_geometry {
    std::string name;     ///< in the cost table: "aos", "soa", "aosoa32", "split"
    std::string spelling; ///< as the user writes it: "layout::policy::aosoa<32>"
    std::size_t capacity = std::size_t{1} << 24;
    std::function<std::size_t(std::size_t i, std::size_t leaf, std::size_t capacity)> offset;
    /// Per leaf: how many consecutive elements have their values of it adjacent (1 under aos, N
    /// under aosoa<N>, layout::detail::whole_column under soa); a split's parts differ.
    std::vector<std::size_t> runs;
    /// Elements stored whole, in T's own layout (aos): a call that reads or writes every leaf
    /// may move the element in vector chunks (gpu_model::vector_bytes).
    bool whole_elements = false;
    const detail::leaf_desc* leaves = nullptr;
    std::size_t leaf_count = 0;

    /// Leaf l's values of consecutive elements adjacent (soa, aosoa): SIMD on a CPU, one sector
    /// for eight 4-byte values on a GPU.
    bool contiguous(std::size_t l) const { return runs[l] > 1; }
};

namespace detail {

inline std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

/// aos, soa or aosoa<lanes> over some leaves (sizes and alignments, in order), at run time: a
/// part of a split. The arithmetic of layouts/aos.hpp, soa.hpp and aosoa.hpp; aos stores the
/// leaves as detail::leaf_pack does (nested pairs, or std::array<A, 1> for one leaf).
struct part_mapping {
    enum class kind { aos, soa, aosoa };
    kind layout = kind::aos;
    std::size_t lanes = 0;                 ///< aosoa
    std::vector<std::size_t> size, align;  ///< the part's leaves
    std::vector<std::size_t> at;           ///< aos: offset in the pack; aosoa: lane run offset
    std::size_t stride = 0;                ///< aos: the pack's size; aosoa: the block's

    part_mapping(kind k, std::size_t n_lanes, std::vector<std::size_t> sizes,
                 std::vector<std::size_t> aligns)
        : layout(k), lanes(n_lanes), size(std::move(sizes)), align(std::move(aligns)),
          at(size.size(), 0) {
        const std::size_t n = size.size();
        if (layout == kind::aos) {
            // leaf_pack<A, B, C...> = { A head; leaf_pack<B, C...> tail; }: built from the back.
            std::size_t pack_size = n ? size[n - 1] : 0, pack_align = n ? align[n - 1] : 1;
            for (std::size_t k = n - 1; n > 1 && k-- > 0;) {
                const std::size_t tail_at = round_up(size[k], pack_align);
                for (std::size_t m = k + 1; m < n; ++m) at[m] += tail_at;
                pack_align = std::max(pack_align, align[k]);
                pack_size = round_up(tail_at + pack_size, pack_align);
            }
            stride = pack_size;
        } else if (layout == kind::aosoa) {
            std::size_t end = 0, most = 1;
            for (std::size_t k = 0; k < n; ++k) {
                at[k] = round_up(end, align[k]);
                end = at[k] + lanes * size[k];
                most = std::max(most, align[k]);
            }
            stride = round_up(end, most);
        }
    }
    /// layouts/soa.hpp's column_stride: padded to 256 bytes, plus 256.
    std::size_t column_stride(std::size_t k, std::size_t capacity) const {
        return capacity == 0 ? 0 : round_up(capacity * size[k], 256) + 256;
    }
    std::size_t offset(std::size_t i, std::size_t k, std::size_t capacity) const {
        switch (layout) {
        case kind::aos:
            return i * stride + at[k];
        case kind::aosoa:
            return i / lanes * stride + at[k] + i % lanes * size[k];
        default: {
            std::size_t column = 0;
            for (std::size_t m = 0; m < k; ++m) column += column_stride(m, capacity);
            return column + i * size[k];
        }
        }
    }
    std::size_t bytes(std::size_t capacity) const {
        switch (layout) {
        case kind::aos:
            return capacity * stride;
        case kind::aosoa:
            return (capacity + lanes - 1) / lanes * stride;
        default: {
            std::size_t b = 0;
            for (std::size_t m = 0; m < size.size(); ++m) b += column_stride(m, capacity);
            return b;
        }
        }
    }
    std::size_t run() const {
        return layout == kind::aos ? 1 : layout == kind::aosoa ? lanes : layout::detail::whole_column;
    }
};

template <class L>
struct is_aosoa : std::false_type {};
template <std::size_t N>
struct is_aosoa<policy::aosoa<N>> : std::true_type {};

template <class L>
concept split_policy = requires {
    typename L::first_layout;
    typename L::second_layout;
};

/// How the user spells layout L: "layout::policy::aosoa<32>".
template <class L>
std::string policy_spelling() {
    if constexpr (is_aosoa<L>::value)
        return "layout::policy::aosoa<" + std::to_string(L::lanes) + ">";
    else
        return "layout::policy::" + L::name();
}

/// A part's layout at run time, from the layout's type.
template <class L>
part_mapping::kind part_kind() {
    if constexpr (std::is_same_v<L, policy::aos>)
        return part_mapping::kind::aos;
    else if constexpr (std::is_same_v<L, policy::soa>)
        return part_mapping::kind::soa;
    else
        return part_mapping::kind::aosoa;
}

} // namespace detail

/// The geometry of T under the layout L (aos, soa, aosoa<N>, or a split of them), from the
/// library's own mapping.
template <class T, class L>
layout_geometry geometry_of() {
    using map = mapping<T, L>;
    layout_geometry g;
    g.offset = &map::offset;
    g.leaves = detail::leaf_descs<T>.data();
    g.leaf_count = leaf_count_v<T>;
    if constexpr (detail::split_policy<L>) {
        using parts = typename map::parts;
        g.name = "split";
        g.runs.resize(leaf_count_v<T>);
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            g.runs[l] = parts::in_first[l] ? map::first_map::leaf_run : map::second_map::leaf_run;
        // The spelling names the leaves by index: the keys themselves are not kept by the type.
        g.spelling = "layout::policy::split<" + detail::policy_spelling<typename L::first_layout>() +
                     ", " + detail::policy_spelling<typename L::second_layout>() + ", ...>";
    } else {
        g.name = L::name();
        g.spelling = detail::policy_spelling<L>();
        g.runs.assign(leaf_count_v<T>, map::leaf_run);
        g.whole_elements = std::is_same_v<L, policy::aos>;
    }
    return g;
}

} // namespace layout::advisor
