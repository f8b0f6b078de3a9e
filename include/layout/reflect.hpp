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

#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout {
namespace detail {

template <class T>
inline constexpr bool is_std_array_v = false;
template <class E, std::size_t N>
inline constexpr bool is_std_array_v<std::array<E, N>> = true;

/// Leaves are scalars: arithmetic types, enums and pointers.
template <class T>
inline constexpr bool is_leaf_v = std::is_scalar_v<T>;

template <class T>
inline constexpr bool is_scalar_array_v = false;
template <class E, std::size_t N>
inline constexpr bool is_scalar_array_v<std::array<E, N>> = std::is_scalar_v<E>;

template <class T>
constexpr std::size_t field_count() {
    if constexpr (is_std_array_v<T>)
        return std::tuple_size_v<T>;
    else
        return boost::pfr::tuple_size_v<T>;
}

template <class T, std::size_t I>
constexpr auto field_type_of() {
    if constexpr (is_std_array_v<T>)
        return std::type_identity<typename T::value_type>{};
    else
        return std::type_identity<boost::pfr::tuple_element_t<I, T>>{};
}

/// Type of the I-th direct member of an aggregate or std::array.
template <class T, std::size_t I>
using field_t = typename decltype(field_type_of<T, I>())::type;

template <class T>
constexpr std::size_t leaf_count() {
    if constexpr (is_leaf_v<T>)
        return 1;
    else
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return (std::size_t{0} + ... + leaf_count<field_t<T, I>>());
        }(std::make_index_sequence<field_count<T>()>{});
}

/// first_leaf[I]: index of the first leaf of field I; first_leaf[field_count]: leaf_count.
template <class T>
inline constexpr auto first_leaf = []<std::size_t... I>(std::index_sequence<I...>) {
    std::array<std::size_t, sizeof...(I) + 1> prefix{};
    std::size_t counts[] = {leaf_count<field_t<T, I>>()..., 0};
    for (std::size_t i = 0; i < sizeof...(I); ++i) prefix[i + 1] = prefix[i] + counts[i];
    return prefix;
}(std::make_index_sequence<field_count<T>()>{});

/// Index of the field that holds leaf L.
template <class T, std::size_t L>
constexpr std::size_t field_of_leaf() {
    std::size_t i = 0;
    while (first_leaf<T>[i + 1] <= L) ++i;
    return i;
}

template <class T, std::size_t L>
constexpr auto leaf_type_of() {
    if constexpr (is_leaf_v<T>) {
        return std::type_identity<T>{};
    } else {
        constexpr std::size_t field = field_of_leaf<T, L>();
        return leaf_type_of<field_t<T, field>, L - first_leaf<T>[field]>();
    }
}

constexpr std::size_t align_up(std::size_t n, std::size_t alignment) {
    return (n + alignment - 1) / alignment * alignment;
}

/// Byte offset of each field inside T by the platform ABI's rule for standard-layout structs
/// (each member at the next multiple of its alignment); [field_count] is the padded size.
template <class T>
inline constexpr auto field_offsets = []<std::size_t... I>(std::index_sequence<I...>) {
    std::array<std::size_t, sizeof...(I) + 1> offsets{};
    std::size_t sizes[] = {sizeof(field_t<T, I>)..., 0};
    std::size_t aligns[] = {alignof(field_t<T, I>)..., 1};
    std::size_t end = 0;
    for (std::size_t i = 0; i < sizeof...(I); ++i) {
        offsets[i] = align_up(end, aligns[i]);
        end = offsets[i] + sizes[i];
    }
    offsets[sizeof...(I)] = align_up(end, alignof(T));
    return offsets;
}(std::make_index_sequence<field_count<T>()>{});

template <class T, std::size_t L>
constexpr std::size_t leaf_offset() {
    if constexpr (is_leaf_v<T>) {
        return 0;
    } else {
        constexpr std::size_t field = field_of_leaf<T, L>();
        return field_offsets<T>[field] +
               leaf_offset<field_t<T, field>, L - first_leaf<T>[field]>();
    }
}

/// Size, alignment and byte offset inside T of every leaf, for mappings that index leaves at run
/// time (the layout proofs) rather than through templates.
struct leaf_info {
    std::size_t size;
    std::size_t alignment;
    std::size_t offset;
};

template <class T>
inline constexpr auto leaf_table = []<std::size_t... L>(std::index_sequence<L...>) {
    return std::array<leaf_info, sizeof...(L)>{
        leaf_info{sizeof(typename decltype(leaf_type_of<T, L>())::type),
                  alignof(typename decltype(leaf_type_of<T, L>())::type), leaf_offset<T, L>()}...};
}(std::make_index_sequence<leaf_count<T>()>{});

/// Reference to leaf L of obj (const if obj is): a chain of member accesses the compiler folds
/// to one constant offset.
template <std::size_t L, class T>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr auto& leaf_ref(T& obj) noexcept {
    using U = std::remove_const_t<T>;
    if constexpr (is_leaf_v<U>) {
        return obj;
    } else if constexpr (is_std_array_v<U>) {
        constexpr std::size_t per = leaf_count<typename U::value_type>();
        return leaf_ref<L % per>(obj[L / per]);
    } else {
        constexpr std::size_t field = field_of_leaf<U, L>();
        return leaf_ref<L - first_leaf<U>[field]>(boost::pfr::get<field>(obj));
    }
}

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
    bit_field_or_alignas,
};

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
/// so does a member of a class type with several constructors (ambiguous).
template <class T, std::size_t... I>
constexpr bool one_braced_value_per_field(std::index_sequence<I...>) {
    return requires { T{{any_value_for<I>{}}...}; };
}

