/// \file io/hdf5/types.hpp
/// The HDF5 types of leaves in memory (native floats and integers, bool as h5py stores it,
/// enums as their integers), their names for messages, and whether a file's type holds them.
#pragma once

#include "handle.hpp"

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <type_traits>

namespace layout::hdf5::detail {

template <class E>
constexpr bool storable_leaf() {
    return std::is_arithmetic_v<E> || std::is_enum_v<E>;
}

/// The HDF5 type of a leaf in memory: native floats and integers by size and sign; bool as
/// h5py and NumPy store it (an enum of int8, FALSE = 0, TRUE = 1); an enum as its integer.
template <class E>
handle memory_type() {
    if constexpr (std::is_enum_v<E>) {
        return memory_type<std::underlying_type_t<E>>();
    } else if constexpr (std::is_same_v<E, bool>) {
        static_assert(sizeof(bool) == 1, "layout: hdf5: bool leaves need a 1-byte bool");
        handle t(H5Tenum_create(H5T_NATIVE_INT8));
        signed char v = 0;
        H5Tenum_insert(t, "FALSE", &v);
        v = 1;
        H5Tenum_insert(t, "TRUE", &v);
        return t;
    } else if constexpr (std::is_floating_point_v<E>) {
        if constexpr (sizeof(E) == sizeof(float))
            return handle(H5Tcopy(H5T_NATIVE_FLOAT));
        else if constexpr (sizeof(E) == sizeof(double))
            return handle(H5Tcopy(H5T_NATIVE_DOUBLE));
        else
            return handle(H5Tcopy(H5T_NATIVE_LDOUBLE));
    } else {
        static_assert(std::is_integral_v<E>);
        constexpr bool s = std::is_signed_v<E>;
        if constexpr (sizeof(E) == 1)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8));
        else if constexpr (sizeof(E) == 2)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16));
        else if constexpr (sizeof(E) == 4)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32));
        else
            return handle(H5Tcopy(s ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64));
    }
}

/// "float32", "int64", "bool": what a leaf or a file's dataset holds, for messages.
inline std::string describe_type(hid_t type) {
    const std::size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_FLOAT:
        return "float" + std::to_string(8 * size);
    case H5T_INTEGER:
        return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
    case H5T_ENUM:
        return "enum of " + std::to_string(size) + " bytes";
    case H5T_STRING:
        return "string";
    case H5T_COMPOUND:
        return "compound";
    default:
        return "a type of class " + std::to_string(static_cast<int>(H5Tget_class(type)));
    }
}

/// Whether a dataset's type holds leaf values of type E exactly (byte order aside: HDF5 swaps
/// it on reading): same class, size and sign. A bool leaf takes h5py's bool enum or a 1-byte
/// integer.
template <class E>
bool same_kind(hid_t file_type) {
    handle mine = memory_type<E>();
    const H5T_class_t c = H5Tget_class(file_type);
    if (H5Tget_size(file_type) != H5Tget_size(mine)) return false;
    if constexpr (std::is_same_v<E, bool>) {
        if (c == H5T_ENUM) {
            handle base(H5Tget_super(file_type));
            return H5Tget_class(base) == H5T_INTEGER;
        }
        return c == H5T_INTEGER;
    } else if constexpr (std::is_floating_point_v<E>) {
        return c == H5T_FLOAT;
    } else {
        return c == H5T_INTEGER && H5Tget_sign(file_type) == H5Tget_sign(mine);
    }
}

} // namespace layout::hdf5::detail
