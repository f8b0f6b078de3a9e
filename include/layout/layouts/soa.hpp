/// \file layouts/soa.hpp
/// Structure of arrays: one column per leaf, each starting on a 256-byte boundary (one warp's
/// 32 floats fill one 128-byte line; 256 for the reason given at column_stride).
///
///     struct P { float x; double d; };                    // leaves: x (4 B), d (8 B)
///     mapping<P, policy::soa>::offset(i, l, cap)          // {0, round_up(4*cap, 256) + 256}[l] + i*{4, 8}[l]
#pragma once

#include "../config.hpp"
#include "../reflect.hpp"
#include "concept.hpp"

#include <cstddef>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::policy {

struct soa {
    /// Deprecated (0.1), removed in the next release: only the advisor named layouts, now by
    /// layout::advisor::layout_name<L> (<layout/advise/layout_name.hpp>).
    static std::string name() { return "soa"; }
    static constexpr std::size_t column_alignment = 256;
    /// Bytes a column of `capacity` values of leaf_size bytes takes, to the next column's start
    /// (see mapping::column_stride for why). Also for code that places columns of leaves known
    /// only at run time (the advisor's candidate splits).
    static constexpr std::size_t column_bytes(std::size_t leaf_size, std::size_t capacity) {
        return capacity == 0
                   ? 0
                   : detail::align_up(capacity * leaf_size, column_alignment) + column_alignment;
    }

    template <class T>
    struct mapping {
        /// Bytes from the start of column l to the start of column l + 1: the column padded to a
        /// multiple of column_alignment, plus one more. Without the extra, columns of a
        /// power-of-two capacity start a multiple of 4 KiB apart and share CPU cache sets (a
        /// host SoA loop over eight such columns ran 2.8x slower); 256 rather than 128 because
        /// a GPU drift over columns 128 bytes out of step ran slower (bench/results/h100-2026-11-23).
        static constexpr std::size_t column_stride(std::size_t leaf, std::size_t capacity) {
            return soa::column_bytes(detail::leaf_table<T>[leaf].size, capacity);
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
        static constexpr std::size_t rounded_capacity(std::size_t n) { return n; }
        static constexpr std::size_t leaf_run = detail::whole_column;
    };

    // The cursor copies the pointers rather than pointing at the view's array, so that a proxy
    // outlives the temporary view or iterator it came from; inlined, the copy costs nothing.
    template <class E>
    struct cursor {
        detail::copy_const_t<E, void>* columns[leaf_count_v<E>];
        std::size_t index;
        template <std::size_t L>
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE detail::copy_const_t<E, leaf_t<E, L>>&
        leaf() const noexcept {
            return detail::restrict_at(
                static_cast<detail::copy_const_t<E, leaf_t<E, L>>*>(columns[L]), index);
        }
    };

    /// Leaves Kept... alone, for view::select: their columns' pointers and nothing else, so
    /// that a selection handed to a kernel carries only those.
    template <class E, std::size_t... Kept>
    struct kept_columns {
        using column_pointer = detail::copy_const_t<E, void>*;
        struct cursor {
            column_pointer columns[sizeof...(Kept)];
            std::size_t index;
            template <std::size_t L>
            LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE detail::copy_const_t<E, leaf_t<E, L>>&
            leaf() const noexcept {
                constexpr std::size_t at = [] {
                    std::size_t k = 0;
                    for (std::size_t leaf : {Kept...})
                        if (leaf == L)
                            return k;
                        else
                            ++k;
                    return k;
                }();
                static_assert(at < sizeof...(Kept), "layout: this leaf was not selected");
                return detail::restrict_at(
                    static_cast<detail::copy_const_t<E, leaf_t<E, L>>*>(columns[at]), index);
            }
        };
        column_pointer columns[sizeof...(Kept)];

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            cursor c;
            LAYOUT_UNROLL
            for (std::size_t k = 0; k < sizeof...(Kept); ++k) c.columns[k] = columns[k];
            c.index = i;
            return c;
        }
    };

    /// One pointer per leaf.
    template <class E>
    struct storage {
        using cursor = soa::cursor<E>;
        using column_pointer = detail::copy_const_t<E, void>*;
        column_pointer columns[leaf_count_v<E>];

