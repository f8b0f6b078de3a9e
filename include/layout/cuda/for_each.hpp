/// \file cuda/for_each.hpp
/// Runs an element-wise kernel over a view on the GPU: f(v, i) for every i.
///
///     layout::cuda::for_each_index(dev.view(), drift{0.01f});      // one per thread, like a raw kernel
///     layout::cuda::for_each_index<4>(dev.view(), drift{0.01f});   // 4 elements per thread
///     layout::cuda::for_each_index<layout::cuda::per_thread_auto>(dev.view(), drift{0.01f});
///
/// The kernel receives the view's pointers as separate __restrict__ parameters, one per SoA
/// column, so the compiler knows what a hand-written kernel's signature tells it: a store to one
/// column never changes another. (A view passed whole is a struct, and nvcc ignores __restrict__
/// on struct members: a kernel that writes some columns and then reads others would reload them.)
/// With one element per thread the kernel is shaped like a hand-written one
/// (i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)).
///
/// With PerThread = 2, 4 or 8, each thread runs f on PerThread elements. Under SoA, where every
/// column is aligned to PerThread elements (always, for layout's own containers), they are
/// consecutive, the kernel tells the compiler the alignment, and it turns the PerThread accesses
/// to a column into one vector access (LDG.64 / LDG.128). Under AoS and AoSoA, and for SoA views
/// whose columns are not so aligned, the elements of a thread are blockDim.x apart instead, so
/// that the accesses stay coalesced and more of them are in flight per thread.
///
/// for_each_index<per_thread_auto> lets the layout choose (default_per_thread<T, Layout>) when the
/// launch is large enough to fill the device with fewer threads, else one per thread. It is not
/// the default: measurements behind that are in bench/results/h100-2026-11-24.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/for_each.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout::cuda {

/// for_each_index<per_thread_auto>: let the layout and the size choose the elements per thread.
inline constexpr std::size_t per_thread_auto = 0;

/// Elements per thread that for_each_index<per_thread_auto> gives a kernel, per layout. SoA:
/// enough consecutive elements for one 16-byte access to the widest column (4 for float
/// columns, 2 for double). AoS and AoSoA: one, because they gain nothing from more. Not the
/// default count: a kernel with few elements and much work each leaves SMs idle with fewer
/// threads (bench/per_thread_gpu; the measurements are in bench/results/h100-2026-11-24).
template <class T, class Layout>
inline constexpr std::size_t default_per_thread = [] {
    if constexpr (layout::detail::contiguous_columns_v<view<T, Layout>>) {
        std::size_t widest = 1;
        for (const auto& leaf : layout::detail::leaf_table<T>)
            widest = leaf.size > widest ? leaf.size : widest;
        return widest >= 8 ? std::size_t{2} : std::size_t{4};
    } else {
        return std::size_t{1};
    }
}();

namespace detail {

/// The view of n elements that the kernel rebuilds from its pointer arguments (the layout's
/// storage::split on the host, rebuild here).
template <class T, class Layout, class... Pointee>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE view<T, Layout> rebuild(std::size_t n,
                                                             Pointee*... pointers) noexcept {
    return {layout::detail::storage<T, Layout>::rebuild(pointers...), n};
}

LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class F, class... Pointee>
__global__ void for_each_index_kernel(F f, std::size_t n, Pointee* LAYOUT_RESTRICT... pointers) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) f(rebuild<T, Layout>(n, pointers...), i);
}

/// PerThread elements per thread. Consecutive (SoA with every column aligned to PerThread of
/// its elements, which the compiler is told: the accesses to a column merge into one vector
/// access), or blockDim.x apart (otherwise: a warp still reads one element after the other,
/// coalesced; consecutive elements per thread would spread a warp's accesses PerThread times
/// wider).
LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, std::size_t PerThread, bool Consecutive, class F,
          class... Pointee>
