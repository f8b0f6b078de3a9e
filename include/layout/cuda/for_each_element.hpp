/// \file cuda/for_each_element.hpp
/// for_each_index for a functor that touches its own element only: f(v, i) reads and writes
/// element i and no other.
///
///     layout::cuda::for_each_element(dev.view(), integrate{...});   // same functor, same view
///
/// That promise lets AoS move whole elements as a block of threads: each block's 256 elements
/// come in and go out through shared memory as 16-byte accesses of consecutive addresses (a warp
/// reads 512 contiguous bytes per instruction), where one thread per element reads 16 bytes every
/// sizeof(T) bytes. A thread then runs f on a copy of its element in registers. Only the 4-byte
/// words whose bits f changed are written back, so a field f does not write is never stored
/// (another kernel may be writing it) and the result is bit for bit for_each_index's.
/// H100/H200, 64-byte element, 15 of 16 fields: 1.75x faster than for_each_index's 16-byte
/// accesses (bench/results/h100-2026-11-26). Other layouts already read each leaf coalesced:
/// there it is for_each_index.
///
/// The functor sees the view it would see under for_each_index (view<T, aos>, the same i), but
/// element j != i of that view is not there: reading or writing it is undefined (debug builds
/// catch j > i), and its size() is i + 1. Elements of sizes that are not a multiple of 4 bytes, larger than 128 bytes, or
/// not 4-byte aligned run under for_each_index.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/for_each_element.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../layouts/concept.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "error.hpp"
#include "for_each.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace layout::cuda {
namespace detail {

/// Elements a block stages: one per thread.
inline constexpr unsigned staged_elements = 256;

/// Whether elements of T can be moved as 4-byte words and held in registers (16 words ...).
template <class T>
inline constexpr bool stageable_v =
    std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0 && sizeof(T) <= 128 && alignof(T) >= 4;

/// Whether Layout keeps whole elements sizeof(T) apart behind one pointer that rebuilds its
/// storage (AoS), so that a block's elements are one run of bytes and one element in registers
/// can stand for the view.
template <class T, class Layout>
inline constexpr bool stages_elements_v =
    layout::detail::packed_elements_v<T, Layout> && stageable_v<std::remove_const_t<T>> &&
    requires(T* p) { layout::detail::storage<T, Layout>::rebuild(p); };

/// Where unit u of the tile lives in shared memory: u with its low 3 bits xor-ed with the next
/// 3, so that 8 threads reading 8 consecutive units, and 8 threads reading unit c of 8
/// consecutive 64-byte elements, hit 8 different 16-byte bank groups.
__device__ LAYOUT_FORCEINLINE unsigned staged_slot(unsigned u) noexcept {
    return u ^ ((u >> 3) & 7u);
}

/// Stores `now` where its words differ from `before` (all of it where all do).
__device__ LAYOUT_FORCEINLINE void store_changed(uint4* at, const uint4& now,
                                                 const uint4& before) noexcept {
    const bool x = now.x != before.x, y = now.y != before.y, z = now.z != before.z,
               w = now.w != before.w;
    if (x && y && z && w) {
        *at = now;
        return;
    }
    auto* word = reinterpret_cast<unsigned*>(at);
    if (x) word[0] = now.x;
    if (y) word[1] = now.y;
    if (z) word[2] = now.z;
    if (w) word[3] = now.w;
}
__device__ LAYOUT_FORCEINLINE void store_changed(unsigned* at, unsigned now,
                                                 unsigned before) noexcept {
    if (now != before) *at = now;
}

/// One block: staged_elements elements from first, moved in Unit-sized pieces (uint4 where
/// sizeof(T) and the pointer allow, else 4-byte words).
LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class F, class Unit, class M>
__global__ void __launch_bounds__(staged_elements)
    for_each_element_kernel(F f, std::size_t n, T* LAYOUT_RESTRICT data) {
    using value = std::remove_const_t<T>;
    constexpr unsigned units_per_element = sizeof(value) / sizeof(Unit);
    __shared__ Unit tile[staged_elements * units_per_element];

    const std::size_t first = std::size_t{blockIdx.x} * staged_elements;
    const unsigned count =
        n - first < staged_elements ? static_cast<unsigned>(n - first) : staged_elements;
    const unsigned units = count * units_per_element;
    auto* global = reinterpret_cast<Unit*>(const_cast<value*>(data + first));

    Unit before[units_per_element]; // what this thread read: its units are its own to write
    LAYOUT_UNROLL
    for (unsigned k = 0; k < units_per_element; ++k) {
        const unsigned u = threadIdx.x + k * staged_elements;
        if (u < units) {
            before[k] = global[u];
            tile[staged_slot(u)] = before[k];
        }
    }
    __syncthreads();
    if (threadIdx.x < count) {
        Unit parts[units_per_element];
        LAYOUT_UNROLL
        for (unsigned c = 0; c < units_per_element; ++c)
            parts[c] = tile[staged_slot(threadIdx.x * units_per_element + c)];
        value element;
        std::memcpy(&element, parts, sizeof(value));
        // The view f expects, with element i where v[i] looks: only that element is there.
        const std::size_t i = first + threadIdx.x;
        const view<T, Layout, M> v(layout::detail::storage<T, Layout>::rebuild(&element - i),
                                   i + 1);
        f(v, i);
        if constexpr (!std::is_const_v<T>) {
            std::memcpy(parts, &element, sizeof(value));
            LAYOUT_UNROLL
            for (unsigned c = 0; c < units_per_element; ++c)
                tile[staged_slot(threadIdx.x * units_per_element + c)] = parts[c];
        }
    }
    if constexpr (!std::is_const_v<T>) {
        __syncthreads();
        LAYOUT_UNROLL
        for (unsigned k = 0; k < units_per_element; ++k) {
            const unsigned u = threadIdx.x + k * staged_elements;
            if (u < units) store_changed(global + u, tile[staged_slot(u)], before[k]);
        }
    }
}

} // namespace detail

/// Launches f(v, i) for every i on stream, where f touches element i only (see the file's
/// comment); whole elements (AoS) are staged through shared memory, any other layout runs
/// for_each_index(v, f, stream).
template <class T, class Layout, class M, class F>
void for_each_element(const view<T, Layout, M>& v, const F& f, stream_ref stream = {}) {
    using value = std::remove_const_t<T>;
    if constexpr (detail::stages_elements_v<T, Layout>) {
        if (v.size() == 0) return;
        T* const data = v.storage().split([](T* p) { return p; });
        const auto address = reinterpret_cast<std::uintptr_t>(data);
        const unsigned grid =
            detail::grid_size(v.size(), detail::staged_elements, "layout::cuda::for_each_element");
        if (sizeof(value) % 16 == 0 && address % 16 == 0)
            detail::for_each_element_kernel<T, Layout, F, uint4, M>
                <<<grid, detail::staged_elements, 0, native(stream)>>>(f, v.size(), data);
        else if (address % 4 == 0)
            detail::for_each_element_kernel<T, Layout, F, unsigned, M>
                <<<grid, detail::staged_elements, 0, native(stream)>>>(f, v.size(), data);
        else
            return for_each_index(v, f, stream);
        check_launch("layout::cuda::for_each_element");
    } else {
        for_each_index(v, f, stream);
    }
}

} // namespace layout::cuda
