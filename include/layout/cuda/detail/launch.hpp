/// \file cuda/detail/launch.hpp
/// The geometry of every launch in the library (the block size, the grid for one thread per
/// element or for a grid-stride loop) and the device algorithms' stream-ordered temporaries.
///
///     stream_buffer<unsigned long long> flag(1, stream);   // from the device's pool, in stream order
///     kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(..., flag.get());
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/launch.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../memory_resource.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace layout::cuda::detail {

/// Threads a block in every kernel of the library (the tile kernels' chunk is sized to it).
inline constexpr unsigned block_size = 256;

/// The most blocks a grid holds in x (2^31 - 1).
inline constexpr std::size_t max_grid_blocks = 0x7fffffff;

/// Blocks of `block` threads for n threads, one per element; std::length_error past one grid.
inline unsigned grid_size(std::size_t n, unsigned block, const char* function) {
    const std::size_t blocks = (n + block - 1) / block;
    if (blocks > max_grid_blocks)
        throw std::length_error(std::string(function) + ": too many elements for one grid");
    return static_cast<unsigned>(blocks);
}

/// Blocks for `blocks` blocks of work done by a kernel that loops with a grid stride: capped at
/// one grid, the loop covers the rest.
inline unsigned strided_grid_size(std::size_t blocks) {
    return static_cast<unsigned>(blocks < max_grid_blocks ? blocks : max_grid_blocks);
}

/// Device memory for a temporary, allocated and freed in stream order from the pool the
/// containers use (current_device_resource, which keeps freed memory for the next allocation:
/// CUDA's default pool gives it back to the system at every synchronization, and remapping a
/// large temporary each call cost remove_if 20% of its time).
/// The resource is the container's where there is one (the algorithms pass it).
template <class E>
class stream_buffer {
public:
    stream_buffer(std::size_t n, cudaStream_t stream,
                  resource_ref resource = current_device_resource::instance())
        : stream_(stream), bytes_(n * sizeof(E)), resource_(resource) {
        if (n == 0) return;
        data_ = static_cast<E*>(resource_.allocate(bytes_, alignof(E), stream_));
    }
    stream_buffer(const stream_buffer&) = delete;
    stream_buffer& operator=(const stream_buffer&) = delete;
    ~stream_buffer() { resource_.deallocate(data_, bytes_, alignof(E), stream_); }
    E* get() const noexcept { return data_; }

private:
    E* data_ = nullptr;
    cudaStream_t stream_;
    std::size_t bytes_;
    resource_ref resource_;
};

} // namespace layout::cuda::detail
