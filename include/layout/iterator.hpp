/// \file iterator.hpp
/// The one random-access iterator of the library: a sequence and an index, *it is seq[index].
/// It serves views (reference: the element proxy, value type T), columns and strided_span
/// (reference: a leaf's E&). Satisfies std::random_access_iterator, so std::sort,
/// std::ranges::sort and friends work. Counting an index rather than stepping a pointer keeps
/// every layout (and a stride of 0) on one code path, and forms no pointer past the end.
#pragma once

#include "config.hpp"

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace layout {

/// Seq: a trivially copyable, default-constructible handle with value_type, reference and
/// operator[](std::size_t).
template <class Seq>
class iterator {
public:
    using value_type = typename Seq::value_type;
    using reference = typename Seq::reference;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::random_access_iterator_tag;
    // Legacy algorithms dispatch on the category; proxies work with them as with vector<bool>.
    using iterator_category = std::random_access_iterator_tag;

    iterator() = default;
    LAYOUT_HOST_DEVICE iterator(const Seq& seq, difference_type index) noexcept
        : seq_(seq), index_(index) {}
    /// A mutable iterator converts to a read-only one.
    template <class Other>
        requires(!std::is_same_v<Other, Seq> && std::is_convertible_v<Other, Seq>)
    LAYOUT_HOST_DEVICE iterator(const iterator<Other>& other) noexcept
        : seq_(other.view()), index_(other.index()) {}

    // Bounds-checked against the sequence's size in debug builds: a container's iterators come
    // from a view of its whole capacity (vector.hpp says why), a view's from the view itself.
    LAYOUT_HOST_DEVICE reference operator*() const {
        return seq_[static_cast<std::size_t>(index_)];
    }
    LAYOUT_HOST_DEVICE reference operator[](difference_type n) const {
        return seq_[static_cast<std::size_t>(index_ + n)];
    }

    LAYOUT_HOST_DEVICE iterator& operator++() noexcept {
        ++index_;
        return *this;
    }
    LAYOUT_HOST_DEVICE iterator operator++(int) noexcept {
        auto old = *this;
        ++index_;
        return old;
    }
    LAYOUT_HOST_DEVICE iterator& operator--() noexcept {
        --index_;
        return *this;
    }
    LAYOUT_HOST_DEVICE iterator operator--(int) noexcept {
        auto old = *this;
        --index_;
        return old;
    }
    LAYOUT_HOST_DEVICE iterator& operator+=(difference_type n) noexcept {
        index_ += n;
        return *this;
    }
    LAYOUT_HOST_DEVICE iterator& operator-=(difference_type n) noexcept {
        index_ -= n;
        return *this;
    }
    LAYOUT_HOST_DEVICE friend iterator operator+(iterator it, difference_type n) noexcept {
        return it += n;
    }
    LAYOUT_HOST_DEVICE friend iterator operator+(difference_type n, iterator it) noexcept {
        return it += n;
    }
    LAYOUT_HOST_DEVICE friend iterator operator-(iterator it, difference_type n) noexcept {
        return it -= n;
    }
    LAYOUT_HOST_DEVICE friend difference_type operator-(const iterator& a,
                                                        const iterator& b) noexcept {
        return a.index_ - b.index_;
    }
    LAYOUT_HOST_DEVICE friend bool operator==(const iterator& a, const iterator& b) noexcept {
        return a.index_ == b.index_;
    }
    LAYOUT_HOST_DEVICE friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
        return a.index_ <=> b.index_;
    }

    /// Moving out of a proxy yields the value (plain references keep the standard iter_move).
    LAYOUT_HOST_DEVICE friend value_type iter_move(const iterator& it)
        requires(!std::is_lvalue_reference_v<reference>)
    {
        return *it;
    }
    LAYOUT_HOST_DEVICE friend void iter_swap(const iterator& a, const iterator& b)
        requires(!std::is_lvalue_reference_v<reference>)
    {
        swap(*a, *b);
    }

    LAYOUT_HOST_DEVICE difference_type index() const noexcept { return index_; }
    LAYOUT_HOST_DEVICE const Seq& view() const noexcept { return seq_; }

private:
    Seq seq_{};
    difference_type index_ = 0;
};

} // namespace layout
