/// \file cuda/memory.hpp
/// Device and pinned host memory spaces for layout::vector, and the device containers.
///
///     layout::cuda::soa_vector<Particle> dev = host;     // one cudaMemcpy per column
///     layout::cuda::aosoa<Particle, 32> chunks = dev;    // converted on the GPU
///     layout::soa_vector<Particle> back = chunks;        // converted on the GPU, then copied
///     drift<<<blocks, 256>>>(dev.view(), dt);
///
/// Copies are synchronous with respect to the host (like cudaMemcpy): when a constructor or
/// assignment returns, the data is there. Assignment (`soa = aos`, `dev = host`, `host = dev`,
/// assign(n, value)) reuses the destination's block when the source fits in its capacity, as
/// std::vector does: no cudaMalloc, no zeroing pass, only the copy or conversion. A failed device allocation throws
/// layout::cuda::bad_alloc naming the size, and the container is left as it was.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/memory.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../copy.hpp"
#include "../policies.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "convert.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace layout::cuda {

namespace detail {

template <class T, class Layout>
__global__ void fill_kernel(layout::view<T, Layout> v, std::size_t first, std::size_t last,
                            T value) {
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    for (std::size_t i = first + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < last;
         i += stride)
        v[i] = value;
}

/// Enough blocks to fill the device; grid-stride loops cover the rest.
inline unsigned grid_for(std::size_t n, unsigned block) {
    const std::size_t blocks = (n + block - 1) / block;
    return static_cast<unsigned>(blocks < 65535 * 32 ? (blocks ? blocks : 1) : 65535 * 32);
}

[[noreturn]] inline void throw_bad_alloc(const char* call, std::size_t bytes, cudaError_t code) {
    cudaGetLastError(); // an allocation failure is not sticky; clear it for the next call
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw bad_alloc(bytes, std::string("layout: ") + call + " of " + std::to_string(bytes) +
                               " bytes failed: " + cudaGetErrorString(code) + " (" +
                               std::to_string(free) + " of " + std::to_string(total) +
                               " bytes free on the device)");
}

} // namespace detail

/// Copies bytes in any direction (unified addressing tells cudaMemcpy where each side lives).
inline void copy_bytes(void* dst, const void* src, std::size_t bytes) {
    if (bytes) check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

struct device_memory;

/// Converting copy between views where at least one side is device memory. Sides that the GPU
/// can reach (device, pinned) are converted in place; a pageable host side is staged through a
/// device buffer in its own layout, moved with bulk copies.
template <class DstMemory, class SrcMemory, class T, class DstLayout, class SrcLayout>
void convert_across(const layout::view<T, DstLayout>& dst,
                    const layout::view<const T, SrcLayout>& src, std::size_t n);

/// Global memory of the current device (cudaMalloc), zeroed when allocated.
struct device_memory {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    static void* allocate(std::size_t bytes) {
        if (bytes == 0) return nullptr;
        void* p = nullptr;
        if (const cudaError_t code = cudaMalloc(&p, bytes); code != cudaSuccess)
            detail::throw_bad_alloc("cudaMalloc", bytes, code);
        // Zeroed: kernels write elements leaf by leaf, never the padding bytes of an AoS
        // element or the unused lanes of a last AoSoA block, and copies move whole blocks. With
        // the zeros those bytes are defined, so copies leak no stale device data and
        // compute-sanitizer initcheck finds nothing to report. One memset pass at allocation
        // (cudaMalloc itself costs more); synchronized, so that work queued afterwards on any
        // stream sees the zeros.
        cudaError_t code = cudaMemset(p, 0, bytes);
        if (code == cudaSuccess) code = cudaStreamSynchronize(0);
        if (code != cudaSuccess) {
            cudaFree(p);
            check(code, "cudaMemset of a new device block");
        }
        return p;
    }
    static void deallocate(void* p, std::size_t /*bytes*/) noexcept {
        if (p) cudaFree(p);
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        cuda::copy_bytes(dst, src, bytes);
    }

    template <class T, class Layout>
    static void fill(const layout::view<T, Layout>& v, std::size_t first, std::size_t last,
                     const T& value) {
        if (first >= last) return;
        constexpr unsigned block = 256;
        detail::fill_kernel<<<detail::grid_for(last - first, block), block>>>(v, first, last, value);
        check_launch("layout::cuda::fill_kernel");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after fill_kernel");
    }

    template <class DstMemory, class SrcMemory, class T, class DstLayout, class SrcLayout>
    static void convert(const layout::view<T, DstLayout>& dst,
                        const layout::view<const T, SrcLayout>& src, std::size_t n) {
        convert_across<DstMemory, SrcMemory>(dst, src, n);
    }
};

/// Page-locked host memory (cudaMallocHost): host-accessible, and reachable by the GPU, so
/// copies to and from the device run at full PCIe/NVLink speed.
struct pinned_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = true;

    static void* allocate(std::size_t bytes) {
        if (bytes == 0) return nullptr;
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocHost(&p, bytes); code != cudaSuccess)
            detail::throw_bad_alloc("cudaMallocHost", bytes, code);
        return p;
    }
    static void deallocate(void* p, std::size_t /*bytes*/) noexcept {
        if (p) cudaFreeHost(p);
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        cuda::copy_bytes(dst, src, bytes);
    }
};

template <class DstMemory, class SrcMemory, class T, class DstLayout, class SrcLayout>
void convert_across(const layout::view<T, DstLayout>& dst,
                    const layout::view<const T, SrcLayout>& src, std::size_t n) {
    if constexpr (DstMemory::device_accessible && SrcMemory::device_accessible) {
        cuda::convert(layout::view<T, DstLayout>(dst.storage(), n),
                      layout::view<const T, SrcLayout>(src.storage(), n));
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after layout::cuda::convert");
    } else if constexpr (!SrcMemory::device_accessible) {
        layout::vector<T, SrcLayout, device_memory> staging;
        staging.reserve(n);
        const layout::view<T, SrcLayout> staged(staging.view().storage(), n);
        layout::detail::copy_elements<device_memory, SrcMemory>(staged, src, n);
        convert_across<DstMemory, device_memory>(dst, layout::view<const T, SrcLayout>(staged), n);
    } else {
        layout::vector<T, DstLayout, device_memory> staging;
        staging.reserve(n);
        const layout::view<T, DstLayout> staged(staging.view().storage(), n);
        convert_across<device_memory, SrcMemory>(staged, src, n);
        layout::detail::copy_elements<DstMemory, device_memory>(
            dst, layout::view<const T, DstLayout>(staged), n);
    }
}

/// Containers in device memory.
template <class T>
using aos_vector = layout::vector<T, policy::aos, device_memory>;
template <class T>
using soa_vector = layout::vector<T, policy::soa, device_memory>;
template <class T, std::size_t Lanes>
using aosoa = layout::vector<T, policy::aosoa<Lanes>, device_memory>;

} // namespace layout::cuda
