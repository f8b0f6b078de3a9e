/// \file cuda/for_each.hpp
/// Runs an element-wise kernel over a view on the GPU: f(v, i) for every i.
///
///     layout::cuda::for_each_index(dev.view(), drift{0.01f});      // one per thread, like a raw kernel
///     layout::cuda::for_each_index<4>(dev.view(), drift{0.01f});   // 4 elements per thread
///     layout::cuda::for_each_index<layout::cuda::per_thread_auto>(dev.view(), drift{0.01f});
///                                                  // streaming kernels: the layout's choice
///
/// The kernel receives the view's pointers as separate __restrict__ parameters, one per SoA
/// column, so the compiler knows what a hand-written kernel's signature tells it: a store to one
/// column never changes another. (A view passed whole is a struct, and nvcc ignores __restrict__
/// on struct members: a kernel that writes some columns and then reads others would reload them.)
/// With one element per thread the kernel is shaped like a hand-written one
/// (i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)), and it reads element i's leaves
/// before f runs, so that f's loads are issued together as a hand-written kernel's are (see
/// call_leaves_first below).
///
/// Vector accesses (cuda/detail/vector_access.hpp): where the pointers are aligned as the layout
/// allows, the kernel tells the compiler so, and it merges neighbouring accesses of a thread into
/// 8- and 16-byte ones: the leaves of one AoS element (a functor's fields, or the whole element
/// of T t = v[i]; v[i] = t), and the PerThread consecutive elements of a SoA column or an AoSoA
/// lane run. Elsewhere the same kernel runs with scalar accesses.
///
/// With PerThread = 2, 4 or 8, each thread runs f on PerThread elements: consecutive ones where
/// every leaf's values are adjacent in runs that PerThread divides (SoA, AoSoA) and the pointers
/// are aligned to make them one vector access, else blockDim.x apart (AoS, or unaligned views),
/// so that the accesses stay coalesced and more of them are in flight per thread.
///
/// The default is one element a thread: never slower than the hand-written kernel. Several a
/// thread help streaming kernels and hurt kernels that gather or loop per element (a push reading
/// its cell's field: 1.59x at 4 a thread under SoA), which the host cannot tell apart, so they
/// are asked for: per_thread_auto takes default_per_thread<T, Layout> where the launch still
/// fills the device with that many elements a thread, else one per thread. Measurements:
/// bench/results (per_thread_gpu).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/for_each.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "detail/vector_access.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace layout::cuda {

/// for_each_index<per_thread_auto> (the default): the layout and the size choose.
inline constexpr std::size_t per_thread_auto = 0;

/// Elements per thread that the default gives a kernel whose launch fills the device: where a
/// thread's elements can be consecutive (SoA; AoSoA whose lane count it divides), enough of them
/// for one 16-byte access to the widest leaf (4 for float leaves, 2 for double); else one, since
/// elements a block apart gain nothing measurable (AoS, bench/results/h100-2026-11-24).
template <class T, class Layout>
inline constexpr std::size_t default_per_thread = [] {
    constexpr std::size_t count = [] {
        std::size_t widest = 1;
        for (const auto& leaf : layout::detail::leaf_table<T>)
            widest = leaf.size > widest ? leaf.size : widest;
        return widest >= 8 ? std::size_t{2} : std::size_t{4};
    }();
    return detail::consecutive_v<T, Layout, count> ? count : std::size_t{1};
}();

