/// \file strided_span.hpp
/// n values of one type, a fixed number of values apart: a pointer and a stride, for code that
/// takes exactly that (a BLAS-like interface, a kernel argument of two words). A strided column
/// gives one:
///
///     layout::aos_vector<Particle> a(n);                 // Particle is 8 floats
///     layout::strided_span sx(a.column<&Particle::x>());   // strided_span<float>, stride 8
#pragma once

#include "config.hpp"
#include "iterator.hpp"

#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

namespace layout {

/// A non-owning range of size() values of E at data()[0], data()[stride()], data()[2 * stride()],
/// ...: one AoS column, or (stride 1) one SoA column. Random access, trivially copyable, usable
/// in device code; a std::ranges::view and a borrowed range (its iterators do not dangle).
template <class E>
class strided_span {
public:
    using element_type = E;
    using value_type = std::remove_cv_t<E>;
    using reference = E&;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using iterator = layout::iterator<strided_span>;

    strided_span() = default;
    /// size values, the first at data, each stride elements of E after the previous one.
    /// Stride 0 is allowed: the one value at data, size times (a broadcast).
    LAYOUT_HOST_DEVICE strided_span(E* data, size_type size, size_type stride) noexcept
        : data_(data), size_(size), stride_(stride) {}
    /// A std::span as a strided_span of stride 1.
    LAYOUT_HOST_DEVICE strided_span(std::span<E> s) noexcept : data_(s.data()), size_(s.size()) {}

    /// A strided column (column::is_strided: SoA or AoS): its data(), size() and stride().
    template <class Column>
        requires Column::is_strided
    LAYOUT_HOST_DEVICE explicit strided_span(const Column& c) noexcept
        : data_(c.data()), size_(c.size()), stride_(c.stride()) {}

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
    LAYOUT_HOST_DEVICE iterator begin() const noexcept { return {*this, 0}; }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        return {*this, static_cast<difference_type>(size_)};
    }

private:
    E* data_ = nullptr;
    size_type size_ = 0;
    size_type stride_ = 1;
};

template <class E>
strided_span(std::span<E>) -> strided_span<E>;
template <class Column>
    requires Column::is_strided
strided_span(const Column&) -> strided_span<typename Column::element_type>;

} // namespace layout

// A view (cheap to copy, non-owning) and borrowed (its iterators stay valid after the span object
// is gone). Said here rather than by deriving from std::ranges::view_interface, which clang 14
// cannot compile with libstdc++ 12.
template <class E>
inline constexpr bool std::ranges::enable_view<layout::strided_span<E>> = true;
template <class E>
inline constexpr bool std::ranges::enable_borrowed_range<layout::strided_span<E>> = true;
