/// \file advise/layout_name.hpp
/// What the advisor's tables call a layout. A trait of the advise component: the layouts carry no
/// name of their own (their static name() is deprecated, and goes in the release after 0.1).
///
///     layout_name<policy::aos>::get()                                == "aos"
///     layout_name<policy::aosoa<32>>::get()                          == "aosoa32"
///     layout_name<policy::split<policy::aos, policy::soa, 0>>::get() == "split<aos,soa>"
///
/// A layout of your own is named by a specialization, before the advisor costs it:
///
///     template <> struct layout::advisor::layout_name<padded_aos> {
///         static std::string get() { return "padded_aos"; }
///     };
///
/// Small on purpose (the policies and <string>): a benchmark that labels its rows by layout
/// includes this header alone, not the cost model.
#pragma once

#include "../policies.hpp"

#include <concepts>
#include <cstddef>
#include <string>

namespace layout::advisor {

namespace detail {
/// A layout with a static name() of its own (deprecated: the release after 0.1 drops it).
template <class L>
concept self_named = requires {
    { L::name() } -> std::convertible_to<std::string>;
};
} // namespace detail

/// The name of layout L in the advisor's tables and in benchmark labels.
template <class L>
struct layout_name {
    static std::string get() {
        static_assert(detail::self_named<L>,
                      "layout: the advisor has no name for this layout: specialize "
                      "layout::advisor::layout_name<YourLayout> with a static std::string get() "
                      "(<layout/advise/layout_name.hpp>)");
        if constexpr (detail::self_named<L>)
            return L::name();
        else
            return {}; // (after the static_assert: no second error)
    }
};

template <>
struct layout_name<policy::aos> {
    static std::string get() { return "aos"; }
};

template <>
struct layout_name<policy::soa> {
    static std::string get() { return "soa"; }
};

template <std::size_t Lanes>
struct layout_name<policy::aosoa<Lanes>> {
    static std::string get() { return "aosoa" + std::to_string(Lanes); }
};

template <class First, class Second, auto... Keys>
struct layout_name<policy::split<First, Second, Keys...>> {
    static std::string get() {
        return "split<" + layout_name<First>::get() + "," + layout_name<Second>::get() + ">";
    }
};

} // namespace layout::advisor
