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
#include "../detail/leaves.hpp"
#include "../layouts/aosoa.hpp"
#include "../layouts/concept.hpp"
#include "../layouts/leaf_pack.hpp"
#include "../layouts/soa.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "layout_name.hpp"
#include "shadow.hpp"

#include <algorithm>
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
    /// Per leaf: the alignment nvcc knows for the leaf's address in every element (at most 16,
    /// the widest access), which decides whether adjacent leaves of one element merge into one
    /// 8- or 16-byte access (advise/simulate.hpp, merge_accesses). Under aos: what the library's
    /// kernel claims for the element (layout/cuda/detail/vector_access.hpp: the stride's
    /// power-of-two part), carried down the nesting of fields as nvcc carries it (a field at an
    /// offset keeps the alignment its offset allows, and its members inherit that, not the
    /// element's: vec3<double> v at offset 24 of an 80-byte atom is 8-aligned, so v.y at 32 is
    /// too). Elsewhere the leaf's own alignment (its values of one element are not adjacent to
    /// its other leaves', or, in a split's AoS part, the part's struct has no claim).
    std::vector<std::size_t> known_alignment;
    /// The alignment ptxas sees for an element's address (at most 16; 0: none it can see): under
    /// aos with a power-of-two stride, where the address is the kernel argument (which PTX
    /// declares aligned as claimed) plus the index shifted. ptxas then merges an element's loads
    /// that lie in one aligned 16-byte window into one (the SASS of most_fields on the 64-byte
    /// WideParticle: LDG.E.128 x4 for PTX's five loads); with the 80-byte MD atom (index times
    /// 80) it merges nothing the PTX did not.
    std::size_t address_alignment = 0;
    const detail::leaf_desc* leaves = nullptr;
    std::size_t leaf_count = 0;

    /// Leaf l's values of consecutive elements adjacent (soa, aosoa): SIMD on a CPU, one sector
    /// for eight 4-byte values on a GPU.
    bool contiguous(std::size_t l) const { return runs[l] > 1; }
};

namespace detail {

inline std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

/// The widest global access of one thread (sm_90): 16 bytes (LDG.E.128).
inline constexpr std::size_t widest_access = 16;

/// The largest power of two that divides bytes, at most `most` (any power of two divides 0).
inline std::size_t power_of_two_part(std::size_t bytes, std::size_t most = widest_access) {
    std::size_t a = 1;
    while (a < most && bytes % (2 * a) == 0) a *= 2;
    return a;
}

/// The alignment of an address `offset` bytes past one aligned to `align` (a power of two).
inline std::size_t common_alignment(std::size_t align, std::size_t offset) {
    return std::min(align, power_of_two_part(offset, align));
}

/// The alignment of each leaf of U, with U at an address aligned to `align`: each field keeps
/// what its offset in its parent allows, and passes that on to its own fields (the
/// alignment nvcc stamps on a member access, struct by struct).
template <class U>
void nested_alignment(std::size_t align, std::size_t first, std::vector<std::size_t>& out) {
    if constexpr (layout::detail::is_leaf_v<U>) {
        out[first] = align;
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (nested_alignment<layout::detail::field_t<U, I>>(
                 common_alignment(align, leaf_descs<U>[layout::detail::first_leaf<U>[I]].offset),
                 first + layout::detail::first_leaf<U>[I], out),
             ...);
        }(std::make_index_sequence<field_count_v<U>>{});
    }
}

/// What nvcc knows of the leaves' alignment under aos: the element's alignment, the most of
/// the library's claim (the stride's power-of-two part, at most 16) and alignof(T), carried
/// down the fields.
template <class T>
std::vector<std::size_t> aos_known_alignment() {
    std::vector<std::size_t> out(leaf_count_v<T>, 1);
    const std::size_t element =
        std::min(widest_access, std::max(power_of_two_part(sizeof(T)), alignof(T)));
    nested_alignment<T>(element, 0, out);
    return out;
}

/// aos, soa or aosoa<lanes> over some leaves (sizes and alignments, in order), at run time: a
/// part of a split. The placement comes from the layouts themselves: an aos part is a
/// detail::leaf_pack (leaf_pack_offsets, layouts/leaf_pack.hpp), an aosoa part's block
/// detail::place_lanes (layouts/aosoa.hpp), a soa part's columns policy::soa::column_bytes.
struct part_mapping {
    enum class kind { aos, soa, aosoa };
    kind layout = kind::aos;
    std::size_t lanes = 0;                ///< aosoa
    std::vector<std::size_t> size, align; ///< the part's leaves
    std::vector<std::size_t> at;          ///< aos: offset in the pack; aosoa: lane run offset
    std::size_t stride = 0;               ///< aos: the pack's size; aosoa: the block's

