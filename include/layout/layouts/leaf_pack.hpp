/// \file layouts/leaf_pack.hpp
/// A plain aggregate of chosen leaves of T, for layouts to store: the parts of a split layout,
/// the staging block of a selection's copy. Nested rather than flat (C++ cannot declare a member
/// per pack element), which the library's reflection flattens back into the leaves in order.
/// Every struct in it has two fields, because nvcc cannot reflect a struct of one (a single
/// leaf is a std::array<A, 1>).
///
///     leaf_pack_t<float, float, double>        // { float head; { float head; double tail; } tail; }
///     leaf_count_v<...> == 3, leaf_t<..., 2> == double
#pragma once

#include "../reflect.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

namespace layout::detail {

template <class... Leaves>
struct leaf_pack;
template <class A, class B>
struct leaf_pack<A, B> {
    A head;
    B tail;
};
template <class A, class B, class C, class... Rest>
struct leaf_pack<A, B, C, Rest...> {
    A head;
    leaf_pack<B, C, Rest...> tail;
};

/// Where leaf_pack_t puts each of its leaves (sizes and alignments in order): the offsets of the
/// nested pairs { head; tail }, built from the back as the compiler lays them out (one leaf: a
/// std::array<A, 1>, at 0). Returns the pack's size. For code that places leaves known only at
/// run time (the advisor's candidate splits); tests/host/advise_test.cpp checks it against the
/// real packs.
constexpr std::size_t leaf_pack_offsets(std::span<const std::size_t> size,
                                        std::span<const std::size_t> alignment,
                                        std::span<std::size_t> offsets) {
    const std::size_t n = size.size();
    for (std::size_t k = 0; k < n; ++k) offsets[k] = 0;
    if (n == 0) return 0;
    std::size_t pack_size = size[n - 1], pack_alignment = alignment[n - 1];
    for (std::size_t k = n - 1; n > 1 && k-- > 0;) {
        const std::size_t tail_at = align_up(size[k], pack_alignment);
        for (std::size_t m = k + 1; m < n; ++m) offsets[m] += tail_at;
        pack_alignment = alignment[k] > pack_alignment ? alignment[k] : pack_alignment;
        pack_size = align_up(tail_at + pack_size, pack_alignment);
    }
    return pack_size;
}

template <class A, class... Rest>
auto pack_of(std::type_identity<A>, std::type_identity<Rest>...) {
    if constexpr (sizeof...(Rest) == 0)
        return std::type_identity<std::array<A, 1>>{};
    else
        return std::type_identity<leaf_pack<A, Rest...>>{};
}
/// The aggregate of leaves Leaves..., in order.
template <class... Leaves>
using leaf_pack_t = typename decltype(pack_of(std::type_identity<Leaves>{}...))::type;

template <class T, class List, std::size_t... I>
std::type_identity<leaf_pack_t<leaf_t<T, List::leaves[I]>...>> pack_type(std::index_sequence<I...>);
/// leaf_pack_t of the leaves of T that List::leaves (a constexpr std::array of indices) names.
template <class T, class List>
using leaf_pack_of =
    typename decltype(pack_type<T, List>(std::make_index_sequence<List::leaves.size()>{}))::type;

} // namespace layout::detail