        static storage from_block(column_pointer block, std::size_t capacity) noexcept {
            using byte = detail::copy_const_t<E, std::byte>;
            using map = mapping<std::remove_const_t<E>>;
            storage s{};
            s.columns[0] = block;
            for (std::size_t l = 1; l < leaf_count_v<E>; ++l)
                s.columns[l] =
                    static_cast<byte*>(s.columns[l - 1]) + map::column_stride(l - 1, capacity);
            return s;
        }
        /// view(n, columns...) over one array per leaf the user owns, in leaf order.
        template <class... Columns>
            requires(sizeof...(Columns) == leaf_count_v<E>)
        LAYOUT_HOST_DEVICE static storage from_columns(Columns*... columns) noexcept {
            static_assert(
                []<std::size_t... L>(std::index_sequence<L...>) {
                    return (std::is_same_v<std::remove_const_t<Columns>, leaf_t<E, L>> && ...);
                }(std::index_sequence_for<Columns...>{}),
                "layout: a SoA view takes one pointer per leaf, of that leaf's type, "
                "in declaration order");
            return rebuild(columns...);
        }
        /// Elements [k, ...) of this storage.
        LAYOUT_HOST_DEVICE storage advanced(std::size_t k) const noexcept {
            storage s{};
            for (std::size_t l = 0; l < leaf_count_v<E>; ++l)
                s.columns[l] = static_cast<detail::copy_const_t<E, std::byte>*>(columns[l]) +
                               k * detail::leaf_table<std::remove_const_t<E>>[l].size;
            return s;
        }
        /// Leaf L's column, contiguous.
        template <std::size_t L>
        LAYOUT_HOST_DEVICE detail::copy_const_t<E, leaf_t<E, L>>* leaf_data() const noexcept {
            return static_cast<detail::copy_const_t<E, leaf_t<E, L>>*>(columns[L]);
        }

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            cursor c;
            LAYOUT_UNROLL
            for (std::size_t l = 0; l < leaf_count_v<E>; ++l) c.columns[l] = columns[l];
            c.index = i;
            return c;
        }
        LAYOUT_HOST_DEVICE column_pointer first_byte() const noexcept { return columns[0]; }
        template <std::size_t... Kept>
        LAYOUT_HOST_DEVICE kept_columns<E, Kept...> keep() const noexcept {
            return {{columns[Kept]...}};
        }
        /// A copy made pointer by pointer: clang 14 copies a struct of pointers as untyped
        /// bytes, so that any float store of a loop might have changed them, and reloads every
        /// column pointer per element (vector::storage() hands out copies).
        LAYOUT_HOST_DEVICE storage copy() const noexcept {
            storage s;
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                ((s.columns[L] = columns[L]), ...);
            }(std::make_index_sequence<leaf_count_v<E>>{});
            return s;
        }

        /// Kernel arguments: one typed pointer per leaf, and back. Mutable pointers even for a
        /// read-only view, which is rebuilt as read-only: nvcc's generated launch stub cannot
        /// spell the const leaf types (a parse error in the stub), and ld.global.nc comes from
        /// restrict plus no stores, not from const.
        template <class F>
        decltype(auto) split(F&& f) const {
            return [&]<std::size_t... L>(std::index_sequence<L...>) -> decltype(auto) {
                return f(static_cast<leaf_t<std::remove_const_t<E>, L>*>(
                    const_cast<void*>(static_cast<const void*>(columns[L])))...);
            }(std::make_index_sequence<leaf_count_v<E>>{});
        }
        template <class... Columns>
        LAYOUT_HOST_DEVICE static storage rebuild(Columns*... columns) noexcept {
            storage s;
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                ((s.columns[L] = columns), ...);
            }(std::index_sequence_for<Columns...>{});
            return s;
        }

        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        LAYOUT_HOST_DEVICE operator storage<const Mutable>() const noexcept {
            storage<const E> s{};
            for (std::size_t l = 0; l < leaf_count_v<E>; ++l) s.columns[l] = columns[l];
            return s;
        }
    };

    /// One run per column.
    template <class T, class F, class... S>
    static void runs(std::size_t n, F&& f, const S&... s) {
        if (n)
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
                f(n * detail::leaf_table<T>[l].size, s.columns[l]...);
    }
};

} // namespace layout::policy
