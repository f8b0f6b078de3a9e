/// \file names.hpp
/// The names of a plain struct's fields and leaves, at compile time, with no macro and no tag.
///
///     struct Vec3 { float x, y, z; };
///     struct Body { Vec3 pos; std::array<float, 3> vel; int id; };
///     layout::field_name<&Body::id>          == "id"
///     layout::field_name<&Vec3::y>           == "y"
///     layout::leaf_names<Body>()             == {"pos.x", "pos.y", "pos.z",
///                                                "vel[0]", "vel[1]", "vel[2]", "id"}
///     layout::leaf_name_v<Body, 4>           == "vel[1]"
///
/// How: a pointer to a member of an object that is declared but never defined is a constant, so
/// it can be a template argument; the compiler spells that argument, member name last, in the
/// __PRETTY_FUNCTION__ of the template it instantiates, and the name is cut from there while
/// compiling. g++ 12 (and nvcc 13, front end and host pass) spell it
/// `(& object<T>.holder<T>::value.T::id)`, clang 14 `{&object.value.id}`. Nothing of this is in
/// the program: the names are constant arrays of chars.
///
/// Not in view.hpp or vector.hpp: only translation units that ask for names pay for them.
#pragma once

#include "config.hpp"
#include "reflect.hpp"

#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace layout {
namespace detail {

/// The object whose members are named: declared, never defined, never read. Only addresses of
/// its members are formed, in constant expressions.
template <class T>
struct name_probe_holder {
    T value;
};

#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wundefined-var-template"
#  pragma clang diagnostic ignored "-Wundefined-internal"
#endif
template <class T>
extern const name_probe_holder<T> name_probe_object;

/// A member's address wrapped in a class: clang 14 takes no pointer to a subobject as a template
/// argument by itself, but does inside a class-type argument.
template <class M>
struct name_probe {
    const M* member;
};

/// The signature of a function instantiated on Probe: it ends with the member's name.
template <auto Probe>
constexpr auto probe_signature() {
#if defined(__GNUC__) || defined(__clang__)
    return std::string_view(__PRETTY_FUNCTION__);
#else
    return std::string_view{};
#endif
}

constexpr bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || static_cast<unsigned char>(c) >= 0x80; // UTF-8 identifiers
}

/// The last identifier before the closing brackets that end the signature:
/// "...value.ns::Body::id)}]" and "...{&name_probe_object.value.id}]" both give "id".
constexpr std::string_view member_of_signature(std::string_view s) {
    std::size_t end = s.size();
    while (end > 0 &&
           (s[end - 1] == ']' || s[end - 1] == '}' || s[end - 1] == ')' || s[end - 1] == ' '))
        --end;
    std::size_t begin = end;
    while (begin > 0 && identifier_char(s[begin - 1])) --begin;
    if (begin == end || (s[begin] >= '0' && s[begin] <= '9')) return {};
    // The name follows the member access ('.' or '::'); anything else is an unknown spelling.
    if (begin == 0 || (s[begin - 1] != '.' && s[begin - 1] != ':')) return {};
    return s.substr(begin, end - begin);
}

/// nvcc's front end (EDG) spells an address reached through structured bindings (as Boost.PFR
/// reaches fields) inside a template differently: `(&name_probe_object<Vec3>.value.x.y.z) -2`,
/// every field of the struct in order after "value.", and an offset. Field I is the I-th name
/// there, when there are exactly Count of them; the host pass (g++) spells it as above.
constexpr std::string_view nth_of_field_list(std::string_view s, std::size_t i, std::size_t count) {
    constexpr std::string_view object = "name_probe_object<";
    constexpr std::string_view marker = ">.value.";
    const std::size_t probe = s.rfind(object);
    if (probe == std::string_view::npos) return {};
    const std::size_t at = s.find(marker, probe);
    if (at == std::string_view::npos) return {};
    std::size_t pos = at + marker.size();
    std::string_view found{};
    std::size_t n = 0;
    while (true) {
        std::size_t end = pos;
        while (end < s.size() && identifier_char(s[end])) ++end;
        if (end == pos) return {};
        if (n == i) found = s.substr(pos, end - pos);
        ++n;
        if (end >= s.size() || s[end] != '.') break;
        pos = end + 1;
    }
    return n == count ? found : std::string_view{};
}

