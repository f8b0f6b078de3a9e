/// \file detail/host_loop.hpp
/// The loops behind layout::for_each_index on the host, one per layout, each shaped like the
/// hand-written loop it must match:
///
///     aos        for (i) f(v, i)                  v rebuilt from a __restrict__ T*
///     soa        for (i) f(v, i)                  v rebuilt from a __restrict__ pointer per leaf
///     aosoa<N>   for (block) for (lane) f(b, i)   b: the one block, i = block * N + lane
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
///  - Under aosoa<N> the functor gets a view of one block (detail::aosoa_block<N>) in which
///    element i is lane i - first: affine in the lane loop, so it vectorizes; i % N and i / N of
///    the whole view's arithmetic are not, and that loop stays scalar.
///  - The loop pragma (omp simd with OpenMP, else GCC ivdep / clang assume_safety) says what
///    for_each_index requires: f(v, i) touches element i only, so iterations are independent.
#pragma once

#include "../config.hpp"
#include "../policies.hpp"
#include "../view.hpp"
#include "storage.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#if defined(_OPENMP)
#  include <omp.h>
#endif

/// Attributes of the out-of-line loop functions; define it (e.g. empty) to override.
#ifndef LAYOUT_HOST_LOOP
#  if defined(__GNUC__) || defined(__clang__)
#    define LAYOUT_HOST_LOOP __attribute__((noinline, flatten))
#  else
#    define LAYOUT_HOST_LOOP
#  endif
#endif

/// The pragma on the host loops that says their iterations are independent. With OpenMP,
/// `omp simd`: it also overrides g++'s -O2 cost model ("very cheap", which vectorizes no loop
/// that needs a remainder), so that a SoA drift vectorizes at -O2 as at -O3 (the hand-written
/// loop at -O2 stays scalar).
#ifndef LAYOUT_IVDEP
#  if defined(_OPENMP)
#    define LAYOUT_IVDEP _Pragma("omp simd")
#  elif defined(__clang__)
#    define LAYOUT_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#  elif defined(__GNUC__) && !defined(__CUDACC__)
#    define LAYOUT_IVDEP _Pragma("GCC ivdep")
#  else
#    define LAYOUT_IVDEP
#  endif
#endif

namespace layout::detail {

// assume_safety makes clang warn (-Wpass-failed) when a functor's loop cannot vectorize anyway;
// that is not the user's error, so the warning is silenced here rather than failing -Werror.
#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wpass-failed"
#endif

template <class T, class F>
LAYOUT_HOST_LOOP void host_loop_aos(F& f, std::size_t n, std::size_t begin, std::size_t end,
                                    T* LAYOUT_RESTRICT data) {
    const view<T, policy::aos> v(data, n);
    end = std::min(end, n); // a no-op that lets debug builds' bounds checks (i < n) fold away
    LAYOUT_IVDEP
    for (std::size_t i = begin; i < end; ++i) f(v, i);
}

template <class T, class F, class... Leaf>
LAYOUT_HOST_LOOP void host_loop_soa(F& f, std::size_t n, std::size_t begin, std::size_t end,
                                    Leaf* LAYOUT_RESTRICT... columns) {
    const view<T, policy::soa> v(n, columns...);
    end = std::min(end, n); // a no-op that lets debug builds' bounds checks (i < n) fold away
    LAYOUT_IVDEP
    for (std::size_t i = begin; i < end; ++i) f(v, i);
}

/// Blocks [first_block, end_block): the full ones with a fixed-count lane loop (what vectorizes
/// without a remainder), then the partial last block of the view, if it is in the range.
template <class T, std::size_t Lanes, class F>
LAYOUT_HOST_LOOP void host_loop_aosoa(F& f, std::size_t n, std::size_t first_block,
                                      std::size_t end_block,
                                      copy_const_t<T, std::byte>* LAYOUT_RESTRICT data) {
    constexpr std::size_t block_bytes =
        mapping<std::remove_const_t<T>, policy::aosoa<Lanes>>::block_bytes;
    using block_view = view<T, aosoa_block<Lanes>>;
    const std::size_t full_end = std::min(end_block, n / Lanes);
    for (std::size_t k = first_block; k < full_end; ++k) {
        const block_view b({data + k * block_bytes, k * Lanes}, n);
        LAYOUT_IVDEP
        for (std::size_t l = 0; l < Lanes; ++l) f(b, k * Lanes + l);
    }
    if (full_end < end_block) {
        const std::size_t k = full_end;
        const block_view b({data + k * block_bytes, k * Lanes}, n);
        // min: tells the compiler that the lanes are those of this block (n - k * Lanes is
        // fewer than Lanes anyway), so that the cursor's other-block path folds away here too.
        const std::size_t lanes = std::min(n - k * Lanes, Lanes);
        for (std::size_t l = 0; l < lanes; ++l) f(b, k * Lanes + l);
    }
}

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

/// How a view's work is cut between threads: in units of elements (aos, soa) or blocks
/// (aosoa), each thread's share a multiple of `grain` units so that no two threads write into
/// one 64-byte cache line of a column (for leaves of 1 to 8 bytes: 64 elements).
template <class Layout>
struct host_units {
    static constexpr std::size_t grain = 64;
    static constexpr std::size_t count(std::size_t n) { return n; }
};
template <std::size_t Lanes>
struct host_units<policy::aosoa<Lanes>> {
    static constexpr std::size_t grain = 1;
    static constexpr std::size_t count(std::size_t n) { return (n + Lanes - 1) / Lanes; }
};

/// f over units [begin, end) of v, in the loop for v's layout.
template <class T, class Layout, class F>
void host_loop(F& f, const view<T, Layout>& v, std::size_t begin, std::size_t end) {
    if constexpr (std::is_same_v<Layout, policy::aos>) {
        host_loop_aos<T>(f, v.size(), begin, end, v.storage().data);
    } else if constexpr (std::is_same_v<Layout, policy::soa>) {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            host_loop_soa<T>(
                f, v.size(), begin, end,
                static_cast<copy_const_t<T, leaf_t<T, L>>*>(v.storage().columns[L])...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    } else {
        host_loop_aosoa<T, Layout::lanes>(f, v.size(), begin, end, v.storage().data);
    }
}

/// Whether V is a view whose layout host_loop has a loop for (anything else, e.g. an
/// aosoa_block view, takes a plain loop).
template <class V>
inline constexpr bool has_host_loop_v = false;
template <class T>
inline constexpr bool has_host_loop_v<view<T, policy::aos>> = true;
template <class T>
inline constexpr bool has_host_loop_v<view<T, policy::soa>> = true;
template <class T, std::size_t Lanes>
inline constexpr bool has_host_loop_v<view<T, policy::aosoa<Lanes>>> = true;

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
