/// \file detail/algorithm_checks.hpp
/// The run-time argument checks of the algorithms, host and device alike: sizes, overlapping
/// views, indices in range (with LAYOUT_CHECK_BOUNDS), an Index type wide enough, and the one
/// helper that gather, scatter and permute share, check_indexed_move.
///
///     "layout::gather: size mismatch: 5 indices but the destination has 4 elements"
///     "layout::scatter: source and destination overlap; they must be distinct memory ..."
///     "layout: gather index out of range at position 3 (index 12, size 10)"
#pragma once

#include "../config.hpp"
#include "../copy.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../view.hpp"
#include "algorithm_arguments.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace layout::detail {

/// "layout::gather: size mismatch: 5 indices but the destination has 4 elements".
[[noreturn]] inline void throw_size_mismatch(const char* function, std::size_t expected,
                                             const char* expected_what, std::size_t actual,
                                             const char* actual_what) {
    throw std::length_error(std::string(function) + ": size mismatch: " + std::to_string(expected) +
                            " " + expected_what + " but " + actual_what + " has " +
                            std::to_string(actual) + " elements");
}

/// index < size, for signed and unsigned index types alike (negative is out of range).
template <class I>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr bool index_in_range(I index,
                                                                    std::size_t size) noexcept {
    if constexpr (std::is_signed_v<I>)
        return index >= 0 && static_cast<std::make_unsigned_t<I>>(index) < size;
    else
        return static_cast<unsigned long long>(index) < static_cast<unsigned long long>(size);
}

inline void check_no_overlap(const char* function, bool overlap) {
    if (overlap)
        throw std::invalid_argument(std::string(function) +
                                    ": source and destination overlap; they must be distinct "
                                    "memory (use layout::permute_in_place to reorder in place)");
}

/// Throws std::invalid_argument if the keys share bytes with the elements of v without being
/// exactly one of v's columns (key i is leaf l of element i, for one leaf l of the keys' size);
/// returns whether they are that column. Sorting by a column of the elements themselves
/// (keys = particles.column<&P::cell>().span()) is supported: the algorithms then compute the
/// permutation before anything moves, and reordering the elements sorts the keys with them.
/// Any other overlap would be overwritten halfway. Pointer arithmetic only (device memory too).
///
///     keys_are_column_of("layout::sort_by_key", p.view(), p.column<&P::cell>().span())  // true
///     keys_are_column_of("layout::sort_by_key", p.view(), separate_keys)              // false
template <class V, class K>
bool keys_are_column_of(const char* function, const V& v, std::span<K> keys) {
    using T = typename V::value_type;
    const std::size_t n = keys.size();
    if (n == 0 || n != v.size()) return false;
    const auto first = reinterpret_cast<std::uintptr_t>(keys.data());
    const byte_range k{first, first + n * sizeof(K)};
    bool overlap = false;
    for (const byte_range& r : byte_ranges(v)) overlap = overlap || ranges_overlap(k, r);
    if (!overlap) return false;
    // Leaf l of consecutive elements is at least sizeof(K) apart in every layout; first and
    // last exactly (n - 1) * sizeof(K) apart means every step is sizeof(K): the keys' span.
    for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
        if (leaf_table<T>[l].size == sizeof(K) && leaf_address(v, 0, l) == k.first &&
            leaf_address(v, n - 1, l) == k.first + (n - 1) * sizeof(K))
            return true;
    throw std::invalid_argument(std::string(function) +
                                ": the keys overlap the elements without being one of their "
                                "columns; pass keys in memory of their own, or a whole column "
                                "(x.column<&T::key>().span())");
}

/// Throws std::length_error when num_bins + 1 offsets cannot be held (num_bins = SIZE_MAX
/// would wrap to zero offsets).
inline void check_bin_count(const char* function, std::size_t num_bins, std::size_t max_offsets) {
    if (num_bins >= max_offsets)
        throw std::length_error(std::string(function) + ": " + std::to_string(num_bins) +
                                " bins need " + std::to_string(num_bins) +
                                " + 1 offsets, more than can be allocated (" +
                                std::to_string(max_offsets) + ")");
}