/// The name of field I of a struct of Count fields, from the signature of a probe of it.
constexpr std::string_view field_of_signature(std::string_view s, std::size_t i,
                                              std::size_t count) {
    std::string_view name = member_of_signature(s);
    return name.empty() ? nth_of_field_list(s, i, count) : name;
}

/// A name copied into an array of its own, so that the signature itself is not kept.
template <std::size_t N>
struct name_chars {
    char chars[N + 1]{};
    constexpr std::string_view view() const { return {chars, N}; }
};
template <auto Probe, std::size_t I, std::size_t Count>
constexpr auto stored_field_name() {
    constexpr std::string_view name = field_of_signature(probe_signature<Probe>(), I, Count);
    name_chars<name.size()> out;
    for (std::size_t k = 0; k != name.size(); ++k) out.chars[k] = name[k];
    return out;
}

/// The address of field I of the probe object, as a constant (through a variable: nvcc's front
/// end takes no &get<I>(...) written in a template argument).
template <class T, std::size_t I>
inline constexpr const field_t<T, I>* field_probe_address =
    &boost::pfr::get<I>(name_probe_object<T>.value);

template <class T, std::size_t I>
inline constexpr auto field_name_storage =
    stored_field_name<name_probe<field_t<T, I>>{field_probe_address<T, I>}, I, field_count<T>()>();

/// Field I of aggregate T ("" where the compiler's spelling could not be read).
template <class T, std::size_t I>
inline constexpr std::string_view field_name_at = field_name_storage<T, I>.view();

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

// ---- Leaf paths -----------------------------------------------------------------------------

/// One step of a leaf's path: a field name, or an index into a std::array.
struct path_step {
    std::string_view name;
    std::size_t index = 0;
};

/// Steps from T down to its deepest leaf.
template <class T>
constexpr std::size_t path_depth() {
    if constexpr (is_leaf_v<T>) {
        return 0;
    } else if constexpr (is_std_array_v<T>) {
        return 1 + path_depth<typename T::value_type>();
    } else {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            const std::size_t depths[] = {path_depth<field_t<T, I>>()...};
            std::size_t deepest = 0;
            for (std::size_t d : depths) deepest = d > deepest ? d : deepest;
            return 1 + deepest;
        }(std::make_index_sequence<field_count<T>()>{});
    }
}

/// Writes "pos.y", "vel[2]", "pair[1].x" for each leaf in turn into chars (or, with chars null,
/// only counts them), recording where each starts.
struct name_writer {
    char* chars = nullptr;
    std::size_t* starts = nullptr;
    std::size_t size = 0;
    std::size_t leaf = 0;

    constexpr void put(char c) {
        if (chars) chars[size] = c;
        ++size;
    }
    constexpr void put(std::string_view s) {
        for (char c : s) put(c);
    }
    constexpr void put_index(std::size_t k) {
        char digits[20]{};
        std::size_t n = 0;
        do {
            digits[n++] = static_cast<char>('0' + k % 10);
            k /= 10;
        } while (k != 0);
        put('[');
        while (n > 0) put(digits[--n]);
        put(']');
    }
    constexpr void leaf_of(const path_step* steps, std::size_t depth) {
        if (starts) starts[leaf] = size;
        ++leaf;
        for (std::size_t d = 0; d < depth; ++d) {
            if (steps[d].name.empty()) {
                put_index(steps[d].index);
            } else {
                if (d > 0) put('.');
                put(steps[d].name);
            }
        }
    }
};

template <class T>
constexpr void write_leaf_names(name_writer& w, path_step* steps, std::size_t depth) {
    if constexpr (is_leaf_v<T>) {
        w.leaf_of(steps, depth);
    } else if constexpr (is_std_array_v<T>) {
        for (std::size_t k = 0; k < std::tuple_size_v<T>; ++k) {
            steps[depth] = {{}, k};
            write_leaf_names<typename T::value_type>(w, steps, depth + 1);
        }
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((steps[depth] = {field_name_at<T, I>, 0},
              write_leaf_names<field_t<T, I>>(w, steps, depth + 1)),
             ...);
        }(std::make_index_sequence<field_count<T>()>{});
    }
}

template <class T>
constexpr std::size_t leaf_names_size() {
    path_step steps[path_depth<T>() + 1]{};
    name_writer w;
    write_leaf_names<T>(w, steps, 0);
    return w.size;
}

