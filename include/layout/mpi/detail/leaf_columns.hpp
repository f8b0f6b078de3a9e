/// \file mpi/detail/leaf_columns.hpp
/// A leaf of a view as a gathered exchange addresses it (gathered_column, device_transport.hpp):
/// one contiguous column (storage::leaf_data: SoA), values a whole element apart
/// (mapping::element_stride: AoS), or runs of lanes in blocks (mapping::block_bytes,
/// lane_offsets, leaf_run: AoSoA). Asked of the layouts' facts, never of their names; a layout
/// with none of them (split) has no addressable leaves, and its messages travel packed.
#pragma once

#include "../../extension.hpp"
#include "../../view.hpp"

#include <cstddef>
#include <type_traits>

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
        // Leaf Leaf of element 0 from the layout's one pointer (a null view stays null).
        const auto at = [](auto* base, std::size_t offset) {
            using byte =
                layout::extension::copy_const_t<std::remove_pointer_t<decltype(base)>, std::byte>;
            return base ? reinterpret_cast<byte*>(base) + offset : nullptr;
        };
        if constexpr (blocked_leaves_v<T, L>)
            return {at(from.data(), map::lane_offsets[Leaf]),
                    at(to.data(), map::lane_offsets[Leaf]), element, map::leaf_run,
                    map::block_bytes};
        else
            return {at(from.data(), layout::extension::leaf_table<T>[Leaf].offset),
                    at(to.data(), layout::extension::leaf_table<T>[Leaf].offset), element, 1,
                    map::element_stride};
    }
}

} // namespace layout::mpi::detail
