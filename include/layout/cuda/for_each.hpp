/// \file cuda/for_each.hpp
/// Runs an element-wise kernel over a view on the GPU: one thread per element, f(v, i).
///
///     layout::cuda::for_each_index(dev.view(), drift{0.01f});      // same functor as the host
///
/// The generated kernel is shaped like a hand-written one (i = blockIdx.x * blockDim.x +
/// threadIdx.x; if (i < n)), so its machine code matches the raw kernel's.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/for_each.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

namespace layout::cuda {
namespace detail {
LAYOUT_EXEC_CHECK_DISABLE
template <class View, class F>
__global__ void for_each_index_kernel(View v, F f) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < v.size()) f(v, i);
}
} // namespace detail

/// Launches f(v, i) for every i on stream (asynchronous, like a kernel launch).
template <class View, class F>
void for_each_index(const View& v, const F& f, cudaStream_t stream = 0, unsigned block = 256) {
    if (v.size() == 0) return;
    const std::size_t blocks = (v.size() + block - 1) / block;
    if (blocks > 0x7fffffffu)
        throw std::length_error("layout::cuda::for_each_index: too many elements for one grid");
    detail::for_each_index_kernel<<<static_cast<unsigned>(blocks), block, 0, stream>>>(v, f);
    check_launch("layout::cuda::for_each_index");
}
} // namespace layout::cuda
