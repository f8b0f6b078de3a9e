/// \file execution.hpp
/// Execution policies of the host loops: where layout::for_each_index runs.
///
///     layout::for_each_index(v, f);                         // exec::parallel: all cores
///     layout::for_each_index(layout::exec::serial, v, f);   // this thread only
///     layout::for_each_index(layout::exec::parallel, v, f); // OpenMP threads, if compiled with it
///
/// exec::parallel uses OpenMP when the translation unit is compiled with it (-fopenmp; in CMake,
/// link OpenMP::OpenMP_CXX); without OpenMP it runs serially, like Eigen's loops. layout does not
/// force a threading runtime on its users: a header-only library cannot know whether the program
/// already runs its own thread pool. Both policies give the same results: each element is
/// written by one call of the functor, whichever thread makes it.
#pragma once

#include <cstddef>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace layout::exec {

/// One thread: the caller's.
struct serial_policy {};

/// All OpenMP threads (omp_get_max_threads(), so OMP_NUM_THREADS applies) for loops of at least
/// min_elements elements; smaller loops run serially, where starting threads costs more than it
/// saves (an OpenMP fork-join is a few microseconds; 32768 floats are ~10 us on one core).
struct parallel_policy {
    std::size_t min_elements = std::size_t{1} << 15;
};

inline constexpr serial_policy serial{};
inline constexpr parallel_policy parallel{};

template <class P>
inline constexpr bool is_policy_v = false;
template <>
inline constexpr bool is_policy_v<serial_policy> = true;
template <>
inline constexpr bool is_policy_v<parallel_policy> = true;

/// Whether exec::parallel can use more than one thread in this translation unit.
inline constexpr bool parallel_available =
#if defined(_OPENMP)
    true;
#else
    false;
#endif

} // namespace layout::exec

namespace layout::detail {

/// What a policy asks of a host loop of n elements: more than one thread or not. Never inside
/// a parallel region (the caller's threads already use the cores), never below min_elements.
inline bool use_threads(exec::serial_policy, std::size_t) noexcept { return false; }
inline bool use_threads(const exec::parallel_policy& policy, std::size_t n) noexcept {
#if defined(_OPENMP)
    return n >= policy.min_elements && !omp_in_parallel() && omp_get_max_threads() > 1;
#else
    (void)policy, (void)n;
    return false;
#endif
}

/// f(begin, end) over [0, count): in one call, or, with threads, one contiguous share per
/// OpenMP thread whose bounds are multiples of grain (so that no two threads write into one
/// cache line where grain units span one). f must not throw when threads is true.
///
///     run_shares(true, 1000, 64, f);   // 4 threads: f(0, 256) f(256, 512) f(512, 768) f(768, 1000)
template <class F>
void run_shares(bool threads, std::size_t count, std::size_t grain, F&& f) {
    if (count == 0) return;
#if defined(_OPENMP)
    if (threads && count > grain) {
        const std::size_t grains = (count + grain - 1) / grain;
#  pragma omp parallel
        {
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const auto all = static_cast<std::size_t>(omp_get_num_threads());
            const std::size_t begin = grains * t / all * grain;
            const std::size_t end = grains * (t + 1) / all * grain;
            if (begin < count && begin < end) f(begin, end < count ? end : count);
        }
        return;
    }
#else
    (void)threads, (void)grain;
#endif
    f(std::size_t{0}, count);
}

} // namespace layout::detail
