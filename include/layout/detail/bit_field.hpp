/// \file detail/bit_field.hpp
/// Whether a plain struct has a bit-field member, found without binding a reference to any
/// member: Boost.PFR binds references, which a bit-field refuses with a hard error, so this must
/// answer first (reflect.hpp's structure_error turns the answer into a layout: message).
///
///     struct S { int a : 32; float* p; };   // has_bit_field<S>() == true
///
/// A structured binding names every field, bit-fields included, and a requires-expression asks
/// whether each name binds to a reference (field_bindings.hpp): exact for any bit-field, as wide
/// as its type or not, next to pointers, alignas or not, under g++, clang and nvcc alike.
#pragma once

#include "field_bindings.hpp"

#include <boost/pfr/core.hpp>

#include <type_traits>
#include <utility>

namespace layout::detail {

/// True when the aggregate T (checked for references, C arrays and odd class members before)
/// has a bit-field member of its own; member structs are asked on their own.
template <class T>
constexpr bool has_bit_field() {
    using addressable = decltype(every_field_addressable(
        std::declval<T&>(), field_count_tag<boost::pfr::tuple_size_v<T>>{}));
    return !addressable::value;
}

} // namespace layout::detail
