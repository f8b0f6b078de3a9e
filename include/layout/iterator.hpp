/// \file iterator.hpp
/// Random-access iterator over a view; its reference is the element proxy, its value type T.
/// Satisfies std::random_access_iterator, so std::sort, std::ranges::sort and friends work.
#pragma once

#include "config.hpp"

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace layout {

template <class View>
class iterator {
public:
    using value_type = typename View::value_type;
    using reference = typename View::reference;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::random_access_iterator_tag;
    // Legacy algorithms dispatch on the category; proxies work with them as with vector<bool>.
    using iterator_category = std::random_access_iterator_tag;

    iterator() = default;
    LAYOUT_HOST_DEVICE iterator(const View& view, difference_type index) noexcept
        : view_(view), index_(index) {}
    /// A mutable iterator converts to a read-only one.
    template <class Other>
        requires(!std::is_same_v<Other, View> && std::is_convertible_v<Other, View>)
    LAYOUT_HOST_DEVICE iterator(const iterator<Other>& other) noexcept
        : view_(other.view()), index_(other.index()) {}

    // Bounds-checked against the view's size in debug builds: a container's iterators come from
    // a view of its whole capacity (vector.hpp says why), a view's from the view itself.
    LAYOUT_HOST_DEVICE reference operator*() const { return view_[static_cast<std::size_t>(index_)]; }
    LAYOUT_HOST_DEVICE reference operator[](difference_type n) const {
        return view_[static_cast<std::size_t>(index_ + n)];
    }

    LAYOUT_HOST_DEVICE iterator& operator++() noexcept { ++index_; return *this; }
    LAYOUT_HOST_DEVICE iterator operator++(int) noexcept { auto old = *this; ++index_; return old; }
    LAYOUT_HOST_DEVICE iterator& operator--() noexcept { --index_; return *this; }
    LAYOUT_HOST_DEVICE iterator operator--(int) noexcept { auto old = *this; --index_; return old; }
    LAYOUT_HOST_DEVICE iterator& operator+=(difference_type n) noexcept { index_ += n; return *this; }
    LAYOUT_HOST_DEVICE iterator& operator-=(difference_type n) noexcept { index_ -= n; return *this; }
    LAYOUT_HOST_DEVICE friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
    LAYOUT_HOST_DEVICE friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
    LAYOUT_HOST_DEVICE friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
    LAYOUT_HOST_DEVICE friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
        return a.index_ - b.index_;
    }
    LAYOUT_HOST_DEVICE friend bool operator==(const iterator& a, const iterator& b) noexcept {
        return a.index_ == b.index_;
    }
    LAYOUT_HOST_DEVICE friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
        return a.index_ <=> b.index_;
    }

    /// Moving out of a proxy yields the value.
    LAYOUT_HOST_DEVICE friend value_type iter_move(const iterator& it) { return *it; }
    LAYOUT_HOST_DEVICE friend void iter_swap(const iterator& a, const iterator& b) { swap(*a, *b); }

    LAYOUT_HOST_DEVICE difference_type index() const noexcept { return index_; }
    LAYOUT_HOST_DEVICE const View& view() const noexcept { return view_; }

private:
    View view_{};
    difference_type index_ = 0;
};

} // namespace layout
