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