/// Every leaf name of T, end to end, and where each starts (starts[leaf_count]: the end).
template <class T>
struct leaf_name_table {
    static constexpr std::size_t size = leaf_names_size<T>();
    std::array<char, size + 1> chars{};
    std::array<std::size_t, leaf_count<T>() + 1> starts{};
};
template <class T>
constexpr leaf_name_table<T> make_leaf_name_table() {
    leaf_name_table<T> table;
    path_step steps[path_depth<T>() + 1]{};
    name_writer w{table.chars.data(), table.starts.data()};
    write_leaf_names<T>(w, steps, 0);
    table.starts[leaf_count<T>()] = w.size;
    return table;
}
template <class T>
inline constexpr leaf_name_table<T> leaf_name_storage = make_leaf_name_table<T>();

/// True when every field name of T, at any depth, could be read.
template <class T>
constexpr bool all_fields_named() {
    if constexpr (is_leaf_v<T>) {
        return true;
    } else if constexpr (is_std_array_v<T>) {
        return all_fields_named<typename T::value_type>();
    } else {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return ((!field_name_at<T, I>.empty() && all_fields_named<field_t<T, I>>()) && ...);
        }(std::make_index_sequence<field_count<T>()>{});
    }
}

template <class T>
constexpr std::array<std::string_view, leaf_count<T>()> checked_leaf_names() {
    std::array<std::string_view, leaf_count<T>()> names{};
    if constexpr (reflectable<T>) {
        static_assert(all_fields_named<T>(),
                      "layout: leaf_names: this compiler spells __PRETTY_FUNCTION__ in a way "
                      "layout cannot read field names from (g++, clang and nvcc can)");
        constexpr const leaf_name_table<T>& table = leaf_name_storage<T>;
        for (std::size_t l = 0; l < names.size(); ++l)
            names[l] = std::string_view(table.chars.data() + table.starts[l],
                                        table.starts[l + 1] - table.starts[l]);
    }
    return names;
}

} // namespace detail

/// The name of the data member a member pointer names: field_name<&Particle::vx> == "vx".
/// Works for any class whose member pointer can be formed; a scalar member's name, or a nested
/// struct's or std::array's (field_name<&Body::pos> == "pos").
template <auto MemberPtr>
inline constexpr std::string_view field_name = [] {
    if constexpr (!std::is_member_object_pointer_v<decltype(MemberPtr)>) {
        static_assert(
            std::is_member_object_pointer_v<decltype(MemberPtr)>,
            "layout: field_name<p> takes a pointer to a data member, such as &Particle::x");
        return std::string_view{};
    } else if constexpr (MemberPtr == nullptr) {
        static_assert(MemberPtr != nullptr, "layout: field_name<p>: p is a null member pointer");
        return std::string_view{};
    } else {
        using C = typename detail::member_pointer_traits<MemberPtr>::class_type;
        static_assert(assert_reflectable<C>());
        if constexpr (!reflectable<C>) {
            return std::string_view{};
        } else {
            constexpr std::string_view name = detail::field_name_at<C, field_index_v<MemberPtr>>;
            static_assert(!name.empty(),
                          "layout: field_name: this compiler spells __PRETTY_FUNCTION__ in a way "
                          "layout cannot read field names from (g++, clang and nvcc can)");
            return name;
        }
    }
}();

/// The path of every leaf of T, in leaf order (the order of SoA columns): "x", "pos.y",
/// "vel[2]", "pair[1].x". A scalar T has one leaf, named "". T must be reflectable (reflect.hpp
/// says what that asks, and why not otherwise).
template <class T>
constexpr std::array<std::string_view, leaf_count_v<T>> leaf_names() {
    static_assert(assert_reflectable<std::remove_const_t<T>>());
    return detail::checked_leaf_names<std::remove_const_t<T>>();
}

/// Leaf L's path: leaf_name_v<Body, 1> == "pos.y".
template <class T, std::size_t L>
inline constexpr std::string_view leaf_name_v = [] {
    static_assert(L < leaf_count_v<T>, "layout: leaf_name_v<T, L>: L is past the last leaf");
    if constexpr (L < leaf_count_v<T>)
        return leaf_names<T>()[L];
    else
        return std::string_view{};
}();

} // namespace layout
