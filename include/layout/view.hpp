/// \file view.hpp
/// A non-owning, trivially copyable handle to n elements of T stored in some layout.
///
///     layout::view<Particle, layout::policy::soa> v = container.view();
///     kernel<<<g, b>>>(v);                        // by value, to the device
///     auto&& [x, y, z, vx, vy, vz, m, q] = v[i];  // references into the columns
///     layout::view<const Particle, layout::policy::soa> r = v;   // read-only
///
/// Views over memory the user already owns:
///
///     std::vector<Particle> particles(n);
///     layout::view<Particle, layout::policy::aos> a(particles.data(), n);        // no copy
///     layout::view<Particle, layout::policy::soa> s(n, x, y, z, vx, vy, vz, m, q); // 8 columns
///
/// A view knows its memory space (the third parameter, host memory unless said): a container's
/// view carries the container's, and the algorithms and copies choose the host or the device
/// path from it at compile time. Memory the user allocated on the device is said so:
///
///     layout::view<Particle, layout::policy::aos, layout::cuda::device_memory> d(ptr, n);
///
/// Like a restrict kernel parameter, a view promises that what a kernel writes through it is not
/// also reached through another view or pointer in that kernel.
#pragma once

#include "column.hpp"
#include "config.hpp"
#include "element_ref.hpp"
#include "iterator.hpp"
#include "memory.hpp"
#include "path.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "selection.hpp"

#include <cstddef>
#include <ranges>
#include <type_traits>

namespace layout {

namespace detail {
/// A's type, in a function pointer R (*)(A).
template <class F>
struct first_argument;
template <class R, class A>
struct first_argument<R (*)(A) noexcept> {
    using type = A;
};
template <class R, class A>
struct first_argument<R (*)(A)> {
    using type = A;
};
template <class F>
using first_argument_t = typename first_argument<F>::type;

} // namespace detail

template <class T, class Layout, class Memory>
class view {
    static_assert(assert_reflectable<std::remove_const_t<T>>());
    static_assert(detail::layout_fits<std::remove_const_t<T>, Layout>());
    static_assert(
        requires { typename Layout::template storage<T>; },
        "layout: the view's second parameter is not a layout: it has no storage<T> "
        "(layouts/concept.hpp lists what a layout provides)");
    static_assert(memory_space<Memory>,
                  "layout: the view's third parameter is not a memory space (memory.hpp says what "
                  "one is: host_accessible, device_accessible, default_resource())");

public:
    using element_type = T;
    using value_type = std::remove_const_t<T>;
    using layout_type = Layout;
    using memory_type = Memory;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using storage_type = detail::storage<T, Layout>;
    using reference = element_ref<T, 0, typename storage_type::cursor>;
    using iterator = layout::iterator<view>;

    view() = default;
    LAYOUT_HOST_DEVICE view(const storage_type& storage, size_type size) noexcept
        : storage_(storage), size_(size) {}

    /// Over memory the user owns, where the layout has one pointer: AoS over an array of T,
    /// AoSoA over blocks laid out as mapping<T, aosoa<N>> says.
    template <class S = storage_type>
        requires requires { &S::from_pointer; }
    LAYOUT_HOST_DEVICE view(detail::first_argument_t<decltype(&S::from_pointer)> data,
                            size_type size) noexcept
        : storage_(S::from_pointer(data)), size_(size) {}

    /// Over one array per leaf, in leaf order, each of the leaf's type (SoA).
    template <class... Columns>
        requires requires(Columns*... columns) { storage_type::from_columns(columns...); }
    LAYOUT_HOST_DEVICE view(size_type size, Columns*... columns) noexcept
        : storage_(storage_type::from_columns(columns...)), size_(size) {}

    /// A mutable view converts to a read-only one.
    template <class Mutable = T>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator view<const Mutable, Layout, Memory>() const noexcept {
        return {storage_, size_};
    }

    /// Deprecated (goes in the next release): a view of another memory space converts to the
    /// spelling views had before they knew their memory, view<T, Layout> (host memory), so that
    /// kernels declared with that parameter type still take a device container's view. Spell
    /// the memory instead: view<T, Layout, layout::cuda::device_memory>, or a template.
    template <class U>
        requires(!std::is_same_v<Memory, host_memory> &&
                 std::is_same_v<std::remove_const_t<U>, value_type> &&
                 (std::is_const_v<U> || !std::is_const_v<T>))
    [[deprecated("layout: a view of device memory passed as view<T, L> (host memory): spell its "
                 "memory, view<T, L, layout::cuda::device_memory>, or take the view as a "
                 "template parameter")]] LAYOUT_HOST_DEVICE
    operator view<U, Layout, host_memory>() const noexcept {
        return {storage_, size_};
    }

    LAYOUT_HOST_DEVICE size_type size() const noexcept { return size_; }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return size_ == 0; }

    /// Element i; bounds-checked when LAYOUT_CHECK_BOUNDS is on (debug builds).
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE reference operator[](size_type i) const noexcept {
        LAYOUT_BOUNDS_CHECK(i, size_);
        return reference(storage_.at(i));
    }

    LAYOUT_HOST_DEVICE iterator begin() const noexcept { return {*this, 0}; }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        return {*this, static_cast<difference_type>(size_)};
    }

    /// Column of one scalar leaf, named by a path of member pointers or field indices:
    /// column<&P::x>(), column<&P::pos, &Vec3::y>(), column<0>().
    template <auto Key, auto... Rest>
    LAYOUT_HOST_DEVICE auto column() const noexcept {
        return layout::column<view, detail::leaf_of_path<value_type, Key, Rest...>()>(*this);
    }
    /// Column of leaf L, counting leaves in declaration order through nested members.
    template <std::size_t L>
    LAYOUT_HOST_DEVICE auto leaf_column() const noexcept {
        static_assert(L < leaf_count_v<T>, "layout: leaf index out of range");
        return layout::column<view, L>(*this);
    }

    /// Some fields of every element, named as column's path keys are, each a whole field or a
    /// layout::path<...> (selection.hpp): select<&P::x, &P::y>(), select<0, 2>().
    template <auto... Keys>
    LAYOUT_HOST_DEVICE auto select() const noexcept {
        return layout::selection<view, Keys...>(*this);
    }

    /// The layout's one pointer, where it has one: the elements as the user's struct (AoS),
    /// the first block's bytes (AoSoA).
    LAYOUT_HOST_DEVICE auto* data() const noexcept
        requires requires(const storage_type& s) { s.data; }
    {
        return storage_.data;
    }

    LAYOUT_HOST_DEVICE const storage_type& storage() const noexcept { return storage_; }

private:
    storage_type storage_{};
    size_type size_ = 0;
};

} // namespace layout

// A view is a non-owning handle, cheap to copy: a std::ranges::view, and a borrowed range (its
// iterators stay valid after the view object is gone), so c.view() | std::views::take(3) works.
template <class T, class Layout, class Memory>
inline constexpr bool std::ranges::enable_borrowed_range<layout::view<T, Layout, Memory>> = true;
template <class T, class Layout, class Memory>
inline constexpr bool std::ranges::enable_view<layout::view<T, Layout, Memory>> = true;
