/// \file for_each.hpp
/// Runs an element-wise kernel over a view on the host: f(v, i) for every i in [0, v.size()).
///
///     struct drift { float dt;
///         template <class View> LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
///             auto&& [x, y, z, vx, vy, vz, m, q] = p[i];  x += vx * dt;  y += vy * dt;  z += vz * dt;
///         } };
///     layout::for_each_index(particles.view(), drift{0.01f});                 // all cores
///     layout::for_each_index(layout::exec::serial, particles.view(), drift{0.01f});  // one
///
/// The same functor runs on the GPU through layout::cuda::for_each_index (<layout/cuda/for_each.hpp>).
/// Iterations must be independent (f(v, i) touches element i only, and f may be called from
/// several threads at once, so its operator() must not write the functor's own state).
/// Exceptions, one rule for every layout, with or without OpenMP: under exec::serial an
/// exception f throws reaches the caller (the elements before it updated, the rest not); under
/// exec::parallel, as under std::execution::par, a throw ends the program (std::terminate),
/// whatever the size. A serial loop is `omp simd` only where f's operator() is noexcept: mark
/// it noexcept to get that at -O2 (host_loop.hpp). In return the loop runs at
/// the speed of the hand-written one for each layout, vectorized (host_loop.hpp says how):
///   - aos, soa: f(v, i) in one loop over i, v rebuilt from __restrict__ pointers;
///   - aosoa<N>, and a split with an aosoa<N> part: a loop over blocks and, inside, over the
///     N lanes; f is called with a view of the current block (layout_type
///     detail::aosoa_block<N>, or the split of it and the other part) in which v[i] is element
///     i, as in the whole view, and v.size() is the whole view's size.
/// Default policy: exec::parallel (all OpenMP threads for 32768 elements or more, when compiled
/// with OpenMP; serial otherwise). See <layout/execution.hpp>.
#pragma once

#include "backend.hpp"
#include "config.hpp"
#include "execution.hpp"
#include "host_loop.hpp"
#include "view.hpp"

#include <cstddef>
#include <type_traits>

namespace layout {

namespace detail {
/// f, called so that any exception ends the program: exec::parallel's rule, kept alike on every
/// thread count and layout (and what lets its loops be omp simd).
template <class F>
struct terminate_on_throw {
    F& f;
    LAYOUT_EXEC_CHECK_DISABLE
    template <class View>
    LAYOUT_FORCEINLINE void operator()(const View& v, std::size_t i) const noexcept {
        f(v, i);
    }
};
} // namespace detail

/// f(v, i) for every i of v, on this thread (exec::serial) or all cores (exec::parallel).
LAYOUT_EXEC_CHECK_DISABLE
template <class Policy, class View, class F>
    requires exec::is_policy_v<Policy>
void for_each_index(const Policy& policy, const View& v, F&& f) {
    if constexpr (detail::on_device_v<View>) {
        (void)policy; // a device view: one thread an element on the GPU (backend.hpp)
        decltype(detail::device_backend_for<View>())::for_each_index(v, f);
    } else if constexpr (std::is_same_v<Policy, exec::parallel_policy>) {
        detail::terminate_on_throw<std::remove_reference_t<F>> g{f};
        if constexpr (detail::has_host_loop_v<View>) {
            detail::host_for_each(g, v, true, policy.min_elements);
        } else {
            const std::size_t n = v.size();
            for (std::size_t i = 0; i < n; ++i) g(v, i);
        }
    } else if constexpr (detail::has_host_loop_v<View>) {
        detail::host_for_each(f, v, false, 0);
    } else {
        // Anything else with size() and operator[] that f accepts: a plain loop.
        (void)policy;
        const std::size_t n = v.size();
        for (std::size_t i = 0; i < n; ++i) f(v, i);
    }
}

/// f(v, i) for every i of v, under exec::parallel.
LAYOUT_EXEC_CHECK_DISABLE
template <class View, class F>
    requires(!exec::is_policy_v<View>)
void for_each_index(const View& v, F&& f) {
    for_each_index(exec::parallel, v, f);
}

} // namespace layout
