/// \file span.hpp
/// Columns as standard ranges, for std:: and std::ranges algorithms and for code that takes
/// a std::span.
///
///     layout::soa_vector<Particle> p(n);
///     std::span<float> x = layout::column_span<&Particle::x>(p);      // SoA: contiguous
///     std::ranges::fill(x, 0.f);
///     float top = std::ranges::max(layout::column_span<&Particle::mass>(p));
///
///     layout::aos_vector<Particle> a(n);
///     layout::strided_span<float> ax = layout::strided_column<&Particle::x>(a);
///     // ax.data() == &a.data()->x, ax.stride() == 8 (floats from one x to the next)
///
///     layout::aosoa<Particle, 32> b(n);
///     auto bx = layout::column_range<&Particle::x>(b);   // any layout: float& per element
///     std::ranges::sort(bx);                             // sorts that one column only
///
/// | layout      | column_span (std::span) | strided_column (strided_span) | column_range |
/// |-------------|-------------------------|-------------------------------|--------------|
/// | soa         | yes                     | yes, stride 1                 | yes          |
/// | aos         | no: not contiguous      | yes, stride sizeof(T)/sizeof(leaf) | yes     |
/// | aosoa<N>    | no                      | no: not one stride            | yes          |
///
/// Columns are named as in view::column: a path of member pointers or field indices
/// (column_span<&Body::pos, &Vec3::y>(v)). Each function takes a view, or a container whose
/// memory the host can reach (it stands for its view(); a const container gives const leaves).
/// The result points into the view's memory and is valid as long as that memory is.
///
/// std::mdspan is C++23 and not in libstdc++ 12, so there is no host mdspan here; the device
/// side, with cuda::std::mdspan for every layout, is <layout/cuda/interop.hpp>.
///
/// Prefer ranges of columns to ranges of whole elements for min/max: libstdc++ 12's
/// std::ranges::max(container) keeps its running result as `auto result = *first`, a proxy into
/// the container, and assigns to it, overwriting the first element. Over a column (or with
/// *std::ranges::max_element) the references are plain and nothing is written.
#pragma once

#include "config.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "vector.hpp"
#include "view.hpp"

#include <cstddef>
#include <iterator>
#include <ranges>
#include <span>
#include <type_traits>

namespace layout {

// ---- strided_span: n values of one type, a fixed number of elements apart --------------------

/// A non-owning range of size() values of E at data()[0], data()[stride()], data()[2 * stride()],
/// ...: one AoS column, or (stride 1) one SoA column. Random access, trivially copyable, usable
/// in device code; a std::ranges::view and a borrowed range (its iterators do not dangle).
template <class E>
class strided_span {
public:
    using element_type = E;
    using value_type = std::remove_cv_t<E>;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;

    /// The first value and an index: *it is data[index * stride]. Counting elements rather
    /// than stepping a pointer keeps stride 0 (one value repeated) a range of size() values.
    class iterator {
    public:
        using value_type = std::remove_cv_t<E>;
        using difference_type = std::ptrdiff_t;
        using reference = E&;
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::random_access_iterator_tag;

        iterator() = default;
        LAYOUT_HOST_DEVICE iterator(E* data, difference_type stride, difference_type index) noexcept
            : data_(data), stride_(stride), i_(index) {}

