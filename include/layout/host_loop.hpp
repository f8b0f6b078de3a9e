/// \file host_loop.hpp
/// The loops behind layout::for_each_index on the host, each shaped like the hand-written loop
/// it must match:
///
///     any layout   for (i) f(v, i)   v rebuilt from the view's pointers as __restrict__ parameters
///     a layout in blocks of N lanes (L::host_units::lanes: aosoa<N>, a split with an aosoa<N>
///     part)   for (block k) for (lane l) f(b, k * N + l), b the view of block k
///                 (L::block_layout, storage::block(k)), in which element i is lane i - k * N:
///                 affine in i, so the lane loop vectorizes (over the whole view, i % N and
///                 i / N are not affine in i, and the loop stays scalar)
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
///    omp simd only where f(v, i) is noexcept (no exception may leave such a loop): a functor
///    that may throw gets ivdep / assume_safety, and its exception reaches the caller.
///    exec::parallel makes every functor noexcept (for_each.hpp), so its loops keep omp simd.
///    Over whole elements (AoS) it does not force vectorization: the compiler's cost model
///    decides, as for the hand-written loop (config.hpp, LAYOUT_IVDEP_STRIDED).
#pragma once

#include "config.hpp"
#include "policies.hpp"
#include "view.hpp"

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
template <class T, class Layout, class M = host_memory, class F, class... Pointee>
LAYOUT_HOST_LOOP void host_loop_elements(F& f, std::size_t n, std::size_t begin, std::size_t end,
                                         Pointee* LAYOUT_RESTRICT... pointers) {
    const view<T, Layout, M> v(storage<T, Layout>::rebuild(pointers...), n);
    end = std::min(end, n); // a no-op that lets debug builds' bounds checks (i < n) fold away
    if constexpr (requires { mapping<T, Layout>::element_stride; }) {
        LAYOUT_IVDEP_STRIDED
        for (std::size_t i = begin; i < end; ++i) f(v, i);
    } else if constexpr (noexcept(f(v, begin))) {
        LAYOUT_IVDEP
        for (std::size_t i = begin; i < end; ++i) f(v, i);
    } else {
        LAYOUT_IVDEP_MAY_THROW
        for (std::size_t i = begin; i < end; ++i) f(v, i);
    }
}

/// Blocks [first_block, end_block) of the view of n elements that Layout rebuilds from pointers,
/// in blocks of Lanes elements: the full ones with a fixed-count lane loop (what vectorizes
/// without a remainder), then the view's partial last block, if it is in the range.
template <class T, class Layout, std::size_t Lanes, class M = host_memory, class F,
          class... Pointee>
LAYOUT_HOST_LOOP void host_loop_blocks(F& f, std::size_t n, std::size_t first_block,
                                       std::size_t end_block,
                                       Pointee* LAYOUT_RESTRICT... pointers) {
    const auto s = storage<T, Layout>::rebuild(pointers...);
    using block_view = view<T, typename Layout::block_layout, M>;
    const std::size_t full_end = std::min(end_block, n / Lanes);
    for (std::size_t k = first_block; k < full_end; ++k) {
        const block_view b(s.block(k), n);
        if constexpr (noexcept(f(b, k))) {
            LAYOUT_IVDEP
            for (std::size_t l = 0; l < Lanes; ++l) f(b, k * Lanes + l);
        } else {
            LAYOUT_IVDEP_MAY_THROW
            for (std::size_t l = 0; l < Lanes; ++l) f(b, k * Lanes + l);
        }
    }
    if (full_end < end_block) {
        const std::size_t k = full_end;
        const block_view b(s.block(k), n);
        // min: tells the compiler that the lanes are those of this block (n - k * Lanes is
        // fewer than Lanes anyway), so that the cursor's other-block path folds away here too.
        const std::size_t lanes = std::min(n - k * Lanes, Lanes);
        for (std::size_t l = 0; l < lanes; ++l) f(b, k * Lanes + l);
    }
}

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

/// How a view's work is cut between threads: in units of elements, or what the layout says
/// (blocks of `lanes` elements), each thread's share a multiple of `grain` units so that no two
/// threads write into one 64-byte cache line of a column (for leaves of 1 to 8 bytes: 64
/// elements).
template <class Layout>
struct host_units {
    static constexpr std::size_t grain = 64;
    static constexpr std::size_t count(std::size_t n) { return n; }
};
template <class Layout>
    requires requires { typename Layout::host_units; }
struct host_units<Layout> : Layout::host_units {};

/// f over units [begin, end) of v, in the loop for v's layout.
template <class T, class Layout, class M, class F>
void host_loop(F& f, const view<T, Layout, M>& v, std::size_t begin, std::size_t end) {
    v.storage().split([&](auto*... pointers) {
        if constexpr (requires { Layout::host_units::lanes; })
            host_loop_blocks<T, Layout, Layout::host_units::lanes, M>(f, v.size(), begin, end,
                                                                      pointers...);
        else
            host_loop_elements<T, Layout, M>(f, v.size(), begin, end, pointers...);
    });
}

/// Whether V is a view that host_loop can run (a view of a layout that rebuilds from
/// pointers; a block's view, made inside a loop, takes a plain loop).
template <class V>
inline constexpr bool has_host_loop_v = false;
template <class T, class Layout, class M>
    requires(M::host_accessible &&
             requires(const view<T, Layout, M>& v) {
                 v.storage().split([](auto*... p) { return storage<T, Layout>::rebuild(p...); });
             })
inline constexpr bool has_host_loop_v<view<T, Layout, M>> = true;

/// f over all of v: serially, or split into one contiguous share per OpenMP thread.
template <class T, class Layout, class M, class F>
void host_for_each(F& f, const view<T, Layout, M>& v, bool parallel, std::size_t min_elements) {
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
