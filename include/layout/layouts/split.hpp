/// \file layouts/split.hpp
/// Hot and cold: the leaves that the keys name are stored in layout First, the others in layout
/// Second, in one block: First's part, then Second's part from the next 256-byte boundary. A
/// kernel that touches only the named leaves (positions, say) streams them alone, in the
/// layout that suits it, while the rest waits elsewhere. Keys are as for view::select: field
/// indices, member pointers of T, or layout::path<...> for a nested member (path.hpp).
///
///     struct P { float x, y, z, vx, vy, vz, mass, charge; };
///     using hot_cold = policy::split<policy::aos, policy::soa, &P::x, &P::y, &P::z>;
///     mapping<P, hot_cold>::offset(i, l, cap)   // l < 3: i*12 + 4l (x, y, z as an AoS of 12 B);
///                                               // else: round_up(12 cap, 256) + the SoA offset of
///                                               //       leaf l-3 of {vx, vy, vz, mass, charge}
///     layout::vector<P, hot_cold> v(n);         // v[i], copies, algorithms: as for any layout
///
/// Where a part is in blocks (aosoa<N>: host_units::lanes), so is the split: for_each_index on
/// the host loops over blocks of N elements and their lanes, each part seen through its view
/// of the block (the other part as it is), as it does for aosoa<N> alone.
#pragma once

#include "../config.hpp"
#include "../path.hpp"
#include "../reflect.hpp"
#include "concept.hpp"
#include "leaf_pack.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::detail {

/// Fails to compile, with a message that says what to change, unless the keys of a split name
/// each leaf at most once and leave at least one leaf to the second part.
template <class T, auto... Keys>
constexpr bool check_split_keys() {
    static_assert(keys_distinct<T, Keys...>(),
                  "layout: split<First, Second, Keys...>: a leaf is named twice (a field and a "
                  "member of it, or one field twice)");
    static_assert(!keys_distinct<T, Keys...>() ||
                      leaves_of_keys<T, Keys...>().size() < leaf_count_v<T>,
                  "layout: split<First, Second, Keys...>: the keys name every leaf, which leaves "
                  "the second part empty; use the layout First alone");
    return true;
}

/// Which leaves of T go to the first part (those the keys name) and which to the second (the
/// rest), each part in declaration order, and each leaf's index inside its part.
template <class T, auto... Keys>
struct split_parts {
    // The keys are checked in a function that returns true all the same: clang 14 marks a
    // class whose own static_assert fails invalid, and every later use of its members failed
    // too (90 lines after the message).
    static_assert(check_split_keys<T, Keys...>());
    static constexpr auto named = leaves_of_keys<T, Keys...>();
    static constexpr std::size_t first_count = named.size();
    // (With every leaf named, the second part is given the first's leaves, so that only the
    // message above is reported.)
    static constexpr std::size_t second_count =
        first_count < leaf_count_v<T> ? leaf_count_v<T> - first_count : first_count;

    static constexpr auto in_first = [] {
        std::array<bool, leaf_count_v<T>> in{};
        for (std::size_t l : named) in[l] = true;
        return in;
    }();
    static constexpr auto index = [] {
        std::array<std::size_t, leaf_count_v<T>> at{};
        std::size_t first = 0, second = 0;
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) at[l] = in_first[l] ? first++ : second++;
        return at;
    }();
    template <bool First, std::size_t Count>
    struct part_list {
        static constexpr auto leaves = [] {
            std::array<std::size_t, Count> list{};
            std::size_t k = 0;
            for (std::size_t l = 0; l < leaf_count_v<T> && k < Count; ++l)
                if (in_first[l] == First || first_count == leaf_count_v<T>) list[k++] = l;
            return list;
        }();
    };
    using first_type = leaf_pack_of<T, part_list<true, first_count>>;
    using second_type = leaf_pack_of<T, part_list<false, second_count>>;
};

/// Leaf L of the element: in the first part's cursor or in the second's. A dropped part's
/// cursor (no_leaves::cursor) is an ordinary empty member, not [[no_unique_address]]: a proxy
/// holding this cursor can be a kernel argument, and nvcc's host and device passes have laid
/// out such members differently (split_kept says where).
template <class E, class Parts, class First, class Second>
struct split_cursor {
    First first;
    Second second;
    template <std::size_t L>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE copy_const_t<E, leaf_t<E, L>>& leaf() const noexcept {
        if constexpr (Parts::in_first[L])
            return first.template leaf<Parts::index[L]>();
        else
            return second.template leaf<Parts::index[L]>();
    }
};