template <class T>
constexpr reflect_error check_member_type();

template <class T, std::size_t... I>
constexpr reflect_error check_members(std::index_sequence<I...>) {
    reflect_error first = reflect_error::none;
    ((first = first != reflect_error::none ? first : check_member_type<field_t<T, I>>()), ...);
    return first;
}

/// Finds the first reason T cannot be stored, without instantiating anything that would fail
/// harder than the static_assert that reports it.
template <class T>
constexpr reflect_error check_member_type() {
    if constexpr (std::is_array_v<T>) {
        return reflect_error::c_array;
    } else if constexpr (std::is_reference_v<T>) {
        return reflect_error::reference;
    } else if constexpr (std::is_union_v<T>) {
        return reflect_error::union_type;
    } else if constexpr (is_leaf_v<T>) {
        return reflect_error::none;
    } else if constexpr (is_std_array_v<T>) {
        return check_member_type<typename T::value_type>();
    } else if constexpr (!std::is_aggregate_v<T>) {
        return reflect_error::not_aggregate;
    } else if constexpr (!std::is_standard_layout_v<T>) {
        // A reference member also makes a struct non-standard-layout, and deletes its default
        // constructor; a base class with members does not.
        return std::is_default_constructible_v<T> ? reflect_error::not_standard_layout
                                                  : reflect_error::reference_member;
    } else if constexpr (!std::is_trivially_copyable_v<T>) {
        return reflect_error::not_trivially_copyable;
#if defined(__CUDACC__)
    } else if constexpr (requires { T{any_value{}}; } && !requires { T{any_value{}, any_value{}}; }) {
        // nvcc 13's front end trips over Boost.PFR's field count of one-member structs
        // (assert_first_not_base); say so before PFR fails with an unreadable error.
        return reflect_error::single_field_under_nvcc;
#endif
    } else if constexpr (boost::pfr::tuple_size_v<T> == 0) {
        return reflect_error::no_fields;
    } else if constexpr (!one_braced_value_per_field<T>(
                             std::make_index_sequence<boost::pfr::tuple_size_v<T>>{})) {
        return std::is_default_constructible_v<T> ? reflect_error::c_array_member
                                                  : reflect_error::reference_member;
    } else if constexpr (check_members<T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{}) !=
                         reflect_error::none) {
        return check_members<T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
    } else if constexpr (field_offsets<T>[boost::pfr::tuple_size_v<T>] != sizeof(T)) {
        return reflect_error::bit_field_or_alignas;
    } else {
        return reflect_error::none;
    }
}

template <class T>
constexpr reflect_error check_element_type() {
    if constexpr (std::is_class_v<T> && !std::is_aggregate_v<T> && !std::is_union_v<T>)
        return reflect_error::not_aggregate;
    else
        return check_member_type<std::remove_const_t<T>>();
}

} // namespace detail

/// True when T can be stored by layout: a scalar, or a plain aggregate whose members are scalars,
/// std::arrays and nested plain aggregates.
template <class T>
concept reflectable = detail::check_element_type<T>() == detail::reflect_error::none;

/// Fails to compile, with a message that says what to change, unless T is reflectable.
template <class T>
constexpr bool assert_reflectable() {
    using detail::reflect_error;
    constexpr reflect_error e = detail::check_element_type<T>();
    static_assert(e != reflect_error::c_array,
                  "layout: the element type is a C array; store structs, or wrap the array in one");
    static_assert(e != reflect_error::reference, "layout: the element type is a reference");
    static_assert(e != reflect_error::union_type,
                  "layout: unions cannot be split into columns; use a struct");
    static_assert(e != reflect_error::not_aggregate,
                  "layout: the element type (or a member struct) is not an aggregate: it has "
                  "constructors, private members, virtual functions or base classes. layout "
                  "reflects plain structs only");
    static_assert(e != reflect_error::no_fields, "layout: the element type has no fields");
    static_assert(e != reflect_error::single_field_under_nvcc,
                  "layout: under nvcc, Boost.PFR cannot reflect a struct with a single member "
                  "(a front-end bug); store the member's type itself, or add a member");
    static_assert(e != reflect_error::reference_member,
                  "layout: the element type has a reference member; store a value or a pointer");
    static_assert(e != reflect_error::not_trivially_copyable,
                  "layout: the element type must be trivially copyable (no user-written copy, "
                  "move or destructor): elements are moved as bytes between layouts and devices");
    static_assert(e != reflect_error::not_standard_layout,
                  "layout: the element type must be standard-layout (no base class with data "
                  "members, one access level for all fields)");
    static_assert(e != reflect_error::c_array_member,
                  "layout: the element type has a C array member (such as float v[3]), which "
                  "Boost.PFR cannot reflect: use std::array<float, 3> instead. (A member of a "
                  "class type with constructors, such as __half, also lands here: layout "
                  "stores scalars, std::arrays and plain structs)");
    static_assert(e != reflect_error::bit_field_or_alignas,
                  "layout: the fields of the element type do not add up to its size: bit-fields "
                  "and alignas members cannot be split into columns; use plain members");
    return e == reflect_error::none;
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