namespace detail {

/// The view of n elements that the kernel rebuilds from its pointer arguments (the layout's
/// storage::split on the host, rebuild here), with the alignment the host checked (Claimed).
template <class T, class Layout, std::size_t PerThread, bool Consecutive, bool Claimed, class M,
          class... Pointee>
__device__ LAYOUT_FORCEINLINE view<T, Layout, M> rebuild(std::size_t n,
                                                         Pointee*... pointers) noexcept {
    using claim = alignment_claim<std::remove_const_t<T>, Layout, PerThread, Consecutive>;
    return {layout::detail::storage<T, Layout>::rebuild(
                claim_aligned < Claimed ? claim::template bytes<Pointee>() : 0 > (pointers)...),
            n};
}

/// One leaf's value, read before f runs (leaves_read holds one per leaf).
template <std::size_t L, class X>
struct leaf_read {
    X value;
};
template <class T, class Seq>
struct leaves_read;
template <class T, std::size_t... L>
struct leaves_read<T, std::index_sequence<L...>> : leaf_read<L, leaf_t<T, L>>... {};

/// Keeps x alive to the end of the compiler's (NVVM's) optimizations and no further: an empty
/// asm statement that takes it emits no instruction, so in the PTX the load that made x is
/// unused wherever f did not read the same leaf itself, and ptxas removes it (checked in the
/// SASS: a write-only functor's kernel has no LDG).
template <class X>
__device__ LAYOUT_FORCEINLINE void keep_until_ptxas(const X& x) noexcept {
    if constexpr (!std::is_trivially_copyable_v<X>)
        return; // not read ahead: dead at once
    else if constexpr (std::is_same_v<X, float>)
        asm volatile("" ::"f"(x));
    else if constexpr (std::is_same_v<X, double>)
        asm volatile("" ::"d"(x));
    else if constexpr (sizeof(X) == 8)
        asm volatile("" ::"l"(__builtin_bit_cast(unsigned long long, x)));
    else if constexpr (sizeof(X) == 4)
        asm volatile("" ::"r"(__builtin_bit_cast(unsigned, x)));
    else if constexpr (sizeof(X) == 2)
        asm volatile("" ::"h"(__builtin_bit_cast(unsigned short, x)));
    else if constexpr (sizeof(X) == 1)
        asm volatile("" ::"h"(static_cast<unsigned short>(__builtin_bit_cast(unsigned char, x))));
}

/// f(v, i), with every leaf of element i read first. Why: f reaches the leaves through
/// references in its source order, and a functor that reads a leaf after storing another (a
/// push: ux += ..., then uy, ..., then x += ux * dt) keeps that order in the PTX, where ptxas
/// may not move a load above a store to another column (the kernel's __restrict__ does not reach
/// it): each load then waits for the arithmetic before it, where a hand-written kernel (double
/// px = x[i], ...) issues all its loads at once; under AoS the interleaving also keeps ptxas from
/// pairing neighbouring leaves into one wider access. Read here first, the values are forwarded
/// to f's own loads (NVVM knows from __restrict__ and the leaves' offsets that f's stores to other
/// leaves cannot change them), so f's loads move to the top; leaves f does not read are loaded
/// for nothing in the PTX and removed by ptxas (keep_until_ptxas). f still gets the view and i.
/// Debug device code (-G) keeps every load, so there f is called alone.
LAYOUT_EXEC_CHECK_DISABLE
template <class F, class V>
__device__ LAYOUT_FORCEINLINE void call_leaves_first(const F& f, const V& v, std::size_t i) {
#if defined(__CUDACC_DEBUG__)
    f(v, i);
#else
    using value = std::remove_const_t<typename V::value_type>;
    using leaves = std::make_index_sequence<leaf_count_v<value>>;
    const auto element = v.storage().at(i);
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        const leaves_read<value, leaves> read{{element.template leaf<L>()}...};
        f(v, i);
        (keep_until_ptxas(static_cast<const leaf_read<L, leaf_t<value, L>>&>(read).value), ...);
    }(leaves{});
#endif
}

/// PerThread elements per thread: one (the hand-written kernel's shape); consecutive ones
/// (their accesses to a leaf merge into one vector access); or blockDim.x apart (a warp still
/// reads one element after the other, coalesced; consecutive elements without vector accesses
/// would spread a warp's accesses PerThread times wider).
LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class F, std::size_t PerThread, bool Consecutive, bool Claimed,
          class M, class... Pointee>
