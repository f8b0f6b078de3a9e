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
/// checks (g++ gives up after ten such checks).
#pragma once

#include "config.hpp"

#include <cstddef>

namespace layout {

namespace detail {
template <class View>
concept blocked_view = requires { View::layout_type::lanes; };
} // namespace detail

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
    if constexpr (detail::blocked_view<View>) {
        // Blocks, then lanes: the inner loop has a constant trip count and contiguous lanes,
        // which the vectorizer handles; a flat loop would divide by the lane count per element.
        constexpr std::size_t lanes = View::layout_type::lanes;
        const std::size_t full = n / lanes * lanes;
        for (std::size_t b = 0; b < full; b += lanes) {
#if defined(__clang__)
#  pragma clang loop vectorize(assume_safety)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#  pragma GCC ivdep
#endif
            for (std::size_t lane = 0; lane < lanes; ++lane) f(v, b + lane);
        }
        for (std::size_t i = full; i < n; ++i) f(v, i);
    } else {
#if defined(__clang__)
#  pragma clang loop vectorize(assume_safety)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#  pragma GCC ivdep
#endif
        for (std::size_t i = 0; i < n; ++i) f(v, i);
    }
}

#if defined(__clang__)
#  pragma clang diagnostic pop
#endif

} // namespace layout