    part_mapping(kind k, std::size_t n_lanes, std::vector<std::size_t> sizes,
                 std::vector<std::size_t> aligns)
        : layout(k), lanes(n_lanes), size(std::move(sizes)), align(std::move(aligns)),
          at(size.size(), 0) {
        if (layout == kind::aos)
            stride = layout::detail::leaf_pack_offsets(size, align, at);
        else if (layout == kind::aosoa)
            stride = layout::detail::place_lanes(lanes, size, align, at);
    }
    std::size_t column_stride(std::size_t k, std::size_t capacity) const {
        return policy::soa::column_bytes(size[k], capacity);
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
        return layout == kind::aos     ? 1
               : layout == kind::aosoa ? lanes
                                       : layout::detail::whole_column;
    }
    /// The alignment nvcc knows for each leaf's address. An aos part is a leaf_pack (nested
    /// pairs { head; tail }), whose alignment the library does not claim beyond its type's:
    /// each tail keeps what its offset in the one before allows. Elsewhere the leaf's own.
    std::vector<std::size_t> known_alignment() const {
        std::vector<std::size_t> out(align);
        if (layout != kind::aos || size.empty()) return out;
        std::size_t tail = std::min(widest_access, *std::max_element(align.begin(), align.end()));
        for (std::size_t k = 0; k < size.size(); ++k) {
            if (k > 0) tail = common_alignment(tail, at[k] - at[k - 1]);
            out[k] = tail;
        }
        return out;
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

/// How the user spells layout L: "layout::policy::aosoa<32>"; a layout of the user's own by its
/// layout_name.
template <class L>
std::string policy_spelling() {
    if constexpr (is_aosoa<L>::value)
        return "layout::policy::aosoa<" + std::to_string(L::lanes) + ">";
    else if constexpr (std::is_same_v<L, policy::aos> || std::is_same_v<L, policy::soa>)
        return "layout::policy::" + layout_name<L>::get();
    else
        return layout_name<L>::get();
}

/// A part's layout at run time, from the facts its mapping of the part's type P states: whole
/// elements (element_stride), whole columns (leaf_run), or runs of lanes in blocks.
template <class L, class P>
part_mapping::kind part_kind() {
    using map = mapping<P, L>;
    if constexpr (requires { map::element_stride; })
        return part_mapping::kind::aos;
    else if constexpr (map::leaf_run == layout::detail::whole_column)
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
        g.spelling = "layout::policy::split<" +
                     detail::policy_spelling<typename L::first_layout>() + ", " +
                     detail::policy_spelling<typename L::second_layout>() + ", ...>";
        // Each part's leaves as part_mapping lays them out (the split of advise/split.hpp,
        // which tests/host/advise_test.cpp checks against this mapping).
        std::vector<std::size_t> size[2], align[2], index(leaf_count_v<T>);
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
            const int part = parts::in_first[l] ? 0 : 1;
            index[l] = size[part].size();
            size[part].push_back(detail::leaf_descs<T>[l].size);
            align[part].push_back(detail::leaf_descs<T>[l].alignment);
        }
        const detail::part_mapping first(
            detail::part_kind<typename L::first_layout, typename parts::first_type>(), 0, size[0],
            align[0]);
        const detail::part_mapping second(
            detail::part_kind<typename L::second_layout, typename parts::second_type>(), 0, size[1],
            align[1]);
        const auto known_first = first.known_alignment(), known_second = second.known_alignment();
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            g.known_alignment.push_back(parts::in_first[l] ? known_first[index[l]]
                                                           : known_second[index[l]]);
    } else {
        g.name = layout_name<L>::get();
        g.spelling = detail::policy_spelling<L>();
        g.runs.assign(leaf_count_v<T>, map::leaf_run);
        g.whole_elements = layout::detail::packed_elements_v<T, L>;
        if constexpr (requires { map::element_stride; }) {
            g.known_alignment = detail::aos_known_alignment<T>();
            constexpr std::size_t stride = map::element_stride;
            if ((stride & (stride - 1)) == 0)
                g.address_alignment = std::min(
                    detail::widest_access, std::max(detail::power_of_two_part(stride), alignof(T)));
        } else
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
                g.known_alignment.push_back(detail::leaf_descs<T>[l].alignment);
    }
    return g;
}

} // namespace layout::advisor
