/// \file mpi/fields.hpp
/// Which leaves of an element travel, and how they lie on the wire. The plans name the fields
/// with the core's keys, as view.select<...>() does (path.hpp): member pointers, field indices,
/// and layout::path<...> for a nested member; none named, every leaf travels.
///
///     struct Vec3 { float x, y, z; };
///     struct P { Vec3 pos; double mass; std::int32_t id; };     // leaves: x y z mass id
///     plan.migrate(c)                                           // x y z mass id: 24 B per element
///     plan.migrate<&P::pos, &P::id>(c)                          // x y z id:      16 B per element
///     halo.gather<layout::path<&P::pos, &Vec3::x>>(c)           // x:              4 B per element
///     layout::mpi::wire_bytes_v<P, &P::pos, &P::id>             // 16
///
/// On the wire, the elements for one peer are one message: one packed column per travelling
/// leaf, widest alignment first (mass, then x y z id), so every column is naturally aligned
/// without padding; only the message's end is padded to 16 bytes. Bytes per element are exactly
/// the sizes of the travelling leaves: no struct padding, no leaf that does not travel.
///
/// MPI's own spellings of before (layout::mpi::fields, select, path, all_fields,
/// wire_bytes_per_element_v) still compile, with the same meaning and the same wire format; they
/// are deprecated (a compiler warning that names the replacement) and go in the next release.
#pragma once

#include "../config.hpp"
#include "../element_ref.hpp"
#include "../extension.hpp"
#include "../path.hpp"
#include "../reflect.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace layout::mpi {
namespace detail {

/// The travelling leaves as the plans' template arguments name them: the core's keys (a plan's
/// migrate<Keys...> and gather<Keys...> forward here), or every leaf.
template <auto... Keys>
struct keys {};
using every_leaf = keys<>;

/// What the deprecated spellings (below) stand for: a path of keys, a selection of paths.
template <auto... Keys>
struct mpi_path {};
template <class... Paths>
struct mpi_select {};

} // namespace detail

// The deprecated spellings are class templates, not alias templates: clang (14, 15) ignores
// [[deprecated]] on an alias template, and its users would never see the warning. The plans
// reach what each stands for through its member type, never naming the deprecated template.

/// Deprecated: a nested member is layout::path<&P::pos, &Vec3::x>, a key like any other.
template <auto... Keys>
struct [[deprecated("layout::mpi::path is deprecated: name the fields with the core's keys, "
                    "layout::path<...> for a nested member "
                    "(plan.migrate<layout::path<&P::pos, &Vec3::x>>(c))")]] path {
    static_assert(sizeof...(Keys) >= 1, "layout: mpi::path needs at least one key, e.g. "
                                        "path<&Particle::pos>");
    using path_type = detail::mpi_path<Keys...>;
};

/// Deprecated: the plans take the keys themselves (plan.migrate<&P::pos, &P::id>(c)).
template <class... Paths>
struct [[deprecated("layout::mpi::select is deprecated: pass the keys to the plan "
                    "(plan.migrate<&P::pos, layout::path<&P::v, &Vec3::x>>(c))")]] select {
    using selection_type = detail::mpi_select<Paths...>;
};

/// Deprecated: the plans take the keys themselves (halo.gather<&P::pos, &P::id>(c)).
template <auto... Keys>
struct [[deprecated("layout::mpi::fields is deprecated: pass the keys to the plan "
                    "(halo.gather<&P::pos, &P::id>(c))")]] fields {
    using selection_type = detail::keys<Keys...>;
};

/// Deprecated: every leaf travels when no key is named (plan.migrate(c)).
using all_fields [[deprecated("layout::mpi::all_fields is deprecated: name no field "
                              "(plan.migrate(c))")]] = detail::every_leaf;

