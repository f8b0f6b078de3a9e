/// \file selection.hpp
/// Some fields of every element of a view: what view.select<Keys...>() returns, for every
/// layout. Keys are as for column<...>: member pointers, field indices, and layout::path<...>
/// for a nested member (path.hpp); a key that names a struct member selects all its leaves.
///
///     layout::soa_vector<Particle> p(n);
///     auto pos = p.select<&Particle::x, &Particle::y, &Particle::z>();
///     auto&& [x, y, z] = pos[i];                  // float& into three columns
///     std::tuple<float, float, float> t = pos[i]; // the chosen fields' values (load())
///     pos[i] = {1.f, 2.f, 3.f};                   // store them
///     kernel<<<g, b>>>(pos);                      // by value: under SoA, three pointers
///     layout::copy(host.select<...>(), other.select<...>());   // only those bytes move
///
/// A selection holds only what reaches the chosen leaves (storage::keep: under SoA their
/// columns' pointers; under AoS and AoSoA the one pointer). Like a view, it is trivially
/// copyable, usable in device code and borrowed.
#pragma once

#include "config.hpp"
#include "element_ref.hpp"
#include "iterator.hpp"
#include "path.hpp"
#include "policies.hpp"
#include "reflect.hpp"

#include <cstddef>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>

namespace layout {

namespace detail {
template <std::size_t I, class First, class... Rest>
struct nth_type : nth_type<I - 1, Rest...> {};
template <class First, class... Rest>
struct nth_type<0, First, Rest...> {
    using type = First;
};

/// The leaves keys name, as a type (keep_listed's List).
template <class T, auto... Keys>
struct key_list {
    static constexpr auto leaves = leaves_of_keys<T, Keys...>();
};
} // namespace detail

/// The proxy a selection's [i] returns: the chosen fields of element i, each a reference to a
/// scalar or a proxy of a struct or std::array member (as element_ref's get<I>); Spans are
/// detail::leaf_span's, one per key.
template <class E, class Cursor, class... Spans>
class selection_ref {
public:
    /// The chosen fields' values, in the keys' order.
    using value_type = std::tuple<typename Spans::type...>;

    LAYOUT_HOST_DEVICE explicit selection_ref(const Cursor& cursor) noexcept : cursor_(cursor) {}
    selection_ref(const selection_ref&) = default;

    /// Chosen field I.
    template <std::size_t I>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE decltype(auto) get() const noexcept {
        static_assert(I < sizeof...(Spans), "layout: get<I>: past the last selected field");
        using span = typename detail::nth_type<I, Spans...>::type;
        using U = typename span::type;
        if constexpr (detail::is_leaf_v<U>)
            return cursor_.template leaf<span::first>();
        else
            return element_ref<detail::copy_const_t<E, U>, span::first, Cursor>(cursor_);
    }

    /// Loads the chosen fields.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE value_type load() const noexcept {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return value_type(static_cast<typename Spans::type>(get<I>())...);
        }(std::index_sequence_for<Spans...>{});
    }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE operator value_type() const noexcept { return load(); }

    /// Stores the chosen fields (and only those); const like a reference, as element_ref.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const selection_ref&
    operator=(const value_type& values) const noexcept
        requires(!std::is_const_v<E>)
    {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((get<I>() = std::get<I>(values)), ...);
        }(std::index_sequence_for<Spans...>{});
        return *this;
    }
    /// Copies the chosen fields of another element: sel[i] = other_sel[j].
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const selection_ref&
    operator=(const selection_ref& other) const noexcept
        requires(!std::is_const_v<E>)
    {
        return *this = other.load();
    }
    template <class E2, class C2, class... S2>
        requires std::same_as<typename selection_ref<E2, C2, S2...>::value_type, value_type>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const selection_ref&
    operator=(const selection_ref<E2, C2, S2...>& other) const noexcept
        requires(!std::is_const_v<E>)
    {
        return *this = other.load();
    }

private:
    Cursor cursor_;
};

/// Fields Keys... of every element of View.
template <class View, auto... Keys>
class selection {
    using T = typename View::value_type;
    static_assert(sizeof...(Keys) > 0, "layout: select<...>: name at least one field");
    static_assert(detail::keys_distinct<T, Keys...>(),
                  "layout: select<...>: a leaf is selected twice (a field and a member of it, or "
                  "one field twice)");

public:
    using element_type = typename View::element_type;
    using memory_type = typename View::memory_type;
    /// The chosen leaves of T, in the keys' order (a struct member's leaves in declaration order).
    using leaf_list = detail::key_list<T, Keys...>;
    static constexpr auto leaves = leaf_list::leaves;
    using storage_type =
        decltype(detail::keep_listed<leaf_list>(std::declval<const typename View::storage_type&>(),
                                                std::make_index_sequence<leaves.size()>{}));
    using reference =
        selection_ref<element_type, typename storage_type::cursor, detail::key_leaves<T, Keys>...>;
    using value_type = typename reference::value_type;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using iterator = layout::iterator<selection>;

    selection() = default;
    LAYOUT_HOST_DEVICE explicit selection(const View& view) noexcept
        : storage_(detail::keep_listed<leaf_list>(view.storage(),
                                                  std::make_index_sequence<leaves.size()>{})),
          size_(view.size()) {}

    LAYOUT_HOST_DEVICE size_type size() const noexcept { return size_; }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return size_ == 0; }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE reference operator[](size_type i) const noexcept {
        LAYOUT_BOUNDS_CHECK(i, size_);
        return reference(storage_.at(i));
    }
    LAYOUT_HOST_DEVICE iterator begin() const noexcept { return {*this, 0}; }
    LAYOUT_HOST_DEVICE iterator end() const noexcept {
        return {*this, static_cast<difference_type>(size_)};
    }
    LAYOUT_HOST_DEVICE const storage_type& storage() const noexcept { return storage_; }

private:
    storage_type storage_{};
    size_type size_ = 0;
};

} // namespace layout

// Tuple protocol: structured bindings bind references to the chosen fields.
template <class E, class C, class... S>
struct std::tuple_size<layout::selection_ref<E, C, S...>>
    : std::integral_constant<std::size_t, sizeof...(S)> {};
template <std::size_t I, class E, class C, class... S>
struct std::tuple_element<I, layout::selection_ref<E, C, S...>> {
    using type = std::remove_reference_t<
        decltype(std::declval<const layout::selection_ref<E, C, S...>&>().template get<I>())>;
};

template <class View, auto... Keys>
inline constexpr bool std::ranges::enable_borrowed_range<layout::selection<View, Keys...>> = true;
template <class View, auto... Keys>
inline constexpr bool std::ranges::enable_view<layout::selection<View, Keys...>> = true;
