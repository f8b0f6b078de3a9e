/// \file detail/bit_field.hpp
/// Whether a plain struct has a bit-field member, found without binding a reference to any
/// member: Boost.PFR binds references, which a bit-field refuses with a hard error, so this must
/// answer first (reflect.hpp's structure_error turns the answer into a layout: message).
///
/// No portable C++20 expression tells a bit-field that packs no tighter than its type
/// (int a : 32) from a plain member, so three signs are combined, each from the member types
/// that aggregate initialization of T deduces:
///  - size: bit-fields that share storage make T smaller than its member types laid out;
///  - constant bit_cast: clang and nvcc's front end cannot bit_cast a type with a bit-field in a
///    constant expression, so a T that cannot, while each of its member types can, has one;
///  - g++ 12 and later: __is_layout_compatible tells a bit-field from a plain member; T is
///    compared with a closure type that captures T's member types as plain members. A member
///    moved by alignas also makes them differ; where every member type can be bit_cast, T is
///    built with one member's bytes set at a time, and the first member not where the ABI rule
///    puts it but where an alignas would tells a move from a bit-field.
/// Not seen: under clang and nvcc (first two signs only), a bit-field as wide as its type in a
/// struct that has a pointer member (no constant bit_cast then) or is larger than 4 KiB; under
/// g++, one in a struct with an alignas that changes its size or alignment (the third sign
/// does not run there), with a pointer member, or after an alignas move. Boost.PFR's own
/// error follows then, never a wrong mapping.
#pragma once

#include <boost/pfr/core.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::detail {

/// Past this size, constant bit_casts cost the compiler more than the answer is worth.
inline constexpr std::size_t bit_cast_probe_max_size = 4096;

template <class U, int = ((void)std::bit_cast<U>(std::array<unsigned char, sizeof(U)>{}), 0)>
constexpr bool constant_bit_cast(int) {
    return true;
}
template <class U>
constexpr bool constant_bit_cast(long) {
    return false;
}

/// True when U can be built by std::bit_cast in a constant expression (no pointer, no bit-field).
template <class U>
constexpr bool bit_castable() {
    if constexpr (sizeof(U) > bit_cast_probe_max_size)
        return false;
    else
        return constant_bit_cast<U>(0);
}

constexpr std::size_t align_up(std::size_t n, std::size_t alignment) {
    return (n + alignment - 1) / alignment * alignment;
}

/// What the declared member types of a struct say about it.
struct declared_members {
    std::size_t size;      // of a struct with these member types laid out by the ABI rule
    std::size_t alignment; // of that struct
    bool bit_castable;     // every member type is
};

/// Initializes one field of T and records the type it converts to: the member's declared type.
struct field_probe {
    std::size_t* size;
    std::size_t* alignment;
    bool* castable;
    template <class U>
    constexpr operator U() const noexcept {
        *size = sizeof(U);
        *alignment = alignof(U);
        *castable = bit_castable<U>();
        return U{};
    }
};

template <class T, std::size_t... I>
constexpr declared_members declared_members_of(std::index_sequence<I...>) {
    std::size_t sizes[] = {I..., 0}, alignments[] = {I..., 1};
    bool castable[] = {(static_cast<void>(I), false)..., true};
    T probed{field_probe{&sizes[I], &alignments[I], &castable[I]}...};
    (void)probed;
    declared_members d{0, 1, true};
    for (std::size_t i = 0; i < sizeof...(I); ++i) {
        d.size = align_up(d.size, alignments[i]) + sizes[i];
        d.alignment = alignments[i] > d.alignment ? alignments[i] : d.alignment;
        d.bit_castable = d.bit_castable && castable[i];
    }
    d.size = align_up(d.size, d.alignment);
    return d;
}

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && __GNUC__ >= 12
// The member types are carried out of aggregate initialization by a friend function that a
// conversion to each member's type defines (the "loophole" Boost.PFR also uses): the only way
// to name the type of a member that has no name here and no address.
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wnon-template-friend"
template <class T, std::size_t I>
struct member_tag {
    friend constexpr auto member_type_of(member_tag);
};
#  pragma GCC diagnostic pop

template <class T, std::size_t I, class U>
struct record_member_type {
    friend constexpr auto member_type_of(member_tag<T, I>) { return std::type_identity<U>{}; }
};

template <class T, std::size_t I>
struct member_type_probe {
    template <class U, std::size_t = sizeof(record_member_type<T, I, U>)>
    constexpr operator U() const noexcept;
};

/// A closure type whose data members are plain members of the types M..., in order.
template <class... M>
constexpr auto plain_members(M... m) {
    return [... m = m] {};
}

template <class T, std::size_t... I>
constexpr bool layout_compatible_with_plain_members(std::index_sequence<I...>) {
    constexpr std::size_t recorded = sizeof(T{member_type_probe<T, I>{}...});
    static_assert(recorded == sizeof(T));
    using plain = decltype(plain_members(
        std::declval<typename decltype(member_type_of(member_tag<T, I>{}))::type>()...));
    return __is_layout_compatible(T, plain);
}

