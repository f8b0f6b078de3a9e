/// \file reflect.hpp
/// The fields of a plain struct, flattened to scalar leaves through Boost.PFR.
///
///     struct Vec3 { float x, y, z; };
///     struct Body { Vec3 pos; std::array<double, 2> w; int id; };
///     layout::leaf_count_v<Body>  == 6          // pos.x pos.y pos.z w[0] w[1] id
///     layout::leaf_t<Body, 3>     == double     // w[0]
///     layout::field_index_v<&Body::id> == 2     // the third top-level field
///
/// Leaves are the unit of storage: under SoA each leaf is its own column.
#pragma once

#include "config.hpp"
#include "detail/bit_field.hpp"
#include "detail/leaf_offsets.hpp"
#include "detail/leaves.hpp"

#include <boost/pfr/core.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout {
namespace detail {

/// The most fields Boost.PFR can take apart: its generated structured bindings stop at 100
/// (boost/pfr/detail/core17_generated.hpp); past that it fails with thousands of lines.
inline constexpr std::size_t max_fields = 100;

enum class reflect_error {
    none,
    c_array,
    reference,
    union_type,
    not_aggregate,
    not_trivially_copyable,
    not_standard_layout,
    no_fields,
    single_field_under_nvcc,
    reference_member,
    c_array_member,
    const_member,
    empty_or_class_member,
    bit_field,
    too_many_fields,
    zero_length_array,
    unverifiable_offsets,
};

template <class T>
constexpr reflect_error structure_error();

// ---- Checks -------------------------------------------------------------------------------

/// Converts to any type; braced, {any_value{}}, it initializes exactly one member.
struct any_value {
    template <class U>
    constexpr operator U() const noexcept;
};

template <std::size_t>
using any_value_for = any_value;

/// True when T{{v}, {v}, ...} compiles with one braced value per field PFR counts. A C array
/// member fails it: PFR counts float v[3] as three fields (through brace elision), but a braced
/// value initializes the whole array. A reference member fails it too (no value to bind), and
/// so do an empty member struct and a member of a class type with several constructors.
template <class T, std::size_t... I>
constexpr bool one_braced_value_per_field(std::index_sequence<I...>) {
    return requires { T{{any_value_for<I>{}}...}; };
}

/// Converts to an empty class or a class with constructors, nothing else: the member types
/// that make one_braced_value_per_field fail besides C arrays and references.
struct odd_class_value {
    template <class U>
        requires(std::is_class_v<U> && (std::is_empty_v<U> || !std::is_aggregate_v<U>))
    constexpr operator U() const noexcept;
};
template <class T, std::size_t... I>
constexpr bool odd_class_after(std::index_sequence<I...>) {
    return requires { T{any_value_for<I>{}..., odd_class_value{}}; };
}
/// True when some field of T is an empty class or a class with constructors.
template <class T, std::size_t... K>
constexpr bool has_odd_class_member(std::index_sequence<K...>) {
    return (odd_class_after<T>(std::make_index_sequence<K>{}) || ...);
}

template <class T, std::size_t... I>
constexpr reflect_error check_members(std::index_sequence<I...>) {
    reflect_error first = reflect_error::none;
    ((first = first != reflect_error::none ? first : structure_error<field_t<T, I>>()), ...);
    return first;
}

/// Finds the first reason T cannot be taken apart into leaves, without instantiating anything
/// that would fail harder than the static_assert that reports it.
template <class T>
constexpr reflect_error structure_error() {
    if constexpr (std::is_array_v<T>) {
        return reflect_error::c_array;
    } else if constexpr (std::is_reference_v<T>) {
        return reflect_error::reference;
    } else if constexpr (std::is_const_v<T> || std::is_volatile_v<T>) {
        return reflect_error::const_member; // the element type's own const is removed before
    } else if constexpr (std::is_union_v<T>) {
        return reflect_error::union_type;
    } else if constexpr (std::is_scalar_v<T>) {
        return reflect_error::none;
    } else if constexpr (is_std_array_v<T>) {
        if constexpr (std::tuple_size_v<T> == 0)
            return reflect_error::zero_length_array;
        else
            return structure_error<typename T::value_type>();
    } else if constexpr (!std::is_aggregate_v<T>) {
        return reflect_error::not_aggregate;
    } else if constexpr (!std::is_standard_layout_v<T>) {
        // A reference member also makes a struct non-standard-layout, and deletes its default
        // constructor (unless it has a default member initializer); a base class does not.
        return std::is_default_constructible_v<T> ? reflect_error::not_standard_layout
                                                  : reflect_error::reference_member;
    } else if constexpr (!std::is_trivially_copyable_v<T>) {
        return reflect_error::not_trivially_copyable;
#if defined(__CUDACC__)
    } else if constexpr (
        requires { T{any_value{}}; } &&
        !requires {
            T{any_value{}, any_value{}};
        }) {
        // nvcc 13's front end trips over Boost.PFR's field count of one-member structs
        // (assert_first_not_base); say so before PFR fails with an unreadable error.
        return reflect_error::single_field_under_nvcc;
#endif
    } else if constexpr (boost::pfr::tuple_size_v<T> == 0) {
        return reflect_error::no_fields;
    } else if constexpr (boost::pfr::tuple_size_v<T> > max_fields) {
        return reflect_error::too_many_fields;
    } else if constexpr (!one_braced_value_per_field<T>(
                             std::make_index_sequence<boost::pfr::tuple_size_v<T>>{})) {
        if constexpr (!std::is_default_constructible_v<T>)
            return reflect_error::reference_member;
        else if constexpr (has_odd_class_member<T>(
                               std::make_index_sequence<boost::pfr::tuple_size_v<T>>{}))
            return reflect_error::empty_or_class_member;
        else
            return reflect_error::c_array_member;
    } else if constexpr (has_bit_field<T>()) {
        return reflect_error::bit_field;
    } else if constexpr (constexpr reflect_error e = check_members<T>(
                             std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
                         e != reflect_error::none) {
        return e;
    } else {
        return reflect_error::none;
    }
}

template <class T>
constexpr bool refused() {
    return structure_error<T>() != reflect_error::none;
}

/// What the structure allows but the offsets do not, under nvcc only: a member moved by alignas
/// in a struct whose leaves the front end cannot read from bytes (pointers, long double) or
/// that is larger than it reads. The front end refuses what changes a size or an alignment; the
/// host pass (g++ or clang, which probe every offset) whatever else the front end would misplace.
template <class T>
constexpr reflect_error layout_error() {
    if constexpr (offsets_probed<T>) {
#if defined(__CUDACC__)
        if constexpr (fallback_leaf_offsets<T>() != probed_leaf_offsets<T>().at)
            return reflect_error::unverifiable_offsets;
#endif
        return reflect_error::none;
    } else if constexpr (!abi_rule_holds<T>()) {
        return reflect_error::unverifiable_offsets;
    } else {
        return reflect_error::none;
    }
}

template <class T>
constexpr reflect_error check_element_type() {
    using U = std::remove_const_t<T>;
    if constexpr (std::is_class_v<U> && !std::is_aggregate_v<U> && !std::is_union_v<U>)
        return reflect_error::not_aggregate;
    else if constexpr (constexpr reflect_error e = structure_error<U>(); e != reflect_error::none)
        return e;
    else
        return layout_error<U>();
}

} // namespace detail

/// True when T can be stored by layout: a scalar, or a plain aggregate whose members are scalars,
/// std::arrays and nested plain aggregates.
template <class T>
concept reflectable = detail::check_element_type<T>() == detail::reflect_error::none;

/// Fails to compile, with a message that says what to change, unless T is reflectable. Returns
/// true either way: its static_asserts are the error, and a false here would fail again in each
/// class that checks it (a vector, its view and its read-only view: 16 more lines under g++).
template <class T>
constexpr bool assert_reflectable() {
    using detail::reflect_error;
    constexpr reflect_error e = detail::check_element_type<T>();
    static_assert(e != reflect_error::c_array,
                  "layout: the element type is a C array; store structs, or wrap the array in one");
    static_assert(e != reflect_error::reference, "layout: the element type is a reference");
    static_assert(e != reflect_error::union_type,
                  "layout: unions cannot be split into columns (the element type is one or has "
                  "one as a member); use a struct");
    static_assert(e != reflect_error::not_aggregate,
                  "layout: the element type (or a member struct) is not an aggregate: it has "
                  "constructors, private members, virtual functions or base classes. layout "
                  "reflects plain structs only");
    static_assert(e != reflect_error::no_fields,
                  "layout: the element type (or a member struct) is empty: nothing to store");
    static_assert(e != reflect_error::single_field_under_nvcc,
                  "layout: under nvcc, Boost.PFR cannot reflect a struct with a single member "
                  "(a front-end bug); store the member's type itself, or add a member");
    static_assert(e != reflect_error::reference_member,
                  "layout: the element type has a reference member; store a value or a pointer");
    static_assert(e != reflect_error::not_trivially_copyable,
                  "layout: the element type must be trivially copyable (no std::string, "
                  "std::vector or user-written copy, move or destructor): elements are moved as "
                  "bytes between layouts and devices");
    static_assert(e != reflect_error::not_standard_layout,
                  "layout: the element type (or a member struct) is not standard-layout: it has "
                  "a reference member (store a value or a pointer) or a base class with data "
                  "members (make them members)");
    static_assert(e != reflect_error::c_array_member,
                  "layout: the element type has a C array member (such as float v[3]), which "
                  "Boost.PFR cannot reflect: use std::array<float, 3> instead");
    static_assert(e != reflect_error::const_member,
                  "layout: the element type has a const or volatile member: elements are "
                  "assigned leaf by leaf; drop the qualifier (a view<const T> is read-only)");
    static_assert(e != reflect_error::empty_or_class_member,
                  "layout: the element type has an empty member struct, or a member of a class "
                  "type with constructors (such as __half): layout stores scalars, std::arrays "
                  "and plain structs with at least one scalar");
    static_assert(e != reflect_error::bit_field,
                  "layout: the element type has bit-fields, which have no address and cannot "
                  "be split into columns; use plain integer members");
    static_assert(e != reflect_error::too_many_fields,
                  "layout: the element type has more than 100 fields, the most Boost.PFR can "
                  "reflect; group fields into member structs or std::arrays");
    static_assert(e != reflect_error::zero_length_array,
                  "layout: the element type has a std::array<T, 0> member, which holds nothing; "
                  "remove it");
    static_assert(e != reflect_error::unverifiable_offsets,
                  "layout: under nvcc, cannot find the member offsets of a struct with pointer "
                  "or long double members (or larger than 4 KiB) and alignas on a member or on "
                  "the struct (nvcc's front end cannot read them): remove the alignas, or store "
                  "the pointer as std::uintptr_t");
    return true;
}

/// Number of scalar leaves of T (its columns under SoA).
template <class T>
inline constexpr std::size_t leaf_count_v = detail::leaf_count<std::remove_const_t<T>>();

/// Type of leaf L of T.
template <class T, std::size_t L>
using leaf_t = typename decltype(detail::leaf_type_of<std::remove_const_t<T>, L>())::type;

/// Number of direct fields of an aggregate (elements of a std::array).
template <class T>
inline constexpr std::size_t field_count_v = detail::field_count<std::remove_const_t<T>>();

namespace detail {

template <auto MemberPtr>
struct member_pointer_traits {
    static_assert(std::is_member_object_pointer_v<decltype(MemberPtr)>,
                  "layout: expected a pointer to a data member, such as &Particle::x");
};
template <class C, class M, M C::*MemberPtr>
struct member_pointer_traits<MemberPtr> {
    using class_type = C;
    using member_type = M;
};

/// The field index of a member pointer, found by comparing addresses inside a constant-evaluated
/// object (PFR's get<I> and obj.*p name the same subobject exactly for the right I).
template <auto MemberPtr>
constexpr std::size_t field_index_of() {
    using traits = member_pointer_traits<MemberPtr>;
    using C = typename traits::class_type;
    using M = typename traits::member_type;
    C obj{};
    std::size_t found = field_count<C>();
    auto match = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
        if constexpr (std::is_same_v<field_t<C, I>, M>) {
            if (found == field_count<C>() && static_cast<const void*>(&boost::pfr::get<I>(obj)) ==
                                                 static_cast<const void*>(&(obj.*MemberPtr)))
                found = I;
        }
    };
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (match(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<field_count<C>()>{});
    return found;
}

} // namespace detail

/// Index of the field a member pointer names: field_index_v<&Particle::vx> == 3.
/// The struct must be default-constructible in a constant expression (plain aggregates are).
template <auto MemberPtr>
inline constexpr std::size_t field_index_v = detail::field_index_of<MemberPtr>();

} // namespace layout