__global__ void for_each_index_kernel(F f, std::size_t n, Pointee* LAYOUT_RESTRICT... pointers) {
    const auto v = rebuild<T, Layout, PerThread, Consecutive, Claimed, M>(n, pointers...);
    if constexpr (PerThread == 1) {
        const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
        if (i < n) call_leaves_first(f, v, i);
    } else if constexpr (Consecutive) {
        const std::size_t first = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) * PerThread;
        // In blocks (AoSoA): a view of the block holding the run, with lanes affine in i.
        const auto run = [&] {
            if constexpr (requires { typename Layout::block_layout; })
                return view<T, typename Layout::block_layout, M>(v.storage().block_of(first), n);
            else
                return v;
        }();
        if (first + PerThread <= n) {
            LAYOUT_UNROLL
            for (std::size_t k = 0; k < PerThread; ++k) f(run, first + k);
        } else { // the last thread with work, when PerThread does not divide n
            LAYOUT_UNROLL
            for (std::size_t k = 0; k < PerThread - 1; ++k)
                if (first + k < n) f(run, first + k);
        }
    } else {
        const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * PerThread + threadIdx.x;
        LAYOUT_UNROLL
        for (std::size_t k = 0; k < PerThread; ++k)
            if (first + k * blockDim.x < n) f(v, first + k * blockDim.x);
    }
}

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

/// Launches the kernel that makes the layout's alignment claim where the pointers bear it out,
/// else the one that makes none (and, there, elements a block apart rather than consecutive).
template <std::size_t PerThread, class T, class Layout, class M, class F>
void launch_for_each(const view<T, Layout, M>& v, const F& f, cudaStream_t stream, unsigned block) {
    using value = std::remove_const_t<T>;
    constexpr bool consecutive = consecutive_v<value, Layout, PerThread>;
    using claim = alignment_claim<value, Layout, PerThread, consecutive>;
    const std::size_t threads = (v.size() + PerThread - 1) / PerThread;
    const unsigned grid = grid_size(threads, block, "layout::cuda::for_each_index");
    v.storage().split([&]<class... Pointee>(Pointee*... pointers) {
        if constexpr (claim::template any<Pointee...>) {
            if (claim::holds(pointers...)) {
                for_each_index_kernel<T, Layout, F, PerThread, consecutive, true, M>
                    <<<grid, block, 0, stream>>>(f, v.size(), pointers...);
                return;
            }
        }
        for_each_index_kernel<T, Layout, F, PerThread, false, false, M>
            <<<grid, block, 0, stream>>>(f, v.size(), pointers...);
    });
    check_launch("layout::cuda::for_each_index");
}

} // namespace detail

/// Launches f(v, i) for every i on stream (asynchronous, like a kernel launch), PerThread
/// elements per thread (1, the default, 2, 4 or 8; per_thread_auto: default_per_thread where the
/// launch still fills the device, else 1), `block` threads per block.
template <std::size_t PerThread = 1, class T, class Layout, class M, class F>
void for_each_index(const view<T, Layout, M>& v, const F& f, stream_ref stream = {},
                    unsigned block = detail::block_size) {
    static_assert(
        PerThread == per_thread_auto || PerThread == 1 || PerThread == 2 || PerThread == 4 ||
            PerThread == 8,
        "layout: for_each_index<PerThread>: PerThread is 1, 2, 4 or 8 (or per_thread_auto)");
    if (v.size() == 0) return;
    if constexpr (PerThread == per_thread_auto) {
        constexpr std::size_t chosen = default_per_thread<std::remove_const_t<T>, Layout>;
        if (chosen > 1 && detail::fills_device(v.size(), chosen))
            detail::launch_for_each<chosen>(v, f, native(stream), block);
        else
            detail::launch_for_each<1>(v, f, native(stream), block);
    } else {
        detail::launch_for_each<PerThread>(v, f, native(stream), block);
    }
}

} // namespace layout::cuda
