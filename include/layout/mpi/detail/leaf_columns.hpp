/// \file mpi/detail/leaf_columns.hpp
/// A leaf of a view as a gathered exchange addresses it (gathered_column, device_transport.hpp):
/// one contiguous column (storage::leaf_data: SoA), values a whole element apart
/// (mapping::element_stride: AoS), or runs of lanes in blocks (mapping::block_bytes,
/// lane_offsets, leaf_run: AoSoA). Asked of the layouts' facts, never of their names; a layout
/// with none of them (split) has no addressable leaves, and its messages travel packed. Where
/// elements lie whole a stride apart (AoS), travelling leaves next to each other in the element
/// travel as one column (gathered_columns).
#pragma once

#include "../../extension.hpp"
#include "../../view.hpp"
#include "../fields.hpp"

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::mpi::detail {

/// Whether T under L keeps each leaf's values in runs of lanes inside blocks (AoSoA).
template <class T, class L>
inline constexpr bool blocked_leaves_v = requires {
    layout::mapping<T, L>::block_bytes;
    layout::mapping<T, L>::lane_offsets;
    layout::mapping<T, L>::leaf_run;
};
/// Whether every leaf of views of T under L is a gathered_column.
template <class T, class L>
inline constexpr bool addressable_leaves_v =
    layout::extension::contiguous_columns_v<layout::view<T, L>> || blocked_leaves_v<T, L> ||
    requires { layout::mapping<T, L>::element_stride; };

/// Whether T under L keeps whole elements a stride apart (AoS).
template <class T, class L>
inline constexpr bool strided_elements_v =
    !layout::extension::contiguous_columns_v<layout::view<T, L>> && !blocked_leaves_v<T, L> &&
    requires { layout::mapping<T, L>::element_stride; };

/// base + offset bytes, as base is const or not (a null base, an empty view's, stays null).
template <class P>
auto* byte_at(P* base, std::size_t offset) {
    using byte = layout::extension::copy_const_t<P, std::byte>;
    return base ? reinterpret_cast<byte*>(base) + offset : nullptr;
}

/// Leaf Leaf of `from` and `to` (views of one layout) as a column of a gathered exchange:
/// Column{from, to, element, lanes, block} (gathered_column; a parameter, so that this header
/// compiles without CUDA, as receive_mode.hpp's users do).
template <class Column, std::size_t Leaf, class T, class L, class M>
Column leaf_column(const layout::view<const T, L, M>& from, const layout::view<T, L, M>& to) {
    static_assert(addressable_leaves_v<T, L>);
    using map = layout::mapping<T, L>;
    constexpr std::size_t element = sizeof(leaf_t<T, Leaf>);
    if constexpr (layout::extension::contiguous_columns_v<layout::view<T, L>>) {
        return {reinterpret_cast<const std::byte*>(from.storage().template leaf_data<Leaf>()),
                reinterpret_cast<std::byte*>(to.storage().template leaf_data<Leaf>()), element, 0,
                0};
    } else {
        // Leaf Leaf of element 0 from the layout's one pointer.
        if constexpr (blocked_leaves_v<T, L>)
            return {byte_at(from.data(), map::lane_offsets[Leaf]),
                    byte_at(to.data(), map::lane_offsets[Leaf]), element, map::leaf_run,
                    map::block_bytes};
        else
            return {byte_at(from.data(), layout::extension::leaf_table<T>[Leaf].offset),
                    byte_at(to.data(), layout::extension::leaf_table<T>[Leaf].offset), element, 1,
                    map::element_stride};
    }
}

/// The columns of a gathered exchange of the leaves that travel in wire_format W: a leaf each, in
/// W's order; or, where Runs, each run of travelling leaves that lie next to each other in the
/// element (in leaf order) as one column of the run's bytes: x, y, z of a Vec3 in an AoS element
/// as 12-byte values, which a warp reads and writes in one pass over each element's sector
/// where three passes, a leaf each, touched it three times.
template <class T, class W, bool Runs>
struct column_runs {
    struct run {
        std::size_t leaf, bytes; // the run's first leaf
    };
    /// Whether leaf l travels right after leaf l - 1 in the element, which travels too.
    static constexpr bool continues_run(std::size_t l) {
        const auto& leaves = layout::extension::leaf_table<T>;
        return W::travels[l] && W::travels[l - 1] &&
               leaves[l - 1].offset + leaves[l - 1].size == leaves[l].offset;
    }
    static constexpr std::size_t count = [] {
        std::size_t n = 0;
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            n += W::travels[l] && !(Runs && l > 0 && continues_run(l));
        return n;
    }();
    static constexpr std::array<run, count> runs = [] {
        const auto& leaves = layout::extension::leaf_table<T>;
        std::array<run, count> r{};
        if constexpr (!Runs) {
            for (std::size_t k = 0; k < count; ++k)
                r[k] = {W::leaves[k], leaves[W::leaves[k]].size};
        } else {
            std::size_t k = 0;
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
                if (!W::travels[l]) continue;
                if (l > 0 && continues_run(l))
                    r[k - 1].bytes += leaves[l].size;
                else
                    r[k++] = {l, leaves[l].size};
            }
        }
        return r;
    }();
};

/// The travelling leaves of wire_format W, from `from` into `to` (views of one layout), as the
/// columns of a gathered exchange (Column: gathered_column): runs of leaves where elements lie a
/// stride apart (strided_elements_v), else one column a leaf (leaf_column).
template <class Column, class W, class T, class L, class M>
auto gathered_columns(const layout::view<const T, L, M>& from, const layout::view<T, L, M>& to) {
    using runs = column_runs<T, W, strided_elements_v<T, L>>;
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        if constexpr (strided_elements_v<T, L>) {
            constexpr auto& leaves = layout::extension::leaf_table<T>;
            return std::array<Column, runs::count>{
                Column{byte_at(from.data(), leaves[runs::runs[K].leaf].offset),
                       byte_at(to.data(), leaves[runs::runs[K].leaf].offset), runs::runs[K].bytes,
                       1, layout::mapping<T, L>::element_stride}...};
        } else {
            return std::array<Column, runs::count>{
                leaf_column<Column, runs::runs[K].leaf>(from, to)...};
        }
    }(std::make_index_sequence<runs::count>{});
}

} // namespace layout::mpi::detail
