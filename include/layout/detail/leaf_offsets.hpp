/// \file detail/leaf_offsets.hpp
/// The byte offset inside T of every leaf, as the compiler laid T out: alignas on members and
/// on nested structs included, with no offsetof (which needs member names).
///
///     struct S { float* p; char c; alignas(4) char d; };   // leaf_offsets<S> == {0, 8, 12}
///
/// g++ and clang answer for every struct (probed_leaf_offsets). nvcc's front end, which also
/// compiles the device code, cannot: it reads byte offsets from T's bytes where leaves allow a
/// constant bit_cast, else takes the ABI rule (fallback_leaf_offsets). reflect.hpp refuses a
/// struct whose fallback offsets are not the probed ones, which nvcc's host pass (g++) checks,
/// so the front end and the host compiler never use two different tables.
#pragma once

#include "leaves.hpp"

#include <boost/pfr/core.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::detail {

template <class T>
struct leaf_offsets_found {
    std::array<std::size_t, leaf_count<T>()> at;
    bool found;
};

/// One T's storage seen two ways. Only bytes is ever initialized; of object, only the addresses
/// of its fields are taken, never a value.
template <class T>
union storage_probe {
    unsigned char bytes[sizeof(T)];
    T object;
};

/// Offsets of T's direct fields: the address of each field of a T compared, in constant
/// evaluation, with the addresses of the bytes that share its storage. g++ and clang compare
/// such pointers by where they point; nvcc's front end calls pointers into two different
/// members of a union unequal, and finds nothing (found == false).
template <class T>
constexpr auto probed_field_offsets() {
    constexpr std::size_t n = field_count<T>();
    struct {
        std::array<std::size_t, n> at;
        bool found;
    } result{{}, true};
    storage_probe<T> storage{};
    std::size_t end = 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                using F = field_t<T, I>;
                const void* field = &boost::pfr::get<I>(storage.object);
                // An alignas only ever moves a field further than the ABI rule puts it.
                std::size_t at = align_up(end, alignof(F));
                while (at < sizeof(T) && field != static_cast<const void*>(storage.bytes + at))
                    at += alignof(F);
                result.found = result.found && at < sizeof(T);
                result.at[I] = at;
                end = at + sizeof(F);
            }(),
            ...);
    }(std::make_index_sequence<n>{});
    return result;
}

/// Leaf offsets of T from the probed offsets of its fields, and of theirs in turn.
template <class T>
constexpr leaf_offsets_found<T> probed_leaf_offsets() {
    leaf_offsets_found<T> result{{}, true};
    if constexpr (is_std_array_v<T>) {
        using E = typename T::value_type;
        constexpr auto inner = probed_leaf_offsets<E>();
        result.found = inner.found;
        for (std::size_t k = 0; k < std::tuple_size_v<T>; ++k)
            for (std::size_t l = 0; l < inner.at.size(); ++l)
                result.at[k * inner.at.size() + l] = k * sizeof(E) + inner.at[l];
    } else if constexpr (!is_leaf_v<T>) {
        constexpr auto fields = probed_field_offsets<T>();
        result.found = fields.found;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (
                [&] {
                    constexpr auto inner = probed_leaf_offsets<field_t<T, I>>();
                    result.found = result.found && inner.found;
                    for (std::size_t l = 0; l < inner.at.size(); ++l)
                        result.at[first_leaf<T>[I] + l] = fields.at[I] + inner.at[l];
                }(),
                ...);
        }(std::make_index_sequence<field_count<T>()>{});
    }
    return result;
}

// ---- nvcc's front end: bytes where a constant bit_cast can build T, else the ABI rule ------

/// Leaves whose bytes std::bit_cast can produce and read in a constant expression (not
/// pointers) and for which any bytes of 0 and 1 are a value (not x87's long double).
template <class T>
inline constexpr bool byte_probe_leaf_v =
    std::is_enum_v<T> || (std::is_arithmetic_v<T> && !std::is_same_v<T, long double>);

/// Past this size the probe's byte loops would approach clang's constexpr step limit (2^20).
inline constexpr std::size_t byte_probe_max_size = 4096;

template <class T>
constexpr bool byte_probe_type() {
    if constexpr (sizeof(T) > byte_probe_max_size)
        return false;
    else
        return []<std::size_t... L>(std::index_sequence<L...>) {
            // A list rather than a fold, which clang limits to 256 operands.
            const bool probe[] = {
                byte_probe_leaf_v<typename decltype(leaf_type_of<T, L>())::type>...};
            for (bool ok : probe)
                if (!ok) return false;
            return true;
        }(std::make_index_sequence<leaf_count<T>()>{});
}