        LAYOUT_HOST_DEVICE E& operator*() const noexcept { return data_[i_ * stride_]; }
        LAYOUT_HOST_DEVICE E& operator[](difference_type n) const noexcept { return data_[(i_ + n) * stride_]; }
        LAYOUT_HOST_DEVICE iterator& operator++() noexcept { ++i_; return *this; }
        LAYOUT_HOST_DEVICE iterator operator++(int) noexcept { auto old = *this; ++i_; return old; }
        LAYOUT_HOST_DEVICE iterator& operator--() noexcept { --i_; return *this; }
        LAYOUT_HOST_DEVICE iterator operator--(int) noexcept { auto old = *this; --i_; return old; }
        LAYOUT_HOST_DEVICE iterator& operator+=(difference_type n) noexcept { i_ += n; return *this; }
        LAYOUT_HOST_DEVICE iterator& operator-=(difference_type n) noexcept { i_ -= n; return *this; }
        LAYOUT_HOST_DEVICE friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
        LAYOUT_HOST_DEVICE friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
        LAYOUT_HOST_DEVICE friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
        LAYOUT_HOST_DEVICE friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
            return a.i_ - b.i_;
        }
        LAYOUT_HOST_DEVICE friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.i_ == b.i_;
        }
        LAYOUT_HOST_DEVICE friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
            return a.i_ <=> b.i_;
        }

    private:
        E* data_ = nullptr;
        difference_type stride_ = 1;
        difference_type i_ = 0;
    };

    strided_span() = default;
    /// size values, the first at data, each stride elements of E after the previous one.
    /// Stride 0 is allowed: the one value at data, size times (a broadcast).
    LAYOUT_HOST_DEVICE strided_span(E* data, size_type size, size_type stride) noexcept
        : data_(data), size_(size), stride_(stride) {}
    /// A std::span as a strided_span of stride 1.
    LAYOUT_HOST_DEVICE strided_span(std::span<E> s) noexcept : data_(s.data()), size_(s.size()) {}

    /// A mutable span converts to a read-only one.
    template <class Mutable = E>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator strided_span<const Mutable>() const noexcept {
        return {data_, size_, stride_};
    }

    LAYOUT_HOST_DEVICE E* data() const noexcept { return data_; }
    LAYOUT_HOST_DEVICE size_type size() const noexcept { return size_; }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return size_ == 0; }
    /// Distance, in elements of E, from one value to the next.
    LAYOUT_HOST_DEVICE size_type stride() const noexcept { return stride_; }

    LAYOUT_HOST_DEVICE E& operator[](size_type i) const noexcept {
        LAYOUT_BOUNDS_CHECK(i, size_);
        return data_[i * stride_];
    }
    LAYOUT_HOST_DEVICE iterator begin() const noexcept {
        return {data_, static_cast<difference_type>(stride_), 0};
    }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        // Only the index moves: no pointer is formed past the array.
        return {data_, static_cast<difference_type>(stride_), static_cast<difference_type>(size_)};
    }

private:
    E* data_ = nullptr;
    size_type size_ = 0;
    size_type stride_ = 1;
};

template <class E>
strided_span(std::span<E>) -> strided_span<E>;

namespace detail {

/// The view of a view (itself) or of a container (its view(); const for a const container).
template <class T, class L>
LAYOUT_HOST_DEVICE view<T, L> span_source(const view<T, L>& v) noexcept {
    return v;
}
template <class T, class L, class M>
auto span_source(vector<T, L, M>& c) noexcept {
    static_assert(M::host_accessible,
                  "layout: a std:: range over a container in device memory cannot be read on the "
                  "host; pass container.view() if you mean it (device code, thrust), or use "
                  "<layout/cuda/interop.hpp> for cuda::std::span and cuda::std::mdspan");
    return c.view();
}
template <class T, class L, class M>
auto span_source(const vector<T, L, M>& c) noexcept {
    static_assert(M::host_accessible,
                  "layout: a std:: range over a container in device memory cannot be read on the "
                  "host; pass container.view() if you mean it (device code, thrust), or use "
                  "<layout/cuda/interop.hpp> for cuda::std::span and cuda::std::mdspan");
    return c.view();
}

/// Elements of leaf type E from one element to the next, in a layout whose elements are
/// Stride bytes apart (AoS: sizeof(T)).
template <std::size_t Stride, class E>
constexpr std::size_t leaf_stride() {
    static_assert(Stride % sizeof(E) == 0,
                  "layout: strided_column: sizeof(T) is not a multiple of the leaf's size, so an "
                  "AoS column has no stride in whole leaves; use column_range or view::column");
    return Stride / sizeof(E);
}

} // namespace detail

