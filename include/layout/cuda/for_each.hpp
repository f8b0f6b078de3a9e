/// \file cuda/for_each.hpp
/// Runs an element-wise kernel over a view on the GPU: one thread per element, f(v, i).
///
///     layout::cuda::for_each_index(dev.view(), drift{0.01f});      // same functor as the host
///
/// The kernel is shaped like a hand-written one (i = blockIdx.x * blockDim.x + threadIdx.x;
/// if (i < n)) and receives the view's pointers as separate __restrict__ parameters, one per
/// SoA column, so the compiler knows what a hand-written kernel's signature tells it: a store
/// to one column never changes another. (A view passed whole is a struct, and nvcc ignores
/// __restrict__ on struct members: a kernel that writes some columns and then reads others
/// would reload them.)
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/for_each.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../view.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

template <class T, class Layout>
struct pointer_pack; // the view's pointers as a typed pack, and back

template <class T>
struct pointer_pack<T, policy::aos> {
    template <class F>
    static void apply(const view<T, policy::aos>& v, F&& f) { f(v.storage().data); }
    LAYOUT_HOST_DEVICE static view<T, policy::aos> rebuild(std::size_t n, T* data) { return {data, n}; }
};

template <class T, std::size_t Lanes>
struct pointer_pack<T, policy::aosoa<Lanes>> {
    using byte = layout::detail::copy_const_t<T, std::byte>;
    template <class F>
    static void apply(const view<T, policy::aosoa<Lanes>>& v, F&& f) { f(v.storage().data); }
    LAYOUT_HOST_DEVICE static view<T, policy::aosoa<Lanes>> rebuild(std::size_t n, byte* data) {
        return {data, n};
    }
};

template <class T>
struct pointer_pack<T, policy::soa> {
    // The kernel gets mutable pointers even for a read-only view, which it rebuilds as
    // read-only: nvcc's generated launch stub cannot spell the const leaf types (a parse error
    // in the stub), and ld.global.nc comes from restrict plus no stores, not from const.
    template <class F>
    static void apply(const view<T, policy::soa>& v, F&& f) {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            f(static_cast<leaf_t<std::remove_const_t<T>, L>*>(
                const_cast<void*>(static_cast<const void*>(v.storage().columns[L])))...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
    }
    template <class... Columns>
    LAYOUT_HOST_DEVICE static view<T, policy::soa> rebuild(std::size_t n, Columns*... columns) {
        return {n, columns...};
    }
};

LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class F, class... Pointee>
__global__ void for_each_index_kernel(F f, std::size_t n, Pointee* LAYOUT_RESTRICT... pointers) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) f(pointer_pack<T, Layout>::rebuild(n, pointers...), i);
}

} // namespace detail

/// Launches f(v, i) for every i on stream (asynchronous, like a kernel launch).
template <class T, class Layout, class F>
void for_each_index(const view<T, Layout>& v, const F& f, cudaStream_t stream = 0,
                    unsigned block = 256) {
    if (v.size() == 0) return;
    const std::size_t blocks = (v.size() + block - 1) / block;
    if (blocks > 0x7fffffffu)
        throw std::length_error("layout::cuda::for_each_index: too many elements for one grid");
    detail::pointer_pack<T, Layout>::apply(v, [&](auto*... pointers) {
        detail::for_each_index_kernel<T, Layout>
            <<<static_cast<unsigned>(blocks), block, 0, stream>>>(f, v.size(), pointers...);
    });
    check_launch("layout::cuda::for_each_index");
}

} // namespace layout::cuda
