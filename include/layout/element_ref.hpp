/// \file element_ref.hpp
/// The proxy v[i] returns: references into whichever layout holds the element.
///
///     auto&& [x, y, z, vx, vy, vz, m, q] = v[i];     // float& into six different columns (SoA)
///     layout::get<&Particle::vx>(v[i]) *= 2;          // same, by member pointer
///     Particle p = v[i];                              // whole-element load
///     v[i] = p;                                       // whole-element store
///
/// A nested struct member (Vec3 pos) comes back as a proxy of the nested struct, and a
/// std::array member as a proxy of the array; both convert to their value types the same way.
#pragma once

#include "config.hpp"
#include "layouts/concept.hpp"
#include "path.hpp"
#include "reflect.hpp"

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace layout {

template <class U, std::size_t First, class Cursor>
class element_ref;

namespace detail {
/// T's own == / < (member, friend or free function), not one that the proxy itself provides.
template <class T>
inline constexpr bool has_own_equality_v = requires(const T& a, const T& b) {
    { a == b } -> std::convertible_to<bool>;
};
template <class T>
inline constexpr bool has_own_less_v = requires(const T& a, const T& b) {
    { a < b } -> std::convertible_to<bool>;
};

template <class R, class T>
inline constexpr bool is_element_ref_of_v = false;
template <class U, std::size_t F, class C, class T>
inline constexpr bool is_element_ref_of_v<element_ref<U, F, C>, T> =
    std::is_same_v<std::remove_const_t<U>, T>;

/// What a mutable proxy made by moving keeps: the element's value at that moment.
template <class T>
struct kept_value {
    union storage {
        char none;
        T value;
        LAYOUT_HOST_DEVICE constexpr storage() noexcept : none() {}
    };
    bool held = false;
    storage value;
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void keep(const T& v) noexcept {
        held = true;
        value.value = v;
    }
};
/// Where a proxy keeps that value: a base class, empty for read-only proxies. A base rather
/// than a [[no_unique_address]] member: proxies can be kernel arguments (or captured by device
/// lambdas), and nvcc's host and device passes have laid out such members differently (see
/// split_kept in layouts/split.hpp); empty bases take no room in both.
template <class T, bool ReadOnly>
struct kept_slot {
    kept_value<T> kept_;
};
template <class T>
struct kept_slot<T, true> {};

/// Ordering from T's < alone, against a T or a proxy of T: for a T without <=>.
template <class T, class Other>
inline constexpr bool orders_by_less_v =
    !std::three_way_comparable<T> && has_own_less_v<T> &&
    (std::is_same_v<Other, T> || is_element_ref_of_v<Other, T>);

template <class T>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const T& value_of(const T& value) noexcept {
    return value;
}
template <class U, std::size_t F, class C>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto value_of(const element_ref<U, F, C>& ref) noexcept {
    return ref.load();
}
} // namespace detail

/// Proxy for one (sub)object of type U, whose first leaf is leaf First of the element the
/// cursor reaches. U is const for read-only views.
template <class U, std::size_t First, class Cursor>
class element_ref : detail::kept_slot<std::remove_const_t<U>, std::is_const_v<U>> {
public:
    using value_type = std::remove_const_t<U>;

    LAYOUT_HOST_DEVICE explicit element_ref(const Cursor& cursor) noexcept : cursor_(cursor) {}
    element_ref(const element_ref&) = default;
    /// A copy of a proxy is a second reference to the same element, but code that moves a proxy
    /// into a new object means to keep the element's value while the element is overwritten:
    /// std::swap(a, b) is `tmp = std::move(a); a = std::move(b); b = std::move(tmp);`, and
    /// libstdc++ 12's std::ranges::rotate is `auto t = std::move(*p); <shift>; *q = std::move(t);`.
    /// So a mutable proxy made by moving keeps the value the element had then, and gives that
    /// value back when it is itself read as an rvalue (std::move(t), or returned); read as an
    /// lvalue, or through its fields, it reads the element, as any proxy does. Read-only proxies
    /// only rebind, so they keep nothing.
    LAYOUT_HOST_DEVICE element_ref(element_ref&& other) noexcept : cursor_(other.cursor_) {
        if constexpr (!std::is_const_v<U>) this->kept_.keep(other.take());
    }
    /// Field I: a reference to a scalar member, or a proxy of a struct or std::array member.
    template <std::size_t I>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE decltype(auto) get() const noexcept {
        static_assert(I < field_count_v<value_type>, "layout: get<I>: field index out of range");
        using field = detail::field_t<value_type, I>;
        constexpr std::size_t leaf = First + detail::first_leaf<value_type>[I];
        if constexpr (detail::is_leaf_v<field>)
            return cursor_.template leaf<leaf>();
        else
            return element_ref<detail::copy_const_t<U, field>, leaf, Cursor>(cursor_);
    }

    /// Element k of a std::array member whose elements are scalars, for a run-time k; with k a
    /// constant after unrolling, it folds to one access.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE auto& operator[](std::size_t k) const noexcept
        requires detail::is_scalar_array_v<value_type>
    {
        LAYOUT_BOUNDS_CHECK(k, std::tuple_size_v<value_type>);
        using leaf_type = std::remove_reference_t<decltype(get<0>())>;
        leaf_type* found = nullptr;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((k == K ? (found = &get<K>(), 0) : 0), ...);
        }(std::make_index_sequence<std::tuple_size_v<value_type>>{});
        return *found;
    }

    /// Whole-element load.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE operator value_type() const& noexcept { return load(); }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE operator value_type() && noexcept { return take(); }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE value_type load() const noexcept {
        value_type value;
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            ((detail::leaf_ref<L>(value) = cursor_.template leaf<First + L>()), ...);
        }(std::make_index_sequence<leaf_count_v<value_type>>{});
        return value;
    }

    /// Whole-element store. The proxy is const like a reference is: assigning through a const
    /// proxy writes the element, which is what std::ranges requires of proxy references.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const element_ref&
    operator=(const value_type& value) const noexcept
        requires(!std::is_const_v<U>)
    {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            ((cursor_.template leaf<First + L>() = detail::leaf_ref<L>(value)), ...);
        }(std::make_index_sequence<leaf_count_v<value_type>>{});
        return *this;
    }
    /// Copies the value of another element (not the proxy): v[i] = w[j]. (Ref-qualified const&,
    /// which still takes temporaries, because the read-only overload below is &-qualified and
    /// C++ does not let the two kinds mix.)
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const element_ref&
    operator=(const element_ref& other) const& noexcept
        requires(!std::is_const_v<U>)
    {
        return *this = other.load();
    }
    /// From an rvalue proxy: its kept value if it has one (see the move constructor).
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const element_ref&
    operator=(element_ref&& other) const& noexcept
        requires(!std::is_const_v<U>)
    {
        return *this = other.take();
    }
    template <class U2, std::size_t F2, class C2>
        requires std::same_as<std::remove_const_t<U2>, value_type>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE const element_ref&
    operator=(const element_ref<U2, F2, C2>& other) const noexcept
        requires(!std::is_const_v<U>)
    {
        return *this = other.load();
    }
    /// A read-only proxy cannot write, so assigning one held in a variable rebinds it to the
    /// other element, as assigning a pointer to const would (std::ranges::max keeps the best
    /// element so far this way). Assigning to a temporary, cv[0] = cv[1], does not compile.
    LAYOUT_HOST_DEVICE element_ref& operator=(const element_ref& other) & noexcept
        requires std::is_const_v<U>
    {
        cursor_ = other.cursor_;
        return *this;
    }

    /// Swaps the values of two elements (std::sort and std::ranges::sort use it).
    /// (By value, as a non-template that beats std::ranges::swap's deleted swap(T&, T&) for
    /// lvalues; the values are read from the elements, not from what a moved proxy keeps.)
    LAYOUT_HOST_DEVICE friend void swap(element_ref a, element_ref b) noexcept
        requires(!std::is_const_v<U>)
    {
        const value_type tmp = a.load();
        a = b.load();
        b = tmp;
    }

    /// Equality is T's own == where T has one (a T that compares only an id compares the same
    /// way in std::find, std::count, std::unique and container ==), else leaf by leaf (with each
    /// scalar's own ==, so NaN != NaN).
    LAYOUT_EXEC_CHECK_DISABLE
    template <class U2, std::size_t F2, class C2>
        requires std::same_as<std::remove_const_t<U2>, value_type>
    LAYOUT_HOST_DEVICE friend bool operator==(const element_ref& a,
                                              const element_ref<U2, F2, C2>& b) {
        if constexpr (detail::has_own_equality_v<value_type>)
            return static_cast<bool>(a.load() == b.load());
        else
            return a.equals(b);
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend bool operator==(const element_ref& a, const value_type& b) {
        if constexpr (detail::has_own_equality_v<value_type>)
            return static_cast<bool>(a.load() == b);
        else
            return a.equals(b);
    }

    /// Ordering is T's own: <=> where T has it (std::sort(v.begin(), v.end()) with a defaulted
    /// <=>), else < (and >, <=, >= made from it) where T has only that; none where it has neither.
    LAYOUT_EXEC_CHECK_DISABLE
    template <class U2, std::size_t F2, class C2>
        requires std::same_as<std::remove_const_t<U2>, value_type> &&
                 std::three_way_comparable<value_type>
    LAYOUT_HOST_DEVICE friend auto operator<=>(const element_ref& a,
                                               const element_ref<U2, F2, C2>& b) {
        return a.load() <=> b.load();
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend auto operator<=>(const element_ref& a, const value_type& b)
        requires std::three_way_comparable<value_type>
    {
        return a.load() <=> b;
    }
    LAYOUT_EXEC_CHECK_DISABLE
    template <class Other>
        requires detail::orders_by_less_v<value_type, Other>
    LAYOUT_HOST_DEVICE friend bool operator<(const element_ref& a, const Other& b) {
        return static_cast<bool>(a.load() < detail::value_of(b));
    }
    LAYOUT_EXEC_CHECK_DISABLE
    template <class Other>
        requires detail::orders_by_less_v<value_type, Other>
    LAYOUT_HOST_DEVICE friend bool operator>(const element_ref& a, const Other& b) {
        return static_cast<bool>(detail::value_of(b) < a.load());
    }
    LAYOUT_EXEC_CHECK_DISABLE
    template <class Other>
        requires detail::orders_by_less_v<value_type, Other>
    LAYOUT_HOST_DEVICE friend bool operator<=(const element_ref& a, const Other& b) {
        return !static_cast<bool>(detail::value_of(b) < a.load());
    }
    LAYOUT_EXEC_CHECK_DISABLE
    template <class Other>
        requires detail::orders_by_less_v<value_type, Other>
    LAYOUT_HOST_DEVICE friend bool operator>=(const element_ref& a, const Other& b) {
        return !static_cast<bool>(a.load() < detail::value_of(b));
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend bool operator<(const value_type& a, const element_ref& b)
        requires detail::orders_by_less_v<value_type, value_type>
    {
        return static_cast<bool>(a < b.load());
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend bool operator>(const value_type& a, const element_ref& b)
        requires detail::orders_by_less_v<value_type, value_type>
    {
        return static_cast<bool>(b.load() < a);
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend bool operator<=(const value_type& a, const element_ref& b)
        requires detail::orders_by_less_v<value_type, value_type>
    {
        return !static_cast<bool>(b.load() < a);
    }
    LAYOUT_EXEC_CHECK_DISABLE
    LAYOUT_HOST_DEVICE friend bool operator>=(const value_type& a, const element_ref& b)
        requires detail::orders_by_less_v<value_type, value_type>
    {
        return !static_cast<bool>(a < b.load());
    }

    LAYOUT_HOST_DEVICE const Cursor& cursor() const noexcept { return cursor_; }

private:
    template <class Other>
    LAYOUT_HOST_DEVICE bool equals(const Other& other) const noexcept {
        return [&]<std::size_t... L>(std::index_sequence<L...>) {
            if constexpr (std::is_same_v<Other, value_type>)
                return ((cursor_.template leaf<First + L>() == detail::leaf_ref<L>(other)) && ...);
            else
                return ((cursor_.template leaf<First + L>() ==
                         other.cursor().template leaf<Other::first_leaf + L>()) &&
                        ...);
        }(std::make_index_sequence<leaf_count_v<value_type>>{});
    }

    template <class, std::size_t, class>
    friend class element_ref;

    /// The kept value if there is one, else the element's.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE value_type take() const noexcept {
        if constexpr (!std::is_const_v<U>)
            if (this->kept_.held) return this->kept_.value.value;
        return load();
    }

public:
    static constexpr std::size_t first_leaf = First;

private:
    Cursor cursor_;
};

namespace detail {
template <class T>
inline constexpr bool is_element_ref_v = false;
template <class U, std::size_t F, class C>
inline constexpr bool is_element_ref_v<element_ref<U, F, C>> = true;

} // namespace detail

/// Field of an element proxy by index or member pointer: get<2>(v[i]), get<&P::z>(v[i]).
template <auto Key, class U, std::size_t F, class C>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE decltype(auto) get(const element_ref<U, F, C>& ref) noexcept {
    return ref.template get<detail::field_key_index<std::remove_const_t<U>, Key>()>();
}

/// The same on a plain struct, so generic code can serve std::vector<T> too:
/// get<&P::z>(particle), get<2>(particle).
template <auto Key, class T>
    requires(!detail::is_element_ref_v<std::remove_const_t<T>> && std::is_aggregate_v<T>)
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr auto& get(T& object) noexcept {
    using U = std::remove_const_t<T>;
    return detail::field_ref<detail::field_key_index<U, Key>()>(
        object, detail::field_count_tag<detail::field_count<U>()>{});
}

/// A projection that names one member, for std::ranges algorithms over proxies and over plain
/// structs alike:
///
///     std::ranges::sort(v, {}, layout::field<&Particle::x>);         // v: any layout, or std::vector
///     auto it = std::ranges::find(v, 42, layout::field<&Particle::id>);
///
/// A member pointer itself (std::ranges::sort(v, {}, &Particle::x)) cannot be one: std::invoke
/// applies it only to a real Particle, and no Particle object exists under SoA or AoSoA.
template <auto Key>
struct field_projection {
    template <class R>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE constexpr decltype(auto)
    operator()(R&& r) const noexcept {
        if constexpr (detail::is_element_ref_v<std::remove_cvref_t<R>> ||
                      std::is_lvalue_reference_v<R>)
            return get<Key>(r); // a reference into the element or the object (or a nested proxy)
        else
            return std::remove_cvref_t<decltype(get<Key>(r))>(get<Key>(r)); // by value: r dies
    }
};
template <auto Key>
inline constexpr field_projection<Key> field{};

} // namespace layout

// Tuple protocol: structured bindings bind references to the fields.
template <class U, std::size_t F, class C>
struct std::tuple_size<layout::element_ref<U, F, C>>
    : std::integral_constant<std::size_t, layout::field_count_v<U>> {};

template <std::size_t I, class U, std::size_t F, class C>
struct std::tuple_element<I, layout::element_ref<U, F, C>> {
    using type = std::remove_reference_t<
        decltype(std::declval<const layout::element_ref<U, F, C>&>().template get<I>())>;
};

// The proxy and its value type share the value type as common reference: what std::ranges
// needs to accept iterators whose reference is a proxy.
template <class U, std::size_t F, class C, template <class> class TQ, template <class> class UQ>
struct std::basic_common_reference<layout::element_ref<U, F, C>, std::remove_const_t<U>, TQ, UQ> {
    using type = std::remove_const_t<U>;
};
template <class U, std::size_t F, class C, template <class> class TQ, template <class> class UQ>
struct std::basic_common_reference<std::remove_const_t<U>, layout::element_ref<U, F, C>, TQ, UQ> {
    using type = std::remove_const_t<U>;
};