/// One leaf of every element of a SoA view (or host container) as a std::span.
///
///     layout::soa_vector<Particle> p = {{1, 2, ...}, {3, 4, ...}};
///     layout::column_span<&Particle::x>(p)      // std::span<float>{1, 3}
///     layout::column_span<&Particle::x>(std::as_const(p))   // std::span<const float>
template <auto Key, auto... Rest, class X>
auto column_span(X&& x) noexcept {
    const auto v = detail::span_source(x);
    using V = std::remove_cvref_t<decltype(v)>;
    static_assert(detail::contiguous_columns_v<V>,
                  "layout: column_span needs a SoA view or container (other layouts' columns are "
                  "not contiguous): use strided_column for AoS, column_range for any layout");
    auto c = v.template column<Key, Rest...>();
    return std::span(c.data(), c.size());
}

// A temporary container is destroyed at the end of the statement and its column_span would
// dangle: ill-formed (compilers show the comment on the deleted line). A view is fine.
template <auto Key, auto... Rest, class T, class L, class M>
void column_span(vector<T, L, M>&&) = delete; // layout: would dangle; name the container
template <auto Key, auto... Rest, class T, class L, class M>
void column_span(const vector<T, L, M>&&) = delete; // layout: would dangle; name the container

/// A SoA column (view.column<&P::x>()) as a std::span.
template <class View, std::size_t Leaf>
    requires detail::contiguous_columns_v<View>
auto as_span(const column<View, Leaf>& c) noexcept {
    return std::span(c.data(), c.size());
}

/// One leaf of every element of an AoS or SoA view (or host container) as a strided_span.
///
///     layout::aos_vector<Particle> a(n);             // Particle is 8 floats
///     auto vx = layout::strided_column<&Particle::vx>(a);
///     // vx.data() == &a.data()[0].vx, vx.stride() == 8, vx[i] is a[i]'s vx
template <auto Key, auto... Rest, class X>
auto strided_column(X&& x) noexcept {
    const auto v = detail::span_source(x);
    using V = std::remove_cvref_t<decltype(v)>;
    using map = mapping<typename V::value_type, typename V::layout_type>;
    auto c = v.template column<Key, Rest...>();
    using E = typename decltype(c)::element_type;
    if constexpr (detail::contiguous_columns_v<V>) {
        return strided_span<E>(c.data(), c.size(), 1);
    } else {
        static_assert(requires { map::element_stride; },
                      "layout: strided_column: an AoSoA column is not one stride (it jumps between "
                      "blocks); use column_range, or view::column for indexed access");
        E* first = v.size() ? &c[0] : nullptr;
        return strided_span<E>(first, c.size(),
                               detail::leaf_stride<map::element_stride, std::remove_const_t<E>>());
    }
}

// A temporary container is destroyed at the end of the statement and its strided_column would
// dangle: ill-formed (compilers show the comment on the deleted line). A view is fine.
template <auto Key, auto... Rest, class T, class L, class M>
void strided_column(vector<T, L, M>&&) = delete; // layout: would dangle; name the container
template <auto Key, auto... Rest, class T, class L, class M>
void strided_column(const vector<T, L, M>&&) = delete; // layout: would dangle; name the container

/// One column of any layout as a random-access range of references (what column_range returns):
/// an iterator is the column and an index, and *it is column[index].
template <class View, std::size_t Leaf>
class leaf_range {
    using Column = column<View, Leaf>;

public:
    using element_type = typename Column::element_type;

    class iterator {
    public:
        using value_type = std::remove_cv_t<element_type>;
        using difference_type = std::ptrdiff_t;
        using reference = element_type&;
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::random_access_iterator_tag;

        iterator() = default;
        LAYOUT_HOST_DEVICE iterator(const Column& c, difference_type i) noexcept : c_(c), i_(i) {}