__global__ void for_each_index_block_kernel(F f, std::size_t n,
                                            Pointee* LAYOUT_RESTRICT... pointers) {
    if constexpr (Consecutive) {
        const auto v = rebuild<T, Layout>(
            n, static_cast<Pointee*>(
                   __builtin_assume_aligned(pointers, PerThread * sizeof(Pointee)))...);
        const std::size_t first =
            (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) * PerThread;
        if (first + PerThread <= n) {
            LAYOUT_UNROLL
            for (std::size_t k = 0; k < PerThread; ++k) f(v, first + k);
        } else { // the last thread with work, when PerThread does not divide n
            LAYOUT_UNROLL
            for (std::size_t k = 0; k < PerThread - 1; ++k)
                if (first + k < n) f(v, first + k);
        }
    } else {
        const auto v = rebuild<T, Layout>(n, pointers...);
        const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * PerThread + threadIdx.x;
        LAYOUT_UNROLL
        for (std::size_t k = 0; k < PerThread; ++k)
            if (first + k * blockDim.x < n) f(v, first + k * blockDim.x);
    }
}

/// Whether every pointer is aligned to `elements` of its pointee.
template <class... Pointee>
bool aligned_to(std::size_t elements, Pointee*... pointers) {
    return ((reinterpret_cast<std::uintptr_t>(pointers) % (elements * sizeof(Pointee)) == 0) &&
            ...);
}

} // namespace detail

namespace detail {
/// Whether n elements at per_thread a thread still fill every SM of the current device with
/// full blocks of threads (2048 threads an SM on sm_90): with fewer threads than that, giving
/// each more elements leaves SMs idle.
inline bool fills_device(std::size_t n, std::size_t per_thread) {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return n / per_thread >= std::size_t(sms) * 2048;
}

template <std::size_t PerThread, class T, class Layout, class F>
void launch_for_each(const view<T, Layout>& v, const F& f, cudaStream_t stream, unsigned block) {
    const std::size_t threads = (v.size() + PerThread - 1) / PerThread;
    const unsigned grid = grid_size(threads, block, "layout::cuda::for_each_index");
    v.storage().split([&]<class... Pointee>(Pointee*... pointers) {
        if constexpr (PerThread == 1) {
            for_each_index_kernel<T, Layout><<<grid, block, 0, stream>>>(f, v.size(), pointers...);
        } else {
            if constexpr (layout::detail::contiguous_columns_v<view<T, Layout>>) {
                if (aligned_to(PerThread, pointers...)) {
                    for_each_index_block_kernel<T, Layout, PerThread, true>
                        <<<grid, block, 0, stream>>>(f, v.size(), pointers...);
                    return;
                }
            }
            for_each_index_block_kernel<T, Layout, PerThread, false>
                <<<grid, block, 0, stream>>>(f, v.size(), pointers...);
        }
    });
    check_launch("layout::cuda::for_each_index");
}
} // namespace detail

/// Launches f(v, i) for every i on stream (asynchronous, like a kernel launch), PerThread
/// elements per thread (1, 2, 4 or 8; per_thread_auto: default_per_thread where the launch
/// still fills the device, else 1), `block` threads per block.
template <std::size_t PerThread = 1, class T, class Layout, class F>
void for_each_index(const view<T, Layout>& v, const F& f, cudaStream_t stream = 0,
                    unsigned block = detail::block_size) {
    static_assert(PerThread == per_thread_auto || PerThread == 1 || PerThread == 2 ||
                      PerThread == 4 || PerThread == 8,
                  "layout: for_each_index<PerThread>: PerThread is 1, 2, 4 or 8 (or per_thread_auto)");
    if (v.size() == 0) return;
    if constexpr (PerThread == per_thread_auto) {
        constexpr std::size_t chosen = default_per_thread<std::remove_const_t<T>, Layout>;
        if (chosen > 1 && detail::fills_device(v.size(), chosen))
            detail::launch_for_each<chosen>(v, f, stream, block);
        else
            detail::launch_for_each<1>(v, f, stream, block);
    } else {
        detail::launch_for_each<PerThread>(v, f, stream, block);
    }
}

} // namespace layout::cuda
