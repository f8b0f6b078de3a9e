/// \file io/hdf5/write.hpp
/// layout::hdf5::write: a container, a view or a selection, of any layout, host or device
/// memory, as openPMD records (hdf5.hpp says how).
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

inline void write_root_attributes(hid_t base) {
    constexpr std::string_view where = "/";
    put_string(base, "openPMD", "1.1.0", where);
    put_scalar<std::uint32_t>(base, "openPMDextension", 0, where);
    put_string(base, "basePath", "/data/%T/", where);
    put_string(base, "particlesPath", "particles/", where);
    put_string(base, "iterationEncoding", "groupBased", where);
    put_string(base, "iterationFormat", "/data/%T/", where);
    put_string(base, "software", "layout", where);
}

/// The species group, made with its iteration; an existing species is not overwritten.
inline handle create_species(hid_t base, const write_options& o) {
    write_root_attributes(base);
    const std::string it = std::to_string(o.iteration);
    const std::string path = "/data/" + it + "/particles/" + o.species;
    if (o.species.empty() || o.species.find('/') != std::string::npos)
        fail("write", path, "the species needs a name without '/'");
    handle data = open_or_create_group(base, "data", path);
    handle iteration = open_or_create_group(data, it, path);
    put_scalar(iteration, "time", o.time, path);
    put_scalar(iteration, "dt", o.dt, path);
    put_scalar(iteration, "timeUnitSI", o.time_unit_si, path);
    handle particles = open_or_create_group(iteration, "particles", path);
    if (H5Lexists(particles, o.species.c_str(), H5P_DEFAULT) > 0)
        fail("write", path, "already in the file (write another species or iteration)");
    return open_or_create_group(particles, o.species, path);
}

template <class E>
void write_leaf_attributes(hid_t record, hid_t component, const unit& u, float time_offset,
                           std::string_view where) {
    put_array(record, "unitDimension", u.unit_dimension, where);
    put_scalar(record, "timeOffset", time_offset, where);
    put_scalar(component, "unitSI", u.unit_si, where);
}

/// One dataset per leaf of S (in its leaves' order), with the attributes, and the data.
template <class S>
void write_host(hid_t base, const S& source, const write_options& o) {
    using traits = source_traits<S>;
    using T = typename traits::T;
    constexpr auto& leaves = traits::leaves;
    constexpr auto names = leaf_names<T>();
    const std::size_t n = source.size();

    handle species = create_species(base, o);
    const std::string species_path =
        "/data/" + std::to_string(o.iteration) + "/particles/" + o.species + "/";
    const hsize_t dims[1] = {static_cast<hsize_t>(n)};
    handle file_space(H5Screate_simple(1, dims, nullptr));
    // Contiguous datasets (HDF5's default, and h5py's): no chunk index, no filters.
    const hid_t create = H5P_DEFAULT;

    std::array<handle, leaves.size()> datasets;
    std::array<handle, leaves.size()> types;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        (
            [&] {
                constexpr std::size_t L = leaves[K];
                using E = leaf_t<T, L>;
                static_assert(storable_leaf<E>(),
                              "layout: hdf5::write: a pointer leaf has no meaning in a file; "
                              "store it as an integer (std::uintptr_t) to write it");
                const leaf_place place = place_of(names[L]);
                const std::string record(place.record);
                const std::string where = species_path + std::string(names[L]);
                const auto found = o.units.find(place.record);
                const unit u = found == o.units.end() ? unit{} : found->second;
                types[K] = memory_type<E>();
                if (place.component.empty()) {
                    datasets[K] =
                        handle(checked(H5Dcreate2(species, record.c_str(), types[K], file_space,
                                                  H5P_DEFAULT, create, H5P_DEFAULT),
                                       "write", where, "H5Dcreate2"));
                    write_leaf_attributes<E>(datasets[K], datasets[K], u, o.time_offset, where);
                } else {
                    handle group = open_or_create_group(species, record, where);
                    const std::string component(place.component);
                    datasets[K] =
                        handle(checked(H5Dcreate2(group, component.c_str(), types[K], file_space,
                                                  H5P_DEFAULT, create, H5P_DEFAULT),
                                       "write", where, "H5Dcreate2"));
                    write_leaf_attributes<E>(group, datasets[K], u, o.time_offset, where);
                }
            }(),
            ...);
    }(std::make_index_sequence<leaves.size()>{});
    if (n == 0) return;

    const auto& storage = source.storage();
    if constexpr (traits::contiguous) {
        // SoA: each column straight from the container, one call each.
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            (checked_status(H5Dwrite(datasets[K], types[K], H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                     &storage.at(0).template leaf<leaves[K]>()),
                            "write", species_path + std::string(names[leaves[K]]), "H5Dwrite"),
             ...);
        }(std::make_index_sequence<leaves.size()>{});
    } else {
        // Other layouts: a block of elements at a time, transposed into one buffer per leaf,
        // each written to its part of its dataset.
        // With o.overlap, a second thread transposes the next block while this one writes.
        const std::size_t chunk = chunk_size(o.chunk_elements, n, traits::leaf_run);
        chunk_buffers<T, leaves> buffers[2]{chunk_buffers<T, leaves>(chunk),
                                            chunk_buffers<T, leaves>(o.overlap ? chunk : 0)};
        std::array<handle, leaves.size()> spaces;
        for (std::size_t k = 0; k < leaves.size(); ++k)
            spaces[k] = handle(H5Dget_space(datasets[k]));
        auto transpose = [&](std::size_t first, int b) {
            transpose_chunk<true, T, traits::leaf_run, leaves>(
                storage, first, std::min(chunk, n - first), buffers[b].at.data());
        };
        std::future<void> next;
        transpose(0, 0);
        int current = 0;
        for (std::size_t first = 0; first < n; first += chunk) {
            const std::size_t count = std::min(chunk, n - first);
            const bool more = first + chunk < n;
            if (more && o.overlap)
                next = std::async(std::launch::async, transpose, first + chunk, 1 - current);
            const hsize_t start[1] = {first}, size[1] = {count};
            handle memory_space(H5Screate_simple(1, size, nullptr));
            for (std::size_t k = 0; k < leaves.size(); ++k) {
                H5Sselect_hyperslab(spaces[k], H5S_SELECT_SET, start, nullptr, size, nullptr);
                checked_status(H5Dwrite(datasets[k], types[k], memory_space, spaces[k], H5P_DEFAULT,
                                        buffers[current].at[k]),
                               "write", species_path + std::string(names[leaves[k]]), "H5Dwrite");
            }
            if (more) {
                if (o.overlap) {
                    next.get();
                    current = 1 - current;
                } else {
                    transpose(first + chunk, current);
                }
            }
        }
    }
}

