/// \file cuda/detail/side_stream.hpp
/// A second stream that an operation forks work onto from its stream and joins back into before
/// it returns, so that copies overlap kernels without a host wait (a CUDA graph captures the
/// fork and the join). The caller's stream stays the only one that orders anything outside the
/// operation.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/side_stream.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../error.hpp"

#include <cuda_runtime.h>

namespace layout::cuda::detail {

class side_stream {
public:
    side_stream() {
        check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags");
        if (cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming) != cudaSuccess) {
            release();
            check(cudaErrorMemoryAllocation, "cudaEventCreateWithFlags");
        }
    }
    side_stream(const side_stream&) = delete;
    side_stream& operator=(const side_stream&) = delete;
    ~side_stream() { release(); }

    cudaStream_t side() const noexcept { return side_; }
    /// Work queued on side() from now on runs after the work queued on `from` so far.
    void fork(cudaStream_t from) {
        check(cudaEventRecord(forked_, from), "cudaEventRecord");
        check(cudaStreamWaitEvent(side_, forked_, 0), "cudaStreamWaitEvent");
    }
    /// Work queued on `into` from now on runs after the work queued on side() so far.
    void join(cudaStream_t into) {
        check(cudaEventRecord(joined_, side_), "cudaEventRecord");
        check(cudaStreamWaitEvent(into, joined_, 0), "cudaStreamWaitEvent");
    }

private:
    void release() noexcept {
        if (joined_) cudaEventDestroy(joined_);
        if (forked_) cudaEventDestroy(forked_);
        if (side_) cudaStreamDestroy(side_);
        joined_ = forked_ = nullptr;
        side_ = nullptr;
    }
    cudaStream_t side_ = nullptr;
    cudaEvent_t forked_ = nullptr, joined_ = nullptr;
};

} // namespace layout::cuda::detail
