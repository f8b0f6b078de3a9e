/// \file io/hdf5/transpose.hpp
/// What is written: the leaves of a view or a selection (where each goes in openPMD's records
/// and components), and their transposition, a chunk of elements at a time, between any layout
/// and one buffer per leaf (what H5Dwrite and H5Dread move where a leaf is not one column).
#pragma once

#include "../../config.hpp"
#include "../../memory_resource.hpp"
#include "../../policies.hpp"
#include "../../reflect.hpp"
#include "../../selection.hpp"
#include "../../view.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace layout::hdf5::detail {

/// Where a leaf goes: record "pos" and component "x" (empty for a scalar record).
struct leaf_place {
    std::string_view record;
    std::string_view component;
};
inline leaf_place place_of(std::string_view leaf_name) {
    const std::size_t cut = leaf_name.find_first_of(".[");
    if (cut == std::string_view::npos) return {leaf_name, {}};
    std::string_view rest = leaf_name.substr(cut);
    if (rest.front() == '.') rest.remove_prefix(1);
    return {leaf_name.substr(0, cut), rest};
}

template <class S>
struct source_traits; // S: a view or a selection of host memory

template <class V>
    requires requires {
        typename V::storage_type;
        typename V::layout_type;
    }
struct source_traits<V> {
    using T = typename V::value_type;
    static constexpr auto leaves = [] {
        std::array<std::size_t, leaf_count_v<T>> all{};
        for (std::size_t l = 0; l < all.size(); ++l) all[l] = l;
        return all;
    }();
    static constexpr bool contiguous = layout::detail::contiguous_columns_v<V>;
    static constexpr std::size_t leaf_run = mapping<T, typename V::layout_type>::leaf_run;
};
template <class View, auto... Keys>
struct source_traits<selection<View, Keys...>> {
    using T = typename View::value_type;
    static constexpr auto leaves = selection<View, Keys...>::leaves;
    static constexpr bool contiguous = layout::detail::contiguous_columns_v<View>;
    static constexpr std::size_t leaf_run = mapping<T, typename View::layout_type>::leaf_run;
};

template <class S>
constexpr bool host_source() {
    if constexpr (requires { typename S::memory_type; })
        return host_accessible_v<typename S::memory_type>;
    else
        return true; // views without a memory space are host views
}

/// The elements moved per H5Dwrite / H5Dread where a leaf is not one contiguous column: a block
/// of 64Ki elements (2 MiB of 32-byte elements) and its transposed copy stay in cache while one
/// is turned into the other, and each HDF5 call moves enough to cost little per byte.
inline constexpr std::size_t default_chunk = std::size_t{1} << 16;

/// Elements per block of the scatter from leaf buffers into a layout without runs (AoS, split):
/// about 4 KiB of elements, which stay in L1 while each leaf is stored into them.
template <class T>
inline constexpr std::size_t scatter_block = std::clamp<std::size_t>(4096 / sizeof(T), 16, 256);

