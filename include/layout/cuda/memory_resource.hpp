/// \file cuda/memory_resource.hpp
/// CUDA memory resources (<layout/memory_resource.hpp> says what a resource is).
///
///     layout::cuda::device_resource pool;                        // a stream-ordered pool
///     layout::cuda::soa_vector<P> v(n, P{}, stream, pool);       // allocated on stream from it
///     layout::cuda::pinned_resource::instance();                 // what pinned_memory uses
///
/// device_resource allocates with cudaMallocFromPoolAsync from a memory pool that keeps freed
/// blocks (release threshold: unlimited), so that a container allocated, freed and allocated
/// again every step pays neither cudaMalloc nor a device-wide synchronization. A failed
/// allocation throws layout::cuda::bad_alloc naming the size and the free device memory.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/memory_resource.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../memory_resource.hpp"
#include "error.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace layout::cuda {

/// The cudaStream_t a stream_ref holds.
inline cudaStream_t native(stream_ref stream) noexcept {
    return static_cast<cudaStream_t>(stream.get());
}

namespace detail {

[[noreturn]] inline void throw_bad_alloc(const char* call, std::size_t bytes, cudaError_t code) {
    cudaGetLastError(); // an allocation failure is not sticky; clear it for the next call
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw bad_alloc(bytes, std::string("layout: ") + call + " of " + std::to_string(bytes) +
                               " bytes failed: " + cudaGetErrorString(code) + " (" +
                               std::to_string(free) + " of " + std::to_string(total) +
                               " bytes free on the device)");
}

/// CUDA allocations are aligned to 256 bytes; a resource cannot promise more.
inline void check_alignment(std::size_t alignment, const char* resource) {
    if (alignment > 256 || (alignment & (alignment - 1)) != 0)
        throw std::invalid_argument(std::string("layout: ") + resource + ": alignment " +
                                    std::to_string(alignment) + " is not a power of two up to 256");
}

} // namespace detail

/// Device memory from a stream-ordered pool (one per resource, on one device).
class device_resource {
public:
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    /// A new pool on device (default: the current one) that keeps the memory it is given back.
    explicit device_resource(int device = current_device()) : owned_(true) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        check(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate");
        std::uint64_t keep_everything = UINT64_MAX;
        check(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_everything),
              "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
    }
    /// Allocates from the user's pool, which must outlive the resource.
    explicit device_resource(cudaMemPool_t pool) noexcept : pool_(pool) {}

    device_resource(const device_resource&) = delete;
    device_resource& operator=(const device_resource&) = delete;
    ~device_resource() {
        if (owned_) cudaMemPoolDestroy(pool_);
    }

    void* allocate_async(std::size_t bytes, std::size_t alignment, stream_ref stream) {
        detail::check_alignment(alignment, "device_resource");
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocFromPoolAsync(&p, bytes, pool_, native(stream));
            code != cudaSuccess)
            detail::throw_bad_alloc("cudaMallocFromPoolAsync", bytes, code);
        return p;
    }
    void deallocate_async(void* p, std::size_t, std::size_t, stream_ref stream) noexcept {
        cudaFreeAsync(p, native(stream));
    }
    /// The synchronous forms: on the default stream, waited for, so any stream may use the block.
    void* allocate(std::size_t bytes, std::size_t alignment) {
        void* p = allocate_async(bytes, alignment, {});
        if (const cudaError_t code = cudaStreamSynchronize(0); code != cudaSuccess) {
            cudaFreeAsync(p, 0);
            check(code, "cudaStreamSynchronize after cudaMallocFromPoolAsync");
        }
        return p;
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        deallocate_async(p, bytes, alignment, {});
        cudaStreamSynchronize(0);
    }

    cudaMemPool_t pool() const noexcept { return pool_; }
    friend bool operator==(const device_resource& a, const device_resource& b) noexcept {
        return a.pool_ == b.pool_;
    }

    /// The resource device_memory containers use on the current device: created on first use,
    /// never destroyed (containers with static storage may outlive any other object).
    static device_resource& for_current_device() {
        static std::mutex mutex;
        static std::map<int, device_resource*> pools;
        const int device = current_device();
        const std::lock_guard lock(mutex);
        device_resource*& pool = pools[device];
        if (!pool) pool = new device_resource(device);
        return *pool;
    }

private:
    static int current_device() {
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        return device;
    }

    cudaMemPool_t pool_{};
    bool owned_ = false;
};

/// The pool of whichever device is current when a block is allocated
/// (device_resource::for_current_device()): what device_memory containers use by default. Stateless,
/// so making one touches no device (a container in a program without a GPU costs nothing until it
/// allocates).
struct current_device_resource {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    void* allocate_async(std::size_t bytes, std::size_t alignment, stream_ref stream) {
        return device_resource::for_current_device().allocate_async(bytes, alignment, stream);
    }
    void deallocate_async(void* p, std::size_t, std::size_t, stream_ref stream) noexcept {
        cudaFreeAsync(p, native(stream)); // a pool's block goes back to its own pool
    }
    void* allocate(std::size_t bytes, std::size_t alignment) {
        return device_resource::for_current_device().allocate(bytes, alignment);
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        deallocate_async(p, bytes, alignment, {});
        cudaStreamSynchronize(0);
    }
    friend constexpr bool operator==(current_device_resource, current_device_resource) noexcept {
        return true;
    }

    static current_device_resource& instance() noexcept {
        static current_device_resource resource;
        return resource;
    }
};

/// Page-locked host memory (cudaMallocHost): the GPU reaches it, so copies to and from the
/// device run at full link speed and can be asynchronous. cudaFreeHost may synchronize.
struct pinned_resource {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = true;

    void* allocate(std::size_t bytes, std::size_t alignment) {
        detail::check_alignment(alignment, "pinned_resource");
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocHost(&p, bytes); code != cudaSuccess)
            detail::throw_bad_alloc("cudaMallocHost", bytes, code);
        return p;
    }
    void deallocate(void* p, std::size_t, std::size_t) noexcept { cudaFreeHost(p); }
    friend constexpr bool operator==(pinned_resource, pinned_resource) noexcept { return true; }

    static pinned_resource& instance() noexcept {
        static pinned_resource resource;
        return resource;
    }
};

/// Managed (unified) memory (cudaMallocManaged): one address for host and device, pages
/// migrating on demand. cudaFree synchronizes the device.
struct managed_resource {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = true;

    void* allocate(std::size_t bytes, std::size_t alignment) {
        detail::check_alignment(alignment, "managed_resource");
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
            code != cudaSuccess)
            detail::throw_bad_alloc("cudaMallocManaged", bytes, code);
        return p;
    }
    void deallocate(void* p, std::size_t, std::size_t) noexcept { cudaFree(p); }
    friend constexpr bool operator==(managed_resource, managed_resource) noexcept { return true; }

    static managed_resource& instance() noexcept {
        static managed_resource resource;
        return resource;
    }
};

} // namespace layout::cuda
