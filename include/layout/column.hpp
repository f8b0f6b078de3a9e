/// \file column.hpp
/// One leaf of every element of a view: what view.column<&P::x>() returns, for every layout.
///
///     layout::soa_vector<Particle> p(n);
///     auto x = p.column<&Particle::x>();          // or p.view().column<&Particle::x>()
///     x[i] = 1.f;                                 // float&
///     std::ranges::sort(x);                       // a random-access range of float&
///     std::span<float> s = x.span();              // SoA only: contiguous
///     float* first = x.data();                    // SoA and AoS: first + i * x.stride()
///     auto m = x.mdspan();                        // any layout, with <layout/cuda/columns.hpp>
///
/// | layout   | span() (std::span) | data(), stride()                     | mdspan() (cuda::std) |
/// |----------|--------------------|--------------------------------------|----------------------|
/// | soa      | yes                | yes, stride 1                        | layout_right         |
/// | aos      | no: not contiguous | yes, stride sizeof(T) / sizeof(leaf) | layout_stride        |
/// | aosoa<N> | no                 | no: not one stride                   | cuda::layout_aosoa   |
///
/// Which of these a column has comes from its layout's facts (storage::leaf_data,
/// mapping::element_stride), never from the layout's name; is_contiguous and is_strided say it
/// for generic code. A column is a view: trivially copyable, usable in device code, borrowed
/// (its iterators and spans stay valid as long as the memory does, not the column object).
///
/// Prefer ranges of columns to ranges of whole elements for min/max: libstdc++ 12's
/// std::ranges::max(container) keeps its running result as `auto result = *first`, a proxy into
/// the container, and assigns to it, overwriting the first element. Over a column the references
/// are plain and nothing is written.
#pragma once

#include "config.hpp"
#include "iterator.hpp"
#include "policies.hpp"
#include "reflect.hpp"

#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

namespace layout {

namespace detail {
/// Overload priority: prefer<1> picks an overload taking prefer<1> over one taking prefer<0>.
template <std::size_t N>
struct prefer : prefer<N - 1> {};
template <>
struct prefer<0> {};

/// Elements of leaf type E from one element to the next where elements are whole T objects
/// (mapping::element_stride bytes apart); 0 where there is no such stride in whole leaves.
template <class T, class L, class E>
inline constexpr std::size_t leaf_stride_v = [] {
    if constexpr (requires { mapping<T, L>::element_stride; })
        return mapping<T, L>::element_stride % sizeof(E) == 0
                   ? mapping<T, L>::element_stride / sizeof(E)
                   : 0;
    else
        return std::size_t{0};
}();

/// What column::mdspan() calls without <layout/cuda/columns.hpp>; that header adds the
/// prefer<1> overload (found through the argument's namespace).
template <class Column>
int mdspan_of(const Column&, prefer<0>) {
    static_assert(sizeof(Column) == 0,
                  "layout: column::mdspan() needs <layout/cuda/columns.hpp> (nvcc; it is in "
                  "<layout/layout.hpp> when compiled by nvcc)");
    return 0; // int, not void: the caller's `auto m = ...` then adds no second error
}
} // namespace detail

template <class View, std::size_t Leaf>
class column {
    using T = typename View::value_type;
    using L = typename View::layout_type;

public:
    using element_type = detail::copy_const_t<typename View::element_type, leaf_t<T, Leaf>>;
    using value_type = std::remove_cv_t<element_type>;
    using memory_type = typename View::memory_type;
    using reference = element_type&;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using iterator = layout::iterator<column>;

    /// Every value in one contiguous array (storage::leaf_data: SoA): span() exists.
    static constexpr bool is_contiguous = detail::contiguous_columns_v<View>;
    /// Values one fixed number of leaves apart (SoA: 1; AoS: sizeof(T) / sizeof(leaf)):
    /// data() and stride() exist.
    static constexpr bool is_strided =
        is_contiguous || detail::leaf_stride_v<T, L, value_type> != 0;

    column() = default;
    LAYOUT_HOST_DEVICE explicit column(const View& view) noexcept : view_(view) {}

    LAYOUT_HOST_DEVICE size_type size() const noexcept { return view_.size(); }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return view_.size() == 0; }
    LAYOUT_HOST_DEVICE reference operator[](size_type i) const noexcept {
        LAYOUT_BOUNDS_CHECK(i, view_.size());
        return view_.storage().at(i).template leaf<Leaf>();
    }
    LAYOUT_HOST_DEVICE iterator begin() const noexcept { return {*this, 0}; }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        return {*this, static_cast<difference_type>(size())};
    }

    /// Element 0's value; element i's is data()[i * stride()]. Computed from the layout's
    /// pointers alone (nothing is read), so it is fine on the host for device memory.
    template <class Self = column>
    LAYOUT_HOST_DEVICE element_type* data() const noexcept {
        static_assert(Self::is_strided,
                      "layout: column::data(): this column is not one stride; index the column "
                      "(or, under AoSoA, whose columns jump between blocks, use mdspan())");
        if constexpr (is_contiguous) {
            return view_.storage().template leaf_data<Leaf>();
        } else {
            using byte = detail::copy_const_t<element_type, std::byte>;
            auto* base = reinterpret_cast<byte*>(view_.storage().data);
            return base ? reinterpret_cast<element_type*>(base + detail::leaf_table<T>[Leaf].offset)
                        : nullptr;
        }
    }
    /// Distance, in values of the leaf, from one element's value to the next.
    template <class Self = column>
    LAYOUT_HOST_DEVICE size_type stride() const noexcept {
        static_assert(Self::is_strided,
                      "layout: column::stride(): this column is not one stride; index the column "
                      "(or, under AoSoA, whose columns jump between blocks, use mdspan())");
        if constexpr (is_contiguous)
            return 1;
        else
            return detail::leaf_stride_v<T, L, value_type>;
    }
    /// The column as a std::span (host code).
    template <class Self = column>
    std::span<element_type> span() const noexcept {
        static_assert(Self::is_contiguous,
                      "layout: column::span() needs a SoA view or container (other layouts' "
                      "columns are not contiguous): use data() and stride() for AoS, or the "
                      "column itself as a range for any layout");
        return {data(), size()};
    }
    /// The column as a rank-1 cuda::std::mdspan, for every layout (needs
    /// <layout/cuda/columns.hpp>).
    template <class Self = column>
    LAYOUT_HOST_DEVICE auto mdspan() const noexcept {
        return mdspan_of(static_cast<const Self&>(*this), detail::prefer<1>{});
    }

    LAYOUT_HOST_DEVICE const View& view() const noexcept { return view_; }

private:
    View view_{};
};

} // namespace layout

// A column is a view (cheap to copy, non-owning) and borrowed (its iterators stay valid after the
// column object is gone). Said here rather than by deriving from std::ranges::view_interface,
// which clang 14 cannot compile with libstdc++ 12.
template <class View, std::size_t Leaf>
inline constexpr bool std::ranges::enable_view<layout::column<View, Leaf>> = true;
template <class View, std::size_t Leaf>
inline constexpr bool std::ranges::enable_borrowed_range<layout::column<View, Leaf>> = true;
