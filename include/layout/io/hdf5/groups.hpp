/// \file io/hdf5/groups.hpp
/// Attributes (strings, scalars, arrays; replaced where present) and groups (opened, or made
/// where absent; a path of them opened, or found missing) of an HDF5 file.
#pragma once

#include "handle.hpp"
#include "types.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace layout::hdf5::detail {

/// Writes attribute name on obj, replacing one already there.
inline void put_attribute(hid_t obj, const char* name, hid_t type, hid_t space, const void* value,
                          std::string_view where) {
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    handle a(checked(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), "write", where,
                     std::string("H5Acreate2 of attribute ") + name));
    checked_status(H5Awrite(a, type, value), "write", where,
                   std::string("H5Awrite of attribute ") + name);
}
inline void put_string(hid_t obj, const char* name, std::string_view value,
                       std::string_view where) {
    handle type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type, std::max<std::size_t>(value.size(), 1));
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    handle space(H5Screate(H5S_SCALAR));
    std::string padded(value);
    padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
    put_attribute(obj, name, type, space, padded.data(), where);
}
template <class V>
void put_scalar(hid_t obj, const char* name, V value, std::string_view where) {
    handle type = memory_type<V>();
    handle space(H5Screate(H5S_SCALAR));
    put_attribute(obj, name, type, space, &value, where);
}
template <class V, std::size_t N>
void put_array(hid_t obj, const char* name, const std::array<V, N>& value, std::string_view where) {
    handle type = memory_type<V>();
    const hsize_t dims[1] = {N};
    handle space(H5Screate_simple(1, dims, nullptr));
    put_attribute(obj, name, type, space, value.data(), where);
}

/// Group name under parent, opened, or created where absent.
inline handle open_or_create_group(hid_t parent, const std::string& name, std::string_view where) {
    if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0)
        return handle(
            checked(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "write", where, "H5Gopen2"));
    return handle(checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "write", where, "H5Gcreate2"));
}

/// The object at a path of names below parent, or an invalid handle where one is missing (or
/// is not of the kind asked for).
inline handle open_path(hid_t parent, const std::vector<std::string>& names, H5I_type_t kind) {
    handle current;
    hid_t at = parent;
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (H5Lexists(at, names[k].c_str(), H5P_DEFAULT) <= 0) return {};
        handle next(H5Oopen(at, names[k].c_str(), H5P_DEFAULT));
        if (!next) return {};
        const H5I_type_t type = H5Iget_type(next);
        if (k + 1 < names.size() ? type != H5I_GROUP : type != kind) return {};
        current = std::move(next);
        at = current;
    }
    return current;
}

} // namespace layout::hdf5::detail
