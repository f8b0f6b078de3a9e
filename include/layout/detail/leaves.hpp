/// \file detail/leaves.hpp
/// A plain struct seen as a flat list of scalar leaves, through Boost.PFR: how many, of which
/// type, in which field, and a reference to each.
///
///     struct Body { Vec3 pos; std::array<double, 2> w; int id; };   // Vec3 { float x, y, z; }
///     leaf_count<Body>() == 6, first_leaf<Body> == {0, 3, 5, 6}, leaf_ref<4>(b) is b.w[1]
#pragma once

#include "../config.hpp"
#include "field_ref.hpp"

#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace layout::detail {

constexpr std::size_t align_up(std::size_t n, std::size_t alignment) {
    return (n + alignment - 1) / alignment * alignment;
}

template <class T>
inline constexpr bool is_std_array_v = false;
template <class E, std::size_t N>
inline constexpr bool is_std_array_v<std::array<E, N>> = true;

template <class T>
inline constexpr bool is_scalar_array_v = false;
template <class E, std::size_t N>
inline constexpr bool is_scalar_array_v<std::array<E, N>> = std::is_scalar_v<E>;

/// True when reflect.hpp's checks refuse T (defined there, with the reasons).
template <class T>
constexpr bool refused();

/// Leaves are scalars: arithmetic types, enums and pointers. A type the structural checks
/// refuse counts as one opaque leaf too, so that nothing past the static_assert that reports
/// it (view, vector, mapping) takes it apart and buries the message under pages of errors.
template <class T>
constexpr bool leaf_like() {
    if constexpr (std::is_scalar_v<T>)
        return true;
    else
        return refused<T>();
}
template <class T>
inline constexpr bool is_leaf_v = leaf_like<T>();

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
    else if constexpr (is_std_array_v<T>) // no fold over its elements: clang nests them 256 deep
        return std::tuple_size_v<T> * leaf_count<typename T::value_type>();
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

/// Reference to leaf L of obj (const if obj is): a chain of member accesses the compiler folds
/// to one constant offset. Each field through field_ref (field_ref.hpp), not Boost.PFR's get,
/// which in unoptimized builds tied every member into a tuple for each one asked for (a split
/// layout's part, a nested leaf_pack, took one tie per level: 3x aos's access time).
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
        return leaf_ref<L - first_leaf<U>[field]>(
            field_ref<field>(obj, field_count_tag<field_count<U>()>{}));
    }
}

} // namespace layout::detail
