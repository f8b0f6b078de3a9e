/// \file detail/leaf_pack.hpp
/// A plain aggregate of chosen leaves of T, for layouts to store: the parts of a split layout,
/// the staging block of a selection's copy. Nested rather than flat (C++ cannot declare a member
/// per pack element), which the library's reflection flattens back into the leaves in order.
///
///     leaf_pack<float, float, double>          // { float head; { float head; { double head; } tail; } tail; }
///     leaf_count_v<...> == 3, leaf_t<..., 2> == double
#pragma once

#include "../reflect.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::detail {

template <class... Leaves>
struct leaf_pack;
template <class A>
struct leaf_pack<A> {
    A head;
};
template <class A, class B, class... Rest>
struct leaf_pack<A, B, Rest...> {
    A head;
    leaf_pack<B, Rest...> tail;
};

template <class T, class List, std::size_t... I>
std::type_identity<leaf_pack<leaf_t<T, List::leaves[I]>...>> pack_type(std::index_sequence<I...>);
/// leaf_pack of the leaves of T that List::leaves (a constexpr std::array of indices) names.
template <class T, class List>
using leaf_pack_of = typename decltype(pack_type<T, List>(
    std::make_index_sequence<List::leaves.size()>{}))::type;

} // namespace layout::detail