/// Moves elements [first, first + count) of a storage to or from one buffer per leaf (out[k]:
/// leaf Leaves[k] of those elements, contiguous). Where the layout keeps a leaf's values in runs
/// (AoSoA: LeafRun lanes) and first is at a run's start, run by run (memcpy); otherwise:
/// - into the buffers, element by element, every leaf of an element at once, so that the
///   elements are read once, in order;
/// - out of them, a block of scatter_block<T> elements at a time, leaf by leaf: each buffer is
///   read in order (vector loads) and its values stored at the element stride into the block,
///   which stays in L1 until every leaf is in. 2.4x the speed of element by element for 32-byte
///   elements (0.067 s against 0.160 s for 1 GB into mapped memory, bench/results/
///   local-2026-11-27/hdf5.md), where storing 8 leaves of an element from 8 streams was slower.
template <bool ToBuffers, class T, auto Leaves, class Storage, class... E>
void transpose_elements(const Storage& storage, std::size_t first, std::size_t count,
                        E* LAYOUT_RESTRICT... buffer) {
    // Restrict: the buffers alias neither each other nor the container, so that the compiler
    // may keep an element's leaves in registers (and vectorize) across the stores.
    if constexpr (ToBuffers) {
        for (std::size_t i = 0; i < count; ++i) {
            const auto cursor = storage.at(first + i);
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                ((buffer[i] = cursor.template leaf<Leaves[K]>()), ...);
            }(std::make_index_sequence<sizeof...(E)>{});
        }
    } else {
        constexpr std::size_t block = scatter_block<T>;
        const std::tuple<E*...> buffers(buffer...);
        for (std::size_t i0 = 0; i0 < count; i0 += block) {
            const std::size_t m = std::min(block, count - i0);
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                (
                    [&] {
                        using leaf = std::tuple_element_t<K, std::tuple<E...>>;
                        const leaf* LAYOUT_RESTRICT from = std::get<K>(buffers) + i0;
                        for (std::size_t i = 0; i < m; ++i)
                            storage.at(first + i0 + i).template leaf<Leaves[K]>() = from[i];
                    }(),
                    ...);
            }(std::make_index_sequence<sizeof...(E)>{});
        }
    }
}

template <bool ToBuffers, class T, std::size_t LeafRun, auto Leaves, class Storage>
void transpose_chunk(const Storage& storage, std::size_t first, std::size_t count,
                     std::byte* const* buffers) {
    constexpr std::size_t k_count = Leaves.size();
    if constexpr (LeafRun > 1 && LeafRun != layout::detail::whole_column) {
        if (first % LeafRun == 0) {
            // Run by run, every leaf of a run of elements before the next: one pass over them.
            for (std::size_t i = 0; i < count; i += LeafRun) {
                const std::size_t m = std::min(LeafRun, count - i);
                const auto cursor = storage.at(first + i);
                [&]<std::size_t... K>(std::index_sequence<K...>) {
                    (
                        [&] {
                            using E = leaf_t<T, Leaves[K]>;
                            E* buffer = reinterpret_cast<E*>(buffers[K]) + i;
                            auto& at = cursor.template leaf<Leaves[K]>();
                            if constexpr (ToBuffers)
                                std::memcpy(buffer, &at, m * sizeof(E));
                            else
                                std::memcpy(&at, buffer, m * sizeof(E));
                        }(),
                        ...);
                }(std::make_index_sequence<k_count>{});
            }
            return;
        }
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        transpose_elements<ToBuffers, T, Leaves>(
            storage, first, count, reinterpret_cast<leaf_t<T, Leaves[K]>*>(buffers[K])...);
    }(std::make_index_sequence<k_count>{});
}

/// Elements per chunk: about chunk_elements, a whole number of the layout's runs.
inline std::size_t chunk_size(std::size_t wanted, std::size_t n, std::size_t leaf_run) {
    std::size_t c = std::max<std::size_t>(wanted, 1);
    if (leaf_run > 1 && leaf_run != layout::detail::whole_column)
        c = (c + leaf_run - 1) / leaf_run * leaf_run;
    return std::min(c, n);
}

/// The per-leaf buffers of a chunk of elements, one allocation.
template <class T, auto Leaves>
struct chunk_buffers {
    std::unique_ptr<std::byte[]> block;
    std::array<std::byte*, Leaves.size()> at{};
    explicit chunk_buffers(std::size_t chunk) {
        std::size_t bytes = 0;
        std::array<std::size_t, Leaves.size()> offsets{};
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((offsets[K] = bytes,
              bytes += layout::detail::align_up(chunk * sizeof(leaf_t<T, Leaves[K]>), 64)),
             ...);
        }(std::make_index_sequence<Leaves.size()>{});
        block.reset(new std::byte[bytes]);
        for (std::size_t k = 0; k < at.size(); ++k) at[k] = block.get() + offsets[k];
    }
};

} // namespace layout::hdf5::detail