        LAYOUT_HOST_DEVICE element_type& operator*() const noexcept {
            return c_[static_cast<std::size_t>(i_)];
        }
        LAYOUT_HOST_DEVICE element_type& operator[](difference_type n) const noexcept {
            return c_[static_cast<std::size_t>(i_ + n)];
        }
        LAYOUT_HOST_DEVICE iterator& operator++() noexcept { ++i_; return *this; }
        LAYOUT_HOST_DEVICE iterator operator++(int) noexcept { auto old = *this; ++i_; return old; }
        LAYOUT_HOST_DEVICE iterator& operator--() noexcept { --i_; return *this; }
        LAYOUT_HOST_DEVICE iterator operator--(int) noexcept { auto old = *this; --i_; return old; }
        LAYOUT_HOST_DEVICE iterator& operator+=(difference_type n) noexcept { i_ += n; return *this; }
        LAYOUT_HOST_DEVICE iterator& operator-=(difference_type n) noexcept { i_ -= n; return *this; }
        LAYOUT_HOST_DEVICE friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
        LAYOUT_HOST_DEVICE friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
        LAYOUT_HOST_DEVICE friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
        LAYOUT_HOST_DEVICE friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
            return a.i_ - b.i_;
        }
        LAYOUT_HOST_DEVICE friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.i_ == b.i_;
        }
        LAYOUT_HOST_DEVICE friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
            return a.i_ <=> b.i_;
        }

    private:
        Column c_{View{}};
        difference_type i_ = 0;
    };

    LAYOUT_HOST_DEVICE explicit leaf_range(const Column& c) noexcept : c_(c) {}
    leaf_range() : c_(View{}) {}

    LAYOUT_HOST_DEVICE std::size_t size() const noexcept { return c_.size(); }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return c_.size() == 0; }
    LAYOUT_HOST_DEVICE element_type& operator[](std::size_t i) const noexcept { return c_[i]; }
    LAYOUT_HOST_DEVICE iterator begin() const noexcept { return {c_, 0}; }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        return {c_, static_cast<std::ptrdiff_t>(c_.size())};
    }

private:
    Column c_;
};

/// Any column (view.column<&P::x>()) as a range.
template <class View, std::size_t Leaf>
LAYOUT_HOST_DEVICE leaf_range<View, Leaf> as_range(const column<View, Leaf>& c) noexcept {
    return leaf_range<View, Leaf>(c);
}

/// One leaf of every element of any view (or host container) as a random-access range of
/// references. Works for every layout; what it lacks against a span is data() and contiguity.
///
///     auto m = layout::column_range<&Particle::mass>(chunks);   // chunks: layout::aosoa<Particle, 32>
///     std::ranges::replace(m, 0.f, 1.f);                       // float& per element
template <auto Key, auto... Rest, class X>
auto column_range(X&& x) noexcept {
    const auto v = detail::span_source(x);
    return as_range(v.template column<Key, Rest...>());
}

// A temporary container is destroyed at the end of the statement and its column_range would
// dangle: ill-formed (compilers show the comment on the deleted line). A view is fine.
template <auto Key, auto... Rest, class T, class L, class M>
void column_range(vector<T, L, M>&&) = delete; // layout: would dangle; name the container
template <auto Key, auto... Rest, class T, class L, class M>
void column_range(const vector<T, L, M>&&) = delete; // layout: would dangle; name the container

} // namespace layout

// Both ranges are views (cheap to copy, non-owning) and borrowed (their iterators stay valid after
// the range object is gone). Said here rather than by deriving from std::ranges::view_interface,
// which clang 14 cannot compile with libstdc++ 12.
template <class E>
inline constexpr bool std::ranges::enable_view<layout::strided_span<E>> = true;
template <class E>
inline constexpr bool std::ranges::enable_borrowed_range<layout::strided_span<E>> = true;
template <class View, std::size_t Leaf>
inline constexpr bool std::ranges::enable_view<layout::leaf_range<View, Leaf>> = true;
template <class View, std::size_t Leaf>
inline constexpr bool std::ranges::enable_borrowed_range<layout::leaf_range<View, Leaf>> = true;
