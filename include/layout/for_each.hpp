/// \file for_each.hpp
/// Runs an element-wise kernel over a view on the host: f(v, i) for every i in [0, v.size()).
///
///     struct drift { float dt;
///         template <class View> LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
///             auto&& [x, y, z, vx, vy, vz, m, q] = p[i];  x += vx * dt;  y += vy * dt;  z += vz * dt;
///         } };
///     layout::for_each_index(particles.view(), drift{0.01f});   // vectorized under SoA
///
/// The same functor runs on the GPU through layout::cuda::for_each_index (<layout/cuda/for_each.hpp>).
/// Iterations must be independent (f(v, i) touches element i only): the loop tells the compiler
/// so, which is what lets it vectorize a SoA loop over eight columns without run-time alias
/// checks (g++ gives up after ten such checks). AoSoA loops are not vectorized by g++ 12: the
/// lane and block of i (i % N, i / N) are not affine in i.
#pragma once

#include "config.hpp"

#include <cstddef>

namespace layout {

// assume_safety makes clang warn (-Wpass-failed) when a functor's loop cannot vectorize anyway;
// that is not the user's error, so the warning is silenced here rather than failing -Werror.
#if defined(__clang__)
#  pragma clang diagnostic push
#  pragma clang diagnostic ignored "-Wpass-failed"
#endif

LAYOUT_EXEC_CHECK_DISABLE
template <class View, class F>
void for_each_index(const View& v, F&& f) {
    const std::size_t n = v.size();
#if defined(__clang__)
#  pragma clang loop vectorize(assume_safety)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#  pragma GCC ivdep
#endif
    for (std::size_t i = 0; i < n; ++i) f(v, i);
}

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

} // namespace layout
