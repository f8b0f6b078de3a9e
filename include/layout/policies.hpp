/// \file policies.hpp
/// The layouts, each in its own file under layouts/ (aos, soa, aosoa<N>, and split<First, Second,
/// Keys...>, which stores chosen fields in one of them and the rest in another), and what every
/// layout provides (layouts/concept.hpp):
///
///     struct P { float x; double d; };                    // leaves: x (4 B), d (8 B)
///     mapping<P, policy::aos>::offset(i, l, cap)          // i*16 + {0, 8}[l]
///     mapping<P, policy::soa>::offset(i, l, cap)          // {0, round_up(4*cap, 256) + 256}[l] + i*{4, 8}[l]
///     mapping<P, policy::aosoa<32>>::offset(i, l, cap)    // (i/32)*384 + {0, 128}[l] + (i%32)*{4, 8}[l]
#pragma once

#include "layouts/aos.hpp"
#include "layouts/aosoa.hpp"
#include "layouts/concept.hpp"
#include "layouts/soa.hpp"
#include "layouts/split.hpp"

#include <cstddef>

namespace layout {

/// Allocation alignment of every container block: enough for any leaf and for a SoA column.
inline constexpr std::size_t block_alignment = policy::soa::column_alignment;
static_assert(block_alignment % policy::split<policy::aos, policy::aos, 0>::part_alignment == 0);

namespace detail {
/// Instantiates what a layout checks about T at compile time (the aosoa lane count), for view
/// and vector, which otherwise reach the mapping only inside member functions.
template <class T, class Layout>
constexpr bool layout_fits() {
    if constexpr (requires { mapping<T, Layout>::lanes_fit; })
        return mapping<T, Layout>::lanes_fit;
    else
        return true;
}
} // namespace detail

} // namespace layout
