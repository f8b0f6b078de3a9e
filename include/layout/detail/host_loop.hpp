/// \file detail/host_loop.hpp
/// The loops behind layout::for_each_index on the host, each shaped like the hand-written loop
/// it must match:
///
///     any layout   for (i) f(v, i)   v rebuilt from the view's pointers as __restrict__ parameters
///     a layout with a loop of its own (L::host_loop: aosoa<N>'s block and lane loop, in
///     layouts/aosoa.hpp), that loop
///
/// Why each piece is there (g++ 12 and clang 14, -O2 and -O3):
///  - The pointers arrive as separate __restrict__ parameters of a function that is not inlined
///    (g++ drops a parameter's restrict when it inlines the function), as the CUDA path passes
///    them to its kernel. A view is a struct, and restrict on a struct member means nothing to
///    either compiler: a loop over eight SoA columns then needs run-time alias checks, and g++
///    gives up after ten of them.
///  - flatten inlines the functor and everything it calls into the loop. Without it, g++ -O2
///    leaves a 16-field functor as a call per element (its inlining limit at -O2 is 70
///    instructions against 200 at -O3) and clang 14 likewise: no vectorization at all.
///  - The loop pragma (omp simd with OpenMP, else GCC ivdep / clang assume_safety) says what
///    for_each_index requires: f(v, i) touches element i only, so iterations are independent.
///    Over whole elements (AoS) it does not force vectorization: the compiler's cost model
///    decides, as for the hand-written loop (config.hpp, LAYOUT_IVDEP_STRIDED).
#pragma once

#include "../config.hpp"
#include "../policies.hpp"
#include "../view.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace layout::detail {

#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wpass-failed" // see layouts/aosoa.hpp
#endif

/// Elements [begin, end) of the view of n elements that Layout rebuilds from pointers.
template <class T, class Layout, class F, class... Pointee>
LAYOUT_HOST_LOOP void host_loop_elements(F& f, std::size_t n, std::size_t begin, std::size_t end,
                                         Pointee* LAYOUT_RESTRICT... pointers) {
    const view<T, Layout> v(storage<T, Layout>::rebuild(pointers...), n);
    end = std::min(end, n); // a no-op that lets debug builds' bounds checks (i < n) fold away
    if constexpr (requires { mapping<T, Layout>::element_stride; }) {
        LAYOUT_IVDEP_STRIDED
        for (std::size_t i = begin; i < end; ++i) f(v, i);
    } else {
        LAYOUT_IVDEP
        for (std::size_t i = begin; i < end; ++i) f(v, i);
    }
}

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

/// How a view's work is cut between threads: in units of elements, or what the layout says
/// (aosoa: blocks), each thread's share a multiple of `grain` units so that no two threads
/// write into one 64-byte cache line of a column (for leaves of 1 to 8 bytes: 64 elements).
template <class Layout>
struct host_units {
    static constexpr std::size_t grain = 64;
    static constexpr std::size_t count(std::size_t n) { return n; }
};
template <class Layout>
    requires requires { typename Layout::host_units; }
struct host_units<Layout> : Layout::host_units {};

/// f over units [begin, end) of v, in the loop for v's layout.
template <class T, class Layout, class F>
void host_loop(F& f, const view<T, Layout>& v, std::size_t begin, std::size_t end) {
    v.storage().split([&](auto*... pointers) {
        if constexpr (requires {
                          Layout::template host_loop<T>(f, v.size(), begin, end, pointers...);
                      })
            Layout::template host_loop<T>(f, v.size(), begin, end, pointers...);
        else
            host_loop_elements<T, Layout>(f, v.size(), begin, end, pointers...);
    });
}

/// Whether V is a view that host_loop can run (a view of a layout that rebuilds from
/// pointers; an aosoa_block view, made inside a loop, takes a plain loop).
template <class V>
inline constexpr bool has_host_loop_v = false;
template <class T, class Layout>
    requires requires(const view<T, Layout>& v) {
        v.storage().split([](auto*... p) { return storage<T, Layout>::rebuild(p...); });
    }
inline constexpr bool has_host_loop_v<view<T, Layout>> = true;

/// f over all of v: serially, or split into one contiguous share per OpenMP thread.
template <class T, class Layout, class F>
void host_for_each(F& f, const view<T, Layout>& v, bool parallel, std::size_t min_elements) {
    using units = host_units<Layout>;
    const std::size_t count = units::count(v.size());
    if (count == 0) return;
#if defined(_OPENMP)
    if (parallel && v.size() >= min_elements && count > units::grain && !omp_in_parallel() &&
        omp_get_max_threads() > 1) {
        const std::size_t grains = (count + units::grain - 1) / units::grain;
#  pragma omp parallel
        {
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const auto threads = static_cast<std::size_t>(omp_get_num_threads());
            const std::size_t begin = std::min(count, grains * t / threads * units::grain);
            const std::size_t end = std::min(count, grains * (t + 1) / threads * units::grain);
            if (begin < end) host_loop(f, v, begin, end);
        }
        return;
    }
#else
    (void)parallel;
    (void)min_elements;
#endif
    host_loop(f, v, 0, count);
}

} // namespace layout::detail