template <class U>
constexpr unsigned char first_byte(const U& value) {
    return std::bit_cast<std::array<unsigned char, sizeof(U)>>(value)[0];
}

template <class T>
constexpr std::array<std::size_t, leaf_count<T>()> fallback_leaf_offsets();

/// Offsets by the ABI rule (each member at the next multiple of its type's alignment): wrong
/// where a member has an alignas that moves it, which only the probe sees.
template <class T>
constexpr auto abi_leaf_offsets() {
    std::array<std::size_t, leaf_count<T>()> offsets{};
    if constexpr (is_std_array_v<T>) {
        using E = typename T::value_type;
        constexpr auto inner = fallback_leaf_offsets<E>();
        for (std::size_t k = 0; k < std::tuple_size_v<T>; ++k)
            for (std::size_t l = 0; l < inner.size(); ++l)
                offsets[k * inner.size() + l] = k * sizeof(E) + inner[l];
    } else {
        std::size_t end = 0;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (
                [&] {
                    using F = field_t<T, I>;
                    const std::size_t at = align_up(end, alignof(F));
                    constexpr auto inner = fallback_leaf_offsets<F>();
                    for (std::size_t l = 0; l < inner.size(); ++l)
                        offsets[first_leaf<T>[I] + l] = at + inner[l];
                    end = at + sizeof(F);
                }(),
                ...);
        }(std::make_index_sequence<field_count<T>()>{});
    }
    return offsets;
}

/// Where the leaves allow it, offsets read from T's bytes during constant evaluation: bit_cast
/// bytes whose value is bit b of their own offset into a T, read the first byte of each leaf
/// back, and repeat for each bit b. Else the ABI rule, member structs read the same way.
template <class T>
constexpr std::array<std::size_t, leaf_count<T>()> fallback_leaf_offsets() {
    if constexpr (is_leaf_v<T>) {
        return {0};
    } else if constexpr (byte_probe_type<T>()) {
        std::array<std::size_t, leaf_count<T>()> offsets{};
        for (std::size_t bit = 0; (std::size_t{1} << bit) < sizeof(T); ++bit) {
            std::array<unsigned char, sizeof(T)> bytes{};
            for (std::size_t i = 0; i < sizeof(T); ++i)
                bytes[i] = static_cast<unsigned char>((i >> bit) & 1);
            const T obj = std::bit_cast<T>(bytes);
            const auto first_bytes = [&]<std::size_t... L>(std::index_sequence<L...>) {
                return std::array<unsigned char, sizeof...(L)>{first_byte(leaf_ref<L>(obj))...};
            }(std::make_index_sequence<leaf_count<T>()>{});
            for (std::size_t l = 0; l < first_bytes.size(); ++l)
                offsets[l] |= std::size_t{first_bytes[l]} << bit;
        }
        return offsets;
    } else {
        return abi_leaf_offsets<T>();
    }
}

/// True when the ABI rule reproduces sizeof and alignof of T and of every member struct that
/// the byte probe does not read: the front end's own check, which sees some alignas moves
/// (those that change a size or an alignment) before the host pass sees all of them.
template <class T>
constexpr bool abi_rule_holds() {
    if constexpr (is_leaf_v<T> || byte_probe_type<T>()) {
        return true;
    } else if constexpr (is_std_array_v<T>) {
        return abi_rule_holds<typename T::value_type>();
    } else {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            std::size_t end = 0, alignment = 1;
            ((end = align_up(end, alignof(field_t<T, I>)) + sizeof(field_t<T, I>),
              alignment = alignof(field_t<T, I>) > alignment ? alignof(field_t<T, I>) : alignment),
             ...);
            return align_up(end, alignment) == sizeof(T) && alignment == alignof(T) &&
                   (abi_rule_holds<field_t<T, I>>() && ...);
        }(std::make_index_sequence<field_count<T>()>{});
    }
}

// ---- The table ----------------------------------------------------------------------------

template <class T>
inline constexpr bool offsets_probed = probed_leaf_offsets<T>().found;

template <class T>
inline constexpr std::array<std::size_t, leaf_count<T>()> leaf_offsets = [] {
    if constexpr (offsets_probed<T>)
        return probed_leaf_offsets<T>().at;
    else
        return fallback_leaf_offsets<T>();
}();

template <class T, std::size_t L>
constexpr std::size_t leaf_offset() {
    return leaf_offsets<T>[L];
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
                  alignof(typename decltype(leaf_type_of<T, L>())::type), leaf_offsets<T>[L]}...};
}(std::make_index_sequence<leaf_count<T>()>{});

} // namespace layout::detail