/// A split storage narrowed to some leaves (storage::keep): each part narrowed, or dropped
/// (no_leaves). A dropped part is not a member: selections go to kernels by value, and nvcc's
/// device pass ignores [[no_unique_address]] where its host pass honours it, so an empty member
/// would move the members after it on one side only (the kernel then read a wrong size).
template <class E, class Parts, class First, class Second>
struct split_kept {
    using cursor = split_cursor<E, Parts, typename First::cursor, typename Second::cursor>;
    First first;
    Second second;
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        return {first.at(i), second.at(i)};
    }
};
template <class E, class Parts, class First>
struct split_kept<E, Parts, First, no_leaves> {
    using cursor = split_cursor<E, Parts, typename First::cursor, no_leaves::cursor>;
    First first;
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        return {first.at(i), {}};
    }
};
template <class E, class Parts, class Second>
struct split_kept<E, Parts, no_leaves, Second> {
    using cursor = split_cursor<E, Parts, no_leaves::cursor, typename Second::cursor>;
    Second second;
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        return {{}, second.at(i)};
    }
};

/// The part-local indices of those of leaves L... that lie in the first part (InFirst) or not.
template <class Parts, bool InFirst, std::size_t... L>
struct leaves_in_part {
    static constexpr auto leaves = [] {
        std::array<std::size_t, (std::size_t{0} + ... + (Parts::in_first[L] == InFirst))> at{};
        std::size_t k = 0;
        ((Parts::in_first[L] == InFirst ? (void)(at[k++] = Parts::index[L]) : (void)0), ...);
        return at;
    }();
};

/// The lanes of a layout in blocks (host_units::lanes), else 0.
template <class L>
inline constexpr std::size_t block_lanes_v = 0;
template <class L>
    requires requires { L::host_units::lanes; }
inline constexpr std::size_t block_lanes_v<L> = L::host_units::lanes;

/// A split's blocks: its part's, or its parts' where both have blocks of one size; none (0)
/// where they differ.
template <class First, class Second>
inline constexpr std::size_t split_lanes_v =
    block_lanes_v<First> == 0                       ? block_lanes_v<Second>
    : block_lanes_v<Second> == 0                    ? block_lanes_v<First>
    : block_lanes_v<First> == block_lanes_v<Second> ? block_lanes_v<First>
                                                    : 0;

/// A part's layout in a view of one block: its block_layout, or itself (a part without blocks
/// reaches element i of the block's view as it does in the whole view).
template <class L>
struct part_block_layout {
    using type = L;
};
template <class L>
    requires requires { typename L::block_layout; }
struct part_block_layout<L> {
    using type = typename L::block_layout;
};

/// A part's storage in block k's view: its block(k), or itself.
template <class S>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto part_block(const S& s, std::size_t k) noexcept {
    if constexpr (requires { s.block(k); })
        return s.block(k);
    else
        return s;
}

/// The K-th of the pointers p.
template <std::size_t K, class A, class... Rest>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr auto* nth_pointer(A* a, Rest*... rest) noexcept {
    if constexpr (K == 0)
        return a;
    else
        return nth_pointer<K - 1>(rest...);
}
struct count_pointers {
    template <class... P>
    std::integral_constant<std::size_t, sizeof...(P)> operator()(P*...) const;
};

} // namespace layout::detail

namespace layout::policy {

template <class First, class Second, auto... Keys>
struct split;

namespace split_facts {
/// What a split in blocks of Lanes elements adds to the policy (layouts/concept.hpp): its
/// host_units and the layout of a block's view; nothing where it has no blocks. (A base of
/// split, so in a namespace of its own: the namespaces of a class's bases join argument-dependent
/// lookup for every call with a view of it, and layout::detail holds functions.)
template <class First, class Second, std::size_t Lanes, auto... Keys>
struct blocks {
    using host_units = layout::detail::blocks_of<Lanes>;
    using block_layout = split<typename layout::detail::part_block_layout<First>::type,
                               typename layout::detail::part_block_layout<Second>::type, Keys...>;
};
template <class First, class Second, auto... Keys>
struct blocks<First, Second, 0, Keys...> {};
} // namespace split_facts

template <class First, class Second, auto... Keys>
struct split : split_facts::blocks<First, Second, detail::split_lanes_v<First, Second>, Keys...> {
    static_assert(sizeof...(Keys) > 0,
                  "layout: split<First, Second, Keys...>: name the fields that go to First, e.g. "
                  "split<aos, soa, &P::x, &P::y>");
    using first_layout = First;
    using second_layout = Second;
    /// Deprecated (0.1), removed in the next release: only the advisor named layouts, now by
    /// layout::advisor::layout_name<L> (<layout/advise/layout_name.hpp>).
    static std::string name() { return "split<" + First::name() + "," + Second::name() + ">"; }
    /// Where the second part starts: a block's alignment (layout::block_alignment), which the
    /// second layout may count on as it does at the start of a block of its own.
    static constexpr std::size_t part_alignment = 256;

    /// (None for a split of layouts without one: a block's view, block_layout.)
    template <class T>
        requires requires {
            typename First::template mapping<T>;
            typename Second::template mapping<T>;
        }
    struct mapping {
        using parts = detail::split_parts<T, Keys...>;
        using first_map = layout::mapping<typename parts::first_type, First>;
        using second_map = layout::mapping<typename parts::second_type, Second>;

