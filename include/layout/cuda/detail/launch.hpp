/// \file cuda/detail/launch.hpp
/// What the device algorithms' launches share: the block size, the grid for one thread per
/// element, and stream-ordered temporaries.
///
///     stream_buffer<unsigned long long> flag(1, stream);   // cudaMallocAsync, cudaFreeAsync
///     kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(..., flag.get());
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/launch.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../memory.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace layout::cuda::detail {

/// Blocks of `block` threads for n threads, one per element.
inline unsigned grid_size(std::size_t n, unsigned block, const char* function) {
    const std::size_t blocks = (n + block - 1) / block;
    if (blocks > 0x7fffffffu)
        throw std::length_error(std::string(function) + ": too many elements for one grid");
    return static_cast<unsigned>(blocks);
}

inline constexpr unsigned block_size = 256;

/// Device memory for a temporary, allocated and freed in stream order.
template <class E>
class stream_buffer {
public:
    stream_buffer(std::size_t n, cudaStream_t stream) : stream_(stream) {
        if (n == 0) return;
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocAsync(&p, n * sizeof(E), stream);
            code != cudaSuccess)
            throw_bad_alloc("cudaMallocAsync", n * sizeof(E), code);
        data_ = static_cast<E*>(p);
    }
    stream_buffer(const stream_buffer&) = delete;
    stream_buffer& operator=(const stream_buffer&) = delete;
    ~stream_buffer() {
        if (data_) (void)cudaFreeAsync(data_, stream_);
    }
    E* get() const noexcept { return data_; }

private:
    E* data_ = nullptr;
    cudaStream_t stream_;
};

} // namespace layout::cuda::detail
