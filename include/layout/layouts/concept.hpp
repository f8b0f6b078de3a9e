/// \file layouts/concept.hpp
/// What a layout is: a tag type L (policy::aos, policy::soa, policy::aosoa<N>, or one of your
/// own) that holds everything the library needs to know about storing elements of T its way.
/// The rest of the library programs against layout_policy<L, T> below and never asks which
/// layout it has; adding a layout is adding one file like layouts/aos.hpp.
///
///     L::mapping<T>       bytes(capacity), offset(i, leaf, capacity), rounded_capacity(n):
///                         the byte offset of (element i, leaf l) from the start of a block
///     L::storage<E>       what a view holds (E is T or const T): at(i) gives the cursor an
///                         element proxy uses; from_block(block, capacity) points it into a
///                         block of mapping::bytes(capacity); first_byte(); split(f) calls
///                         f(pointers...), the view's pointers as separate kernel arguments,
///                         and rebuild(pointers...) makes the storage again from them
///     L::runs<T>(n, f, s...)   calls f(bytes, p...) for each contiguous byte run holding
///                         elements [0, n) of the storages s... (views of one layout, whose
///                         capacities may differ), the runs in the same order for each;
///                         at most max_runs_v<T> of them (leaf_count_v<T> + 2)
///
/// Optional facts, each asked for by name (requires), never by layout:
///     mapping::leaf_run       elements whose values of one leaf are adjacent, in runs
///                             starting at multiples of it (1: none; whole_column: all)
///     mapping::element_stride elements are whole T objects, this many bytes apart, from
///                             storage::data (AoS: sizeof(T))
///     mapping::block_bytes, lane_offsets, leaf_run   a blocked layout (AoSoA-like)
///     storage::data           the one pointer of a single-block storage (view::data())
///     storage::from_pointer(p), from_columns(p...)   views over memory the user owns
///     storage::leaf_data<L>() leaf L's contiguous column
///     storage::advanced(k)    the storage of elements [k, ...): elements start anywhere
///     L::block_layout, storage::block_of(i)   a view of the block holding element i whose
///                             lanes are affine in i (cuda::for_each_index: vector accesses)
///     storage::keep<L...>()   a storage of leaves L... alone (at(i).leaf<L>() as before), for
///                             view::select: SoA keeps only the chosen columns' pointers
///     L::host_units           count(n), grain: the units of layout::for_each_index's work on
///                             the host (default: elements); with `lanes` (blocks_of<N>), blocks
///                             of N elements, each a lane loop over the view of the block
///                             (L::block_layout, storage::block(k); host_loop.hpp)
///     L::name()               what layout::advise calls it
#pragma once

#include "../config.hpp"
#include "../reflect.hpp"

#include <concepts>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

