/// \file cuda/memory.hpp
/// CUDA memory spaces: where a container's block lives, which resource it comes from by default,
/// and how bytes move (<layout/memory.hpp> says what a memory space is). The containers are in
/// <layout/cuda/vector.hpp>.
///
///     layout::vector<P, layout::policy::soa, layout::cuda::device_memory> dev(n);  // = cuda::soa_vector<P>
///     layout::cuda::device_memory::copy_bytes(dst, src, bytes);   // cudaMemcpy, any direction
///
/// device_resident says where elements are best moved and converted: on the GPU (device and
/// managed memory) or by the host (pinned memory, which the host reads at full speed).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/memory.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../memory.hpp"
#include "error.hpp"
#include "memory_resource.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace layout::cuda {

/// Copies bytes in any direction (unified addressing tells cudaMemcpy where each side lives).
inline void copy_bytes(void* dst, const void* src, std::size_t bytes) {
    if (bytes) check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

/// Global memory of the current device, from its stream-ordered pool by default.
struct device_memory {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;
    static constexpr bool device_resident = true;

    static resource_ref default_resource() noexcept { return current_device_resource::instance(); }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        cuda::copy_bytes(dst, src, bytes);
    }
};

/// Page-locked host memory (cudaMallocHost).
struct pinned_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = true;
    static constexpr bool device_resident = false;

    static resource_ref default_resource() noexcept { return pinned_resource::instance(); }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        cuda::copy_bytes(dst, src, bytes);
    }
};

/// Managed memory (cudaMallocManaged): the host may read it once the work that wrote it is done.
struct managed_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = true;
    static constexpr bool device_resident = true;

    static resource_ref default_resource() noexcept { return managed_resource::instance(); }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        cuda::copy_bytes(dst, src, bytes);
    }
};

} // namespace layout::cuda
