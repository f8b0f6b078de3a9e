/// \file io/hdf5/read.hpp
/// layout::hdf5::read: a species of an iteration into a container of any layout, host or device
/// memory, every leaf checked against the file before anything changes (hdf5.hpp says how).
#pragma once

#include "../../backend.hpp"
#include "../../names.hpp"
#include "../../vector.hpp"
#include "../../view.hpp"
#include "groups.hpp"
#include "handle.hpp"
#include "options.hpp"
#include "transpose.hpp"
#include "types.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <future>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::hdf5 {

namespace detail {

/// Dataset of leaf L (a path of names below the species), open, with its checked length.
struct leaf_dataset {
    handle dataset;
    handle type;
};

template <class T>
std::vector<std::string> dataset_path(std::size_t leaf) {
    const leaf_place place = place_of(leaf_names<T>()[leaf]);
    std::vector<std::string> names{std::string(place.record)};
    if (!place.component.empty()) names.emplace_back(place.component);
    return names;
}

template <class Container>
void read_host(hid_t base, std::uint64_t iteration, const std::string& species, Container& into,
               const read_options& o) {
    using T = typename Container::value_type;
    constexpr std::size_t count = leaf_count_v<T>;
    constexpr auto names = leaf_names<T>();
    const std::string species_path = "/data/" + std::to_string(iteration) + "/particles/" + species;
    handle group =
        open_path(base, {"data", std::to_string(iteration), "particles", species}, H5I_GROUP);
    if (!group) fail("read", species_path, "no such species in the file");

    // Every check before anything is read.
    std::array<leaf_dataset, count> leaves;
    std::size_t n = 0;
    std::string first_name;
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (
            [&] {
                using E = leaf_t<T, L>;
                static_assert(storable_leaf<E>(),
                              "layout: hdf5::read: a pointer leaf has no meaning in a file; "
                              "store it as an integer (std::uintptr_t) to read it");
                const std::vector<std::string> path = dataset_path<T>(L);
                std::string where = species_path;
                for (const auto& p : path) where += "/" + p;
                const std::string field = " (leaf " + std::string(names[L]) + ")";
                handle d = open_path(group, path, H5I_DATASET);
                if (!d) fail("read", where + field, "missing: no such dataset in the file");
                handle file_type(H5Dget_type(d));
                if (!same_kind<E>(file_type)) {
                    handle mine = memory_type<E>();
                    fail("read", where + field,
                         "wrong type of element: the file has " + describe_type(file_type) +
                             ", the leaf is " + describe_type(mine));
                }
                handle space(H5Dget_space(d));
                if (H5Sget_simple_extent_ndims(space) != 1)
                    fail("read", where + field, "not a one-dimensional dataset");
                hsize_t dims[1] = {0};
                H5Sget_simple_extent_dims(space, dims, nullptr);
                if (L == 0) {
                    n = static_cast<std::size_t>(dims[0]);
                    first_name = where;
                } else if (dims[0] != n) {
                    fail("read", where + field,
                         "wrong length: " + std::to_string(dims[0]) + " elements, but " +
                             first_name + " has " + std::to_string(n));
                }
                leaves[L] = {std::move(d), memory_type<E>()};
            }(),
            ...);
    }(std::make_index_sequence<count>{});