/// A value of U whose bytes are all 1; a bit-field keeps its low bits only.
template <class U>
constexpr U ones() {
    std::array<unsigned char, sizeof(U)> bytes{};
    bytes.fill(1);
    return std::bit_cast<U>(bytes);
}

/// Converts to the type of field number `field`: ones() for field I, zero for the others.
template <std::size_t I>
struct mark_field {
    std::size_t field;
    template <class U>
    constexpr operator U() const noexcept {
        return field == I ? ones<U>() : U{};
    }
};

template <class T, std::size_t I, std::size_t... J>
constexpr auto marked_bytes(std::index_sequence<J...>) {
    return std::bit_cast<std::array<unsigned char, sizeof(T)>>(T{mark_field<I>{J}...});
}

/// True when byte K of T is 1 with field I marked. A padding byte comes out of a constant
/// bit_cast indeterminate, and reading it is no constant: substitution fails, false.
template <class T, std::size_t I, std::size_t K,
          bool Marked =
              marked_bytes<T, I>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{})[K] == 1>
constexpr bool marked_at(int) {
    return Marked;
}
template <class T, std::size_t I, std::size_t K>
constexpr bool marked_at(long) {
    return false;
}

/// Where the ABI rule puts field I of T, from the declared member types: {begin, end of field I-1}.
template <class T, std::size_t I, std::size_t... J>
constexpr std::array<std::size_t, 2> abi_position(std::index_sequence<J...>) {
    std::size_t sizes[] = {J..., 0}, alignments[] = {J..., 1};
    bool castable[] = {(static_cast<void>(J), false)..., true};
    T probed{field_probe{&sizes[J], &alignments[J], &castable[J]}...};
    (void)probed;
    std::size_t end = 0;
    for (std::size_t j = 0; j < I; ++j) end = align_up(end, alignments[j]) + sizes[j];
    return {align_up(end, alignments[I]), end};
}

/// True when field I of T, marked, starts where an alignas(A) for some A up to alignof(T) would
/// have moved it: the next multiple of A from End, the end of field I-1, if that is past Abi.
template <class T, std::size_t I, std::size_t End, std::size_t Abi, std::size_t A = 2>
constexpr bool moved_by_alignas() {
    constexpr std::size_t at = align_up(End, A);
    if constexpr (A > alignof(T) || at >= sizeof(T))
        return false;
    else if constexpr (at > Abi && marked_at<T, I, at>(0))
        return true;
    else
        return moved_by_alignas<T, I, End, Abi, 2 * A>();
}

/// T is not layout-compatible with its member types laid out plainly, yet as large and as
/// aligned: a bit-field, or a member that an alignas moved. Field by field, each marked in turn:
/// the first one not where the ABI rule puts it, but where an alignas would, was moved; all
/// where the rule puts them (a bit-field as wide as its type) or one elsewhere is a bit-field.
template <class T, std::size_t I = 0>
constexpr bool bit_field_rather_than_alignas() {
    constexpr auto seq = std::make_index_sequence<boost::pfr::tuple_size_v<T>>{};
    if constexpr (I == boost::pfr::tuple_size_v<T>) {
        return true;
    } else {
        constexpr auto abi = abi_position<T, I>(seq);
        if constexpr (marked_at<T, I, abi[0]>(0))
            return bit_field_rather_than_alignas<T, I + 1>();
        else
            return !moved_by_alignas<T, I, abi[1], abi[0]>();
    }
}

template <class T, bool MembersBitCastable>
constexpr bool layout_compatible_sign() {
    if constexpr (layout_compatible_with_plain_members<T>(
                      std::make_index_sequence<boost::pfr::tuple_size_v<T>>{}))
        return false;
    else if constexpr (MembersBitCastable)
        return bit_field_rather_than_alignas<T>();
    else
        return false; // a pointer member: T's bytes cannot tell the two apart
}
#else
template <class T, bool MembersBitCastable>
constexpr bool layout_compatible_sign() {
    return false;
}
#endif

template <class T, declared_members D = declared_members_of<T>(
                       std::make_index_sequence<boost::pfr::tuple_size_v<T>>{})>
constexpr bool bit_field_signs(int) {
    if constexpr (sizeof(T) < D.size) {
        return true;
    } else if constexpr (D.bit_castable && sizeof(T) <= bit_cast_probe_max_size &&
                         !bit_castable<T>()) {
        return true;
    } else if constexpr (sizeof(T) == D.size && alignof(T) == D.alignment) {
        // Otherwise an alignas (on a member or on T) makes T differ from the plain members.
        return layout_compatible_sign<T, D.bit_castable>();
    } else {
        return false;
    }
}
/// A member type that cannot be built in a constant expression makes the default template
/// argument above fail to substitute: "cannot tell" rather than an error.
template <class T>
constexpr bool bit_field_signs(long) {
    return false;
}

/// True when the aggregate T (checked for references, C arrays and odd class members before)
/// has a bit-field member of its own; member structs are asked on their own.
template <class T>
constexpr bool has_bit_field() {
    return bit_field_signs<T>(0);
}

} // namespace layout::detail