namespace detail {

using layout::extension::field_t;
using layout::extension::first_leaf;
using layout::extension::is_leaf_v;

/// [first leaf, one past the last leaf) of the member a path of keys names inside T.
template <class T, auto Key, auto... Rest>
constexpr std::pair<std::size_t, std::size_t> path_leaves() {
    static_assert(!is_leaf_v<T>, "layout: mpi::path goes through a scalar member; end the path "
                                 "there");
    constexpr std::size_t field = layout::extension::field_key_index<T, Key>();
    static_assert(field < field_count_v<T>, "layout: mpi::path: field index out of range");
    constexpr std::size_t first = first_leaf<T>[field];
    using F = field_t<T, field>;
    if constexpr (sizeof...(Rest) == 0) {
        return {first, first + leaf_count_v<F>};
    } else {
        constexpr auto inner = path_leaves<F, Rest...>();
        return {first + inner.first, first + inner.second};
    }
}

/// A deprecated layout::mpi::path: what it stands for.
template <class T, class Path>
struct path_range : path_range<T, typename Path::path_type> {};
template <class T, auto... Keys>
struct path_range<T, mpi_path<Keys...>> {
    static constexpr auto value = path_leaves<T, Keys...>();
};

/// travels[l]: whether leaf l of T travels under the selection S (a deprecated spelling: under
/// what it stands for).
template <class T, class S>
struct selection : selection<T, typename S::selection_type> {};

template <class T, auto... Keys>
struct selection<T, keys<Keys...>> {
    static constexpr auto travels = [] {
        std::array<bool, leaf_count_v<T>> t{};
        if constexpr (sizeof...(Keys) == 0) {
            for (auto& b : t) b = true;
        } else {
            // The core's keys, walked as view.select<Keys...>() walks them; a leaf named twice
            // travels once.
            for (const auto& span : {std::pair{layout::detail::key_leaves<T, Keys>::first,
                                               layout::detail::key_leaves<T, Keys>::count}...})
                for (std::size_t l = span.first; l < span.first + span.second; ++l) t[l] = true;
        }
        return t;
    }();
};

template <class T, class... Paths>
struct selection<T, mpi_select<Paths...>> {
    static_assert(sizeof...(Paths) >= 1, "layout: mpi::select<> names no field; name at least "
                                         "one, or none at all (every leaf travels)");
    static constexpr auto travels = [] {
        std::array<bool, leaf_count_v<T>> t{};
        for (const auto& range : {path_range<T, Paths>::value...})
            for (std::size_t l = range.first; l < range.second; ++l) t[l] = true;
        return t;
    }();
};

/// The wire format of T under selection S: the travelling leaves, widest alignment first (and
/// in leaf order among equals), and the bytes of each element before each column.
template <class T, class S>
struct wire_format {
    static constexpr auto& travels = selection<T, S>::travels;
    static constexpr std::size_t count = [] {
        std::size_t n = 0;
        for (bool b : travels) n += b;
        return n;
    }();
    static constexpr auto leaves = [] {
        std::array<std::size_t, count> order{};
        std::size_t k = 0;
        for (std::size_t alignment = 16; alignment >= 1; alignment /= 2)
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
                if (travels[l] && layout::extension::leaf_table<T>[l].alignment == alignment)
                    order[k++] = l;
        return order;
    }();
    static_assert(
        [] {
            for (const auto& leaf : layout::extension::leaf_table<T>)
                if (leaf.alignment > 16) return false;
            return true;
        }(),
        "layout: mpi: a leaf aligned to more than 16 bytes cannot travel");
    /// prefix[k]: bytes per element of the columns before column k; prefix[count]: all of them.
    static constexpr auto prefix = [] {
        std::array<std::size_t, count + 1> p{};
        for (std::size_t k = 0; k < count; ++k)
            p[k + 1] = p[k] + layout::extension::leaf_table<T>[leaves[k]].size;
        return p;
    }();
    static constexpr std::size_t bytes_per_element = prefix[count];

    /// Which leaves travel, for checking that every rank sends the same ones: a hash of T's leaf
    /// sizes and of the selection (FNV-1a), kept to 62 bits so that it and its negation fit.
    static constexpr std::int64_t signature = [] {
        std::uint64_t h = 1469598103934665603ull;
        auto mix = [&h](std::uint64_t v) {
            for (int b = 0; b < 8; ++b) {
                h ^= (v >> (8 * b)) & 0xff;
                h *= 1099511628211ull;
            }
        };
        mix(leaf_count_v<T>);
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            mix(layout::extension::leaf_table<T>[l].size * 2 + (travels[l] ? 1 : 0));
        return static_cast<std::int64_t>(h >> 2);
    }();
};

/// Bytes of a message of n elements: whole columns, the end padded to 16 bytes so that the next
/// message in the same buffer starts aligned for any leaf.
constexpr std::size_t message_bytes(std::size_t bytes_per_element, std::size_t n) {
    return (bytes_per_element * n + 15) / 16 * 16;
}

} // namespace detail

/// Bytes that one element of T puts on the wire when the fields Keys travel (none named: every
/// leaf), as a plan's migrate<Keys...> or gather<Keys...> sends them.
template <class T, auto... Keys>
inline constexpr std::size_t wire_bytes_v =
    detail::wire_format<T, detail::keys<Keys...>>::bytes_per_element;

/// Deprecated: wire_bytes_v<T, Keys...>. The same, with the fields as one of the deprecated
/// spellings (fields<...>, select<...>, all_fields).
template <class T, class S = detail::every_leaf>
[[deprecated("layout::mpi::wire_bytes_per_element_v is deprecated: use "
             "layout::mpi::wire_bytes_v<T, Keys...>")]] inline constexpr std::size_t
    wire_bytes_per_element_v = detail::wire_format<T, S>::bytes_per_element;

} // namespace layout::mpi