/// With LAYOUT_CHECK_BOUNDS: stops at the first index not below size, naming its position.
template <class I>
void validate_indices(const char* what, std::span<const I> indices, std::size_t size) {
#if LAYOUT_CHECK_BOUNDS
    for (std::size_t i = 0; i < indices.size(); ++i)
        if (!index_in_range(indices[i], size)) {
            bool negative = false;
            if constexpr (std::is_signed_v<I>) negative = indices[i] < 0;
            char message[128];
            std::snprintf(message, sizeof message, "%s out of range at position %zu%s", what, i,
                          negative ? " (negative)" : "");
            fail(message, static_cast<unsigned long long>(indices[i]), size);
        }
#else
    (void)what, (void)indices, (void)size;
#endif
}

/// With LAYOUT_CHECK_BOUNDS: stops unless indices is a permutation of [0, size): all in range,
/// none twice (the position reported is the first one whose index appeared before).
template <class I>
void validate_permutation(const char* what, std::span<const I> perm) {
#if LAYOUT_CHECK_BOUNDS
    validate_indices(what, perm, perm.size());
    std::vector<bool> seen(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        const auto p = static_cast<std::size_t>(perm[i]);
        if (seen[p]) {
            char message[128];
            std::snprintf(message, sizeof message,
                          "%s is not a permutation: the index at position %zu appeared before",
                          what, i);
            fail(message, p, perm.size());
        }
        seen[p] = true;
    }
#else
    (void)what, (void)perm;
#endif
}

/// Throws unless every index 0..n-1 (and, for bin offsets, n itself) fits in Index.
template <class Index>
void check_index_type(const char* function, std::size_t largest) {
    static_assert(std::is_integral_v<Index> && !std::is_same_v<Index, bool>,
                  "layout: the Index type must be an integer type");
    if (static_cast<unsigned long long>(largest) >
        static_cast<unsigned long long>(std::numeric_limits<Index>::max()))
        throw std::length_error(std::string(function) + ": " + std::to_string(largest) +
                                " does not fit in the Index type; ask for a wider one, e.g. " +
                                "<std::uint64_t>");
}

// ---- the checks gather, scatter and permute share ---------------------------------------------

/// Which views of a gather, scatter or permute hold one element per index.
enum class per_index {
    destination, // gather
    source,      // scatter
    both         // permute
};

/// The views an indexed move works on: a read-only view of the source, and the destination.
template <class SrcView, class DstView>
struct move_views {
    SrcView src;
    DstView dst;
};

/// The argument checks of gather, scatter and permute, on the host and on the device, made
/// before anything is written: the element types agree and dst is writable (at compile time);
/// the views that hold one element per index have count elements, else std::length_error;
/// src and dst do not overlap, else std::invalid_argument. Returns the views to work on.
///
///     auto [s, d] = check_indexed_move("layout::gather", src, dst, 5, per_index::destination);
///     // with dst.size() == 4, throws std::length_error:
///     // "layout::gather: size mismatch: 5 indices but the destination has 4 elements"
template <class Src, class Dst>
auto check_indexed_move(const char* function, Src& src, Dst& dst, std::size_t count,
                        per_index sized) {
    const auto s = as_view(src);
    const auto d = as_view(dst);
    check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    using const_source = view<const T, typename decltype(s)::layout_type>;
    if (sized != per_index::destination && count != s.size())
        throw_size_mismatch(function, count, "indices", s.size(), "the source");
    if (sized != per_index::source && count != d.size())
        throw_size_mismatch(function, count, "indices", d.size(), "the destination");
    check_no_overlap(function, views_overlap(s, d));
    return move_views<const_source, decltype(d)>{const_source(s), d};
}

} // namespace layout::detail