    // Into a new host container, moved or assigned in at the end: of the same layout for host
    // memory; for device memory, SoA: the datasets go straight into its columns (nothing for the
    // host to transpose) and the assignment converts on the GPU. Not filled first:
    // every leaf of every element is read below (or fresh is dropped), so the read itself is
    // the first write to the new memory, one pass over it, not two. On a new block the first
    // write is also where the kernel maps and zeroes its pages, which costs more than the copy
    // (0.35-0.4 s per GB in the 2-core VM of bench/results/local-2026-11-27).
    using host_container = std::conditional_t<host_accessible_v<typename Container::memory_type>,
                                              layout::vector<T, typename Container::layout_type>,
                                              layout::soa_vector<T>>;
    using host_layout = typename host_container::layout_type;
    host_container fresh;
    fresh.resize(n, layout::for_overwrite);
    if (n != 0) {
        const auto storage = fresh.view().storage();
        if constexpr (layout::detail::contiguous_columns_v<typename host_container::view_type>) {
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                (checked_status(H5Dread(leaves[L].dataset, leaves[L].type, H5S_ALL, H5S_ALL,
                                        H5P_DEFAULT, &storage.at(0).template leaf<L>()),
                                "read", species_path + "/" + std::string(names[L]), "H5Dread"),
                 ...);
            }(std::make_index_sequence<count>{});
        } else {
            // A block of elements at a time: each leaf's part read into its buffer (a file
            // hyperslab, one H5Dread a leaf), then the block put into the container from the
            // buffers while they are in this core's cache. With o.overlap the second thread
            // puts the second half of the block: the cost of reading is the first touch of the
            // container's new pages (and the stores into them), which two cores share, while
            // HDF5's copies out of the page cache into the buffers take a small part of it.
            using all = source_traits<typename host_container::view_type>;
            constexpr std::size_t run = mapping<T, host_layout>::leaf_run;
            constexpr bool runs = run > 1 && run != layout::detail::whole_column;
            const std::size_t chunk = chunk_size(o.chunk_elements, n, run);
            chunk_buffers<T, all::leaves> buffers(chunk);
            std::array<handle, count> spaces;
            for (std::size_t k = 0; k < count; ++k)
                spaces[k] = handle(H5Dget_space(leaves[k].dataset));
            for (std::size_t first = 0; first < n; first += chunk) {
                const std::size_t m = std::min(chunk, n - first);
                const hsize_t start[1] = {first}, size[1] = {m};
                handle memory_space(H5Screate_simple(1, size, nullptr));
                for (std::size_t k = 0; k < count; ++k) {
                    H5Sselect_hyperslab(spaces[k], H5S_SELECT_SET, start, nullptr, size, nullptr);
                    checked_status(H5Dread(leaves[k].dataset, leaves[k].type, memory_space,
                                           spaces[k], H5P_DEFAULT, buffers.at[k]),
                                   "read", species_path + "/" + std::string(names[k]), "H5Dread");
                }
                // The second thread's half starts at a whole run (AoSoA: memcpy of runs).
                std::size_t half = o.overlap && m >= 2 * 4096 ? m / 2 : 0;
                if constexpr (runs) half = half / run * run;
                if (half == 0) {
                    transpose_chunk<false, T, run, all::leaves>(storage, first, m,
                                                                buffers.at.data());
                    continue;
                }
                std::array<std::byte*, count> second{};
                [&]<std::size_t... L>(std::index_sequence<L...>) {
                    ((second[L] = buffers.at[L] + half * sizeof(leaf_t<T, L>)), ...);
                }(std::make_index_sequence<count>{});
                auto helper = std::async(std::launch::async, [&storage, &second, first, half, m] {
                    transpose_chunk<false, T, run, all::leaves>(storage, first + half, m - half,
                                                                second.data());
                });
                transpose_chunk<false, T, run, all::leaves>(storage, first, half,
                                                            buffers.at.data());
                helper.get();
            }
        }
    }
    if constexpr (std::is_same_v<host_container, Container>)
        into = std::move(fresh);
    else
        into = fresh; // another memory space: one copy, on the container's stream
}

} // namespace detail

/// Reads species `species` of iteration `iteration` into a container of any layout, replacing
/// its elements (its size becomes the datasets' length). Throws layout::hdf5::error, naming the
/// leaf and the dataset, where the file lacks a leaf's dataset, holds another type of element
/// or another length than the other leaves; the container is then unchanged.
template <class Container>
void read(hid_t file_or_group, std::uint64_t iteration, const std::string& species, Container& into,
          const read_options& options = {}) {
    static_assert(
        requires {
            typename Container::layout_type;
            into.cview();
        }, "layout: hdf5::read reads into a container (layout::vector, soa_vector, ...)");
    detail::quiet_errors quiet;
    detail::read_host(file_or_group, iteration, species, into, options);
}

} // namespace layout::hdf5
