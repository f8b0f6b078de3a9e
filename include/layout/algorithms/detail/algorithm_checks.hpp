/// \file algorithms/detail/algorithm_checks.hpp
/// The run-time argument checks of the algorithms, host and device alike: sizes, overlapping
/// views, indices in range (with LAYOUT_CHECK_BOUNDS), an Index type wide enough, and the one
/// helper that gather, scatter and permute share, check_indexed_move.
///
///     "layout::gather: size mismatch: 5 indices but the destination has 4 elements"
///     "layout::scatter: source and destination overlap; they must be distinct memory ..."
///     "layout::gather: index 12 at position 3 is out of range: the source's size is 10"
#pragma once

#include "../../config.hpp"
#include "../../copy.hpp"
#include "../../policies.hpp"
#include "../../reflect.hpp"
#include "../../view.hpp"
#include "algorithm_arguments.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace layout::detail {

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

/// An index as a message shows it: 1-byte integers as numbers, not characters.
template <class I>
std::string index_text(I value) {
    if constexpr (sizeof(I) == 1)
        return std::to_string(static_cast<int>(value));
    else
        return std::to_string(value);
}

/// "layout::gather: index 12 at position 3 is out of range: the source's size is 10".
[[noreturn]] inline void throw_out_of_range(const char* function, const char* noun,
                                            const std::string& value, std::size_t position,
                                            const char* bound_what, std::size_t bound) {
    throw std::out_of_range(std::string(function) + ": " + noun + " " + value + " at position " +
                            std::to_string(position) + " is out of range: " + bound_what + " " +
                            std::to_string(bound));
}

/// "layout::permute: not a permutation: index 4 at position 2 appeared before, at position 0".
[[noreturn]] inline void throw_repeated_index(const char* function, const std::string& value,
                                              std::size_t position, std::size_t before) {
    throw std::invalid_argument(std::string(function) + ": not a permutation: index " + value +
                                " at position " + std::to_string(position) +
                                " appeared before, at position " + std::to_string(before));
}

/// With LAYOUT_CHECK_BOUNDS: throws std::out_of_range naming the first index (or key) not
/// below bound. Host and device algorithms check under the same switch, because the device
/// check costs a kernel and a synchronizing read-back that a release build must not pay.
template <class I>
void validate_indices(const char* function, const char* noun, std::span<const I> indices,
                      std::size_t bound, const char* bound_what) {
#if LAYOUT_CHECK_BOUNDS
    for (std::size_t i = 0; i < indices.size(); ++i)
        if (!index_in_range(indices[i], bound))
            throw_out_of_range(function, noun, index_text(indices[i]), i, bound_what, bound);
#else
    (void)function, (void)noun, (void)indices, (void)bound, (void)bound_what;
#endif
}

/// With LAYOUT_CHECK_BOUNDS: throws unless perm is a permutation of [0, perm.size()), naming
/// the first position whose index is out of range (std::out_of_range) or appeared before
/// (std::invalid_argument), as the device check does.
template <class I>
void validate_permutation(const char* function, std::span<const I> perm) {
#if LAYOUT_CHECK_BOUNDS
    const std::size_t n = perm.size();
    constexpr std::size_t unseen = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> first_at(n, unseen);
    for (std::size_t i = 0; i < n; ++i) {
        if (!index_in_range(perm[i], n))
            throw_out_of_range(function, "index", index_text(perm[i]), i,
                               "the permutation's size is", n);
        const auto p = static_cast<std::size_t>(perm[i]);
        if (first_at[p] != unseen)
            throw_repeated_index(function, index_text(perm[i]), i, first_at[p]);
        first_at[p] = i;
    }
#else
    (void)function, (void)perm;
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
    using const_source =
        view<const T, typename decltype(s)::layout_type, typename decltype(s)::memory_type>;
    if (sized != per_index::destination && count != s.size())
        throw_size_mismatch(function, count, "indices", s.size(), "the source");
    if (sized != per_index::source && count != d.size())
        throw_size_mismatch(function, count, "indices", d.size(), "the destination");
    check_no_overlap(function, views_overlap(s, d));
    return move_views<const_source, decltype(d)>{const_source(s), d};
}

} // namespace layout::detail