namespace layout {

struct host_memory;
template <class T, class Layout, class Memory = host_memory>
class view;

namespace detail {

template <class From, class To>
using copy_const_t = std::conditional_t<std::is_const_v<From>, const To, To>;

/// p[i], through a __restrict__ parameter. Passing the address through restrict is what lets
/// nvcc treat a view like a hand-written kernel's restrict pointers: loads of columns that the
/// kernel never writes become read-only-cache loads (ld.global.nc), as in the raw kernel.
/// The contract is the kernel parameter's: within one kernel, memory written through a view is
/// not also accessed through another view or pointer.
template <class Leaf>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE Leaf& restrict_at(Leaf* LAYOUT_RESTRICT p,
                                                        std::size_t i) noexcept {
    return p[i];
}

/// mapping::leaf_run of a layout whose columns are contiguous from the first element to the last.
inline constexpr std::size_t whole_column = std::numeric_limits<std::size_t>::max();

/// A pointer as a (const) void*, for runs' callbacks.
template <class P>
LAYOUT_HOST_DEVICE copy_const_t<P, void>* void_pointer(P* p) noexcept {
    return p;
}

} // namespace detail

/// The most runs a layout's runs<T> may make: one per leaf and one of whole blocks (AoSoA), and
/// one more for a layout of two parts (split), each of which may end in a partial block.
template <class T>
inline constexpr std::size_t max_runs_v = leaf_count_v<T> + 2;

/// The (element, leaf, capacity) -> byte offset of T under Layout.
template <class T, class Layout>
using mapping = typename Layout::template mapping<T>;

namespace detail {
/// What a view of E under Layout holds.
template <class E, class Layout>
using storage = typename Layout::template storage<E>;
} // namespace detail

namespace detail {
/// Whether every leaf of view type V is one contiguous column (storage::leaf_data: SoA).
template <class V>
inline constexpr bool contiguous_columns_v =
    requires(const typename V::storage_type& s) { s.template leaf_data<0>(); };

/// Whether T under L is an array of whole T objects, sizeof(T) apart, behind storage::data
/// (mapping::element_stride == sizeof(T): AoS), so that its bytes can be moved as raw chunks.
template <class T, class L>
inline constexpr bool packed_elements_v = [] {
    if constexpr (requires { mapping<std::remove_const_t<T>, L>::element_stride; })
        return mapping<std::remove_const_t<T>, L>::element_stride == sizeof(T);
    else
        return false;
}();
} // namespace detail

namespace detail {
/// A storage with no leaves: the part of a split layout that a selection does not reach.
struct no_leaves {
    struct cursor {};
    LAYOUT_HOST_DEVICE cursor at(std::size_t) const noexcept { return {}; }
};

/// L::host_units of a layout in blocks of Lanes elements (see above): the work is cut between
/// threads in whole blocks, each run as a loop over its lanes.
template <std::size_t Lanes>
struct blocks_of {
    static constexpr std::size_t lanes = Lanes;
    static constexpr std::size_t grain = 1;
    static constexpr std::size_t count(std::size_t n) { return (n + Lanes - 1) / Lanes; }
};

/// Storage s narrowed to leaves L... (storage::keep where the layout has it, else s itself,
/// whose pointers already serve every leaf).
template <std::size_t... L, class S>
LAYOUT_HOST_DEVICE auto keep_leaves(const S& s) noexcept {
    if constexpr (sizeof...(L) == 0)
        return no_leaves{};
    else if constexpr (requires { s.template keep<L...>(); })
        return s.template keep<L...>();
    else
        return s;
}
/// keep_leaves of the leaves List::leaves names (a constexpr std::array of indices).
template <class List, class S, std::size_t... I>
LAYOUT_HOST_DEVICE auto keep_listed(const S& s, std::index_sequence<I...>) noexcept {
    return keep_leaves<List::leaves[I]...>(s);
}
} // namespace detail

namespace detail {
// The functions layout_policy hands to runs and split: named types, not lambdas. nvcc 13 finds a
// concept whose requires-expression holds a lambda false whatever the lambda (and, outside a
// concept, a lambda body there does not see the expression's parameters: decltype(s) is an
// undefined identifier), which made layout_policy false for every layout under nvcc.

/// A runs callback that does nothing with the runs of a mutable and a read-only storage.
struct ignore_runs {
    void operator()(std::size_t, void*, const void*) const {}
};
/// A split callback that makes storage S again from the pointers it is given (S::rebuild).
template <class S>
struct rebuild_storage {
    template <class... P>
    S operator()(P*... p) const {
        return S::rebuild(p...);
    }
};
} // namespace detail

/// What every layout provides (see the top of this file). Nothing checks it for you: a layout
/// states it, static_assert(layout::layout_policy<L, T>), in its tests (policies_test.cpp for
/// the four of the library, layouts_concept_test.cpp for one of a user's own).
template <class L, class T>
concept layout_policy = requires(std::size_t n, typename L::template storage<T> s,
                                 typename L::template storage<const T> c, void* block) {
    { L::template mapping<T>::bytes(n) } -> std::same_as<std::size_t>;
    { L::template mapping<T>::offset(n, n, n) } -> std::same_as<std::size_t>;
    { L::template mapping<T>::rounded_capacity(n) } -> std::same_as<std::size_t>;
    { L::template mapping<T>::leaf_run } -> std::convertible_to<std::size_t>;
    s.at(n).template leaf<0>();
    { L::template storage<T>::from_block(block, n) } -> std::same_as<decltype(s)>;
    { s.first_byte() } -> std::convertible_to<const void*>;
    { c.first_byte() } -> std::convertible_to<const void*>;
    { s } -> std::convertible_to<decltype(c)>;
    L::template runs<T>(n, detail::ignore_runs{}, s, c);
    { s.split(detail::rebuild_storage<decltype(s)>{}) } -> std::same_as<decltype(s)>;
    { c.split(detail::rebuild_storage<decltype(c)>{}) } -> std::same_as<decltype(c)>;
};

} // namespace layout