        static constexpr std::size_t second_offset(std::size_t capacity) {
            return detail::align_up(first_map::bytes(capacity), part_alignment);
        }
        static constexpr std::size_t bytes(std::size_t capacity) {
            return second_offset(capacity) + second_map::bytes(capacity);
        }
        static constexpr std::size_t offset(std::size_t i, std::size_t leaf, std::size_t capacity) {
            const std::size_t in_part = parts::index[leaf];
            return parts::in_first[leaf]
                       ? first_map::offset(i, in_part, capacity)
                       : second_offset(capacity) + second_map::offset(i, in_part, capacity);
        }
        /// A capacity both parts take as it is (whole blocks of each, where they have blocks).
        static constexpr std::size_t rounded_capacity(std::size_t n) {
            for (;;) {
                const std::size_t next =
                    second_map::rounded_capacity(first_map::rounded_capacity(n));
                if (next == n) return n;
                n = next;
            }
        }
        /// Said for no leaf: the two parts differ.
        static constexpr std::size_t leaf_run = 1;
    };

    /// The two parts' storages.
    template <class E>
    struct storage {
        using split_policy = layout::policy::split<First, Second, Keys...>;
        using parts = detail::split_parts<std::remove_const_t<E>, Keys...>;
        using first_storage =
            detail::storage<detail::copy_const_t<E, typename parts::first_type>, First>;
        using second_storage =
            detail::storage<detail::copy_const_t<E, typename parts::second_type>, Second>;
        using cursor = detail::split_cursor<E, parts, typename first_storage::cursor,
                                            typename second_storage::cursor>;
        first_storage first;
        second_storage second;

        static storage from_block(detail::copy_const_t<E, void>* block,
                                  std::size_t capacity) noexcept {
            using byte = detail::copy_const_t<E, std::byte>;
            const std::size_t at = mapping<std::remove_const_t<E>>::second_offset(capacity);
            return {first_storage::from_block(block, capacity),
                    second_storage::from_block(static_cast<byte*>(block) + at, capacity)};
        }
        /// Elements [k, ...), where both parts' elements start anywhere.
        LAYOUT_HOST_DEVICE storage advanced(std::size_t k) const noexcept
            requires requires(const first_storage& a, const second_storage& b, std::size_t n) {
                a.advanced(n);
                b.advanced(n);
            }
        {
            return {first.advanced(k), second.advanced(k)};
        }

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            return {first.at(i), second.at(i)};
        }
        LAYOUT_HOST_DEVICE detail::copy_const_t<E, void>* first_byte() const noexcept {
            return first.first_byte();
        }
        /// The storage of a view of block k, where the split has blocks (host_loop.hpp):
        /// each part's block(k), or the part as it is.
        template <class Split = split_policy>
            requires requires { typename Split::block_layout; }
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto block(std::size_t k) const noexcept {
            using block_storage = typename Split::block_layout::template storage<E>;
            return block_storage{detail::part_block(first, k), detail::part_block(second, k)};
        }
        /// Leaves L... alone (view::select): a part none of them lies in is dropped.
        template <std::size_t... L>
        LAYOUT_HOST_DEVICE auto keep() const noexcept {
            using in_first = detail::leaves_in_part<parts, true, L...>;
            using in_second = detail::leaves_in_part<parts, false, L...>;
            auto a = detail::keep_listed<in_first>(
                first, std::make_index_sequence<in_first::leaves.size()>{});
            auto b = detail::keep_listed<in_second>(
                second, std::make_index_sequence<in_second::leaves.size()>{});
            using kept = detail::split_kept<E, parts, decltype(a), decltype(b)>;
            if constexpr (std::is_same_v<decltype(b), detail::no_leaves>)
                return kept{a};
            else if constexpr (std::is_same_v<decltype(a), detail::no_leaves>)
                return kept{b};
            else
                return kept{a, b};
        }

        /// Kernel arguments: the first part's pointers, then the second's, and back.
        template <class F>
        decltype(auto) split(F&& f) const {
            return first.split([&](auto*... a) -> decltype(auto) {
                return second.split([&](auto*... b) -> decltype(auto) { return f(a..., b...); });
            });
        }
        template <class... P>
        LAYOUT_HOST_DEVICE static storage rebuild(P*... p) noexcept {
            constexpr std::size_t k = decltype(std::declval<const first_storage&>().split(
                detail::count_pointers{}))::value;
            return [&]<std::size_t... A, std::size_t... B>(std::index_sequence<A...>,
                                                           std::index_sequence<B...>) {
                return storage{first_storage::rebuild(detail::nth_pointer<A>(p...)...),
                               second_storage::rebuild(detail::nth_pointer<k + B>(p...)...)};
            }(std::make_index_sequence<k>{}, std::make_index_sequence<sizeof...(P) - k>{});
        }

        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        LAYOUT_HOST_DEVICE operator storage<const Mutable>() const noexcept {
            return {first, second};
        }
    };

    /// The first part's runs, then the second's.
    template <class T, class F, class... S>
    static void runs(std::size_t n, F&& f, const S&... s) {
        using parts = detail::split_parts<T, Keys...>;
        First::template runs<typename parts::first_type>(n, f, s.first...);
        Second::template runs<typename parts::second_type>(n, f, s.second...);
    }
};

} // namespace layout::policy