template <class S>
decltype(auto) as_view(const S& s) {
    if constexpr (requires { s.cview(); })
        return s.cview(); // a container
    else
        return (s); // a view or a selection
}

/// A view of device memory, copied on stream into a host SoA container (converted on the GPU;
/// the copy returns once the stream has done it), then written from there.
template <class View>
void write_device(hid_t base, const View& source, const write_options& o) {
    using T = typename View::value_type;
    const layout::view<const T, typename View::layout_type, typename View::memory_type> from(
        source);
    const layout::soa_vector<T> staged(from, o.stream);
    write_host(base, staged.cview(), o);
}
/// A selection of device memory: only its chosen leaves cross, into the same selection of a
/// host SoA container of the whole element type (which gives the datasets their names). Its
/// other columns are allocated but never written: their pages are never touched.
template <class View, auto... Keys>
void write_device(hid_t base, const selection<View, Keys...>& source, const write_options& o) {
    using S = selection<View, Keys...>;
    layout::soa_vector<typename View::value_type> staged;
    staged.resize(source.size(), layout::for_overwrite);
    const auto chosen = staged.template select<Keys...>();
    using D = std::remove_const_t<decltype(chosen)>;
    decltype(layout::detail::device_backend_for<S, D>())::copy(source, chosen, o.stream);
    write_host(base, chosen, o);
}

} // namespace detail

/// Writes the elements of a container, a view or a selection (c.select<&P::x, &P::id>()) as
/// species o.species of iteration o.iteration under file_or_group: one dataset per leaf, the
/// openPMD attributes, any layout. Throws layout::hdf5::error (the species already exists, or
/// an HDF5 call failed).
template <class Source>
void write(hid_t file_or_group, const Source& source, const write_options& options = {}) {
    detail::quiet_errors quiet;
    decltype(auto) s = detail::as_view(source);
    using S = std::remove_cvref_t<decltype(s)>;
    if constexpr (detail::host_source<S>()) {
        detail::write_host(file_or_group, s, options);
    } else if constexpr (requires { source.cview(); }) {
        // A device container: one copy into a host SoA container on the container's stream
        // (the converting copy takes the source's stream and waits for it), then the SoA path.
        const layout::soa_vector<typename Source::value_type> staged(source);
        detail::write_host(file_or_group, staged.cview(), options);
    } else {
        detail::write_device(file_or_group, s, options);
    }
}

} // namespace layout::hdf5
