/// \file path.hpp
/// How fields are named: a key is a field index or a member pointer of the struct, and
/// layout::path<...> is a nested member, spelled with the keys column<...> takes.
///
///     struct Vec3 { float x, y, z; };
///     struct Body { Vec3 pos; int id; double w; };        // leaves: pos.x pos.y pos.z id w
///     v.column<&Body::pos, &Vec3::y>()                    // leaf 1
///     v.select<&Body::pos, &Body::w>()                    // leaves 0 1 2 and 4: pos whole, w
///     v.select<layout::path<&Body::pos, &Vec3::y>, 2>()   // leaves 1 and 3: pos.y, id
///     layout::policy::split<aos, soa, &Body::pos>         // pos in AoS, id and w in SoA
#pragma once

#include "config.hpp"
#include "reflect.hpp"

#include <array>
#include <cstddef>
#include <type_traits>

namespace layout {

template <auto... Keys>
struct path_t {
    static_assert(sizeof...(Keys) > 0, "layout: path<...> needs at least one key");
};
/// A nested member as one key of select<...> or split<...>: path<&Body::pos, &Vec3::y>.
template <auto... Keys>
inline constexpr path_t<Keys...> path{};

namespace detail {

template <class>
inline constexpr bool dependent_false_v = false;

/// Field index from a key: an index, or a member pointer of the struct U.
template <class U, auto Key>
constexpr std::size_t field_key_index() {
    if constexpr (std::is_integral_v<decltype(Key)>) {
        return static_cast<std::size_t>(Key);
    } else {
        static_assert(std::is_member_object_pointer_v<decltype(Key)>,
                      "layout: get<Key>: Key is a field index or a pointer to a data member");
        static_assert(std::is_same_v<typename member_pointer_traits<Key>::class_type, U>,
                      "layout: get<&S::m>: the member pointer belongs to another struct than "
                      "this element (for a nested member, get the outer member first)");
        return field_index_v<Key>;
    }
}

/// The leaves [first, first + leaf_count_v<type>) a path of keys reaches from T: a scalar
/// member, or a nested struct or std::array member with all its leaves. Each step is checked
/// before it is taken, so a bad path gives its one message and nothing after it.
template <class U, std::size_t First>
struct leaf_span {
    using type = U;
    static constexpr std::size_t first = First;
    static constexpr std::size_t count = leaf_count_v<U>;
};
template <class T, auto Key, auto... Rest>
constexpr auto walk_path() {
    constexpr std::size_t field = field_key_index<T, Key>();
    if constexpr (field >= field_count<T>()) {
        static_assert(dependent_false_v<T>,
                      "layout: column<...> or path<...>: a path index is out of range (past the "
                      "end of a std::array member, or past the last field of a struct)");
        // T's first leaf in its place, a scalar: a column of it asks nothing more.
        return leaf_span<typename decltype(leaf_type_of<T, 0>())::type, 0>{};
    } else {
        constexpr std::size_t first = first_leaf<T>[field];
        using F = field_t<T, field>;
        if constexpr (sizeof...(Rest) == 0) {
            return leaf_span<F, first>{};
        } else if constexpr (is_leaf_v<F>) {
            static_assert(dependent_false_v<F>,
                          "layout: column<...> or path<...>: the path goes on past a scalar "
                          "member; end it there");
            return leaf_span<F, first>{};
        } else {
            using inner = decltype(walk_path<F, Rest...>());
            return leaf_span<typename inner::type, first + inner::first>{};
        }
    }
}

/// Leaf index reached by a path that ends at a scalar (view::column).
template <class T, auto Key, auto... Rest>
constexpr std::size_t leaf_of_path() {
    using span = decltype(walk_path<T, Key, Rest...>());
    static_assert(is_leaf_v<typename span::type>,
                  "layout: column<...>: the path must end at a scalar member "
                  "(add the nested member, e.g. column<&P::pos, &Vec3::x>)");
    return span::first;
}

/// The leaves one key of select<...> or split<...> names: a field index, a member pointer, or
/// a path<...>.
template <class T, auto... Keys>
constexpr auto walk_path_of(path_t<Keys...>) {
    return walk_path<T, Keys...>();
}
template <class T, auto Key>
constexpr auto walk_key() {
    // remove_cvref: nvcc's host pass gives a class-type template argument's decltype as a
    // reference (const path_t<...>&), where g++ and clang give const path_t<...>.
    if constexpr (std::is_class_v<std::remove_cvref_t<decltype(Key)>>)
        return walk_path_of<T>(Key);
    else
        return walk_path<T, Key>();
}
template <class T, auto Key>
using key_leaves = decltype(walk_key<T, Key>());

/// The leaves the keys name, in the keys' order, each key's leaves in declaration order;
/// a leaf named twice is refused (it would be one value under two names).
template <class T, auto... Keys>
constexpr auto leaves_of_keys() {
    constexpr std::size_t n = (std::size_t{0} + ... + key_leaves<T, Keys>::count);
    std::array<std::size_t, n> leaves{};
    std::size_t k = 0;
    (([&] {
         for (std::size_t l = 0; l < key_leaves<T, Keys>::count; ++l)
             leaves[k++] = key_leaves<T, Keys>::first + l;
     }()),
     ...);
    return leaves;
}
template <class T, auto... Keys>
constexpr bool keys_distinct() {
    constexpr auto leaves = leaves_of_keys<T, Keys...>();
    for (std::size_t a = 0; a < leaves.size(); ++a)
        for (std::size_t b = a + 1; b < leaves.size(); ++b)
            if (leaves[a] == leaves[b]) return false;
    return true;
}

} // namespace detail
} // namespace layout
