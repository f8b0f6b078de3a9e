/// \file mpi/detail/ipc_kernels.hpp
/// The kernels of ipc_transport (ipc.hpp): copies between this GPU's memory and a peer's, each
/// waiting for a counter before it starts and raising one when its last block is done, and a
/// one-block kernel that waits for counters.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/ipc_kernels.hpp needs a CUDA compiler (nvcc)"
#endif

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace layout::mpi::detail::ipc {

using counter = unsigned long long;

/// One copy of a launch: bytes from `from` to `to` by `blocks` blocks starting at
/// `first_block`, once *wait >= wait_value (acquire, system scope) if wait is set. A message may
/// take several copies (a part each: its columns), which share wait, done and signal: the last
/// of the message's `message_blocks` blocks to finish sets *signal = value (release, system
/// scope) if signal is set. With `order` set, the bytes are whole elements of `element` bytes
/// read where they are: element k from from + order[k] * element.
struct copy {
    const std::byte* from;
    std::byte* to;
    std::size_t bytes;
    unsigned first_block, blocks;
    counter* wait; // this rank's counter, written by a peer, or null
    counter wait_value;
    counter* done;   // blocks finished, this rank's memory; back to 0 by the last one
    counter* signal; // a peer's counter, or null
    counter value;
    const std::uint32_t* order; // null: from is contiguous
    unsigned element;
    unsigned message_blocks; // the blocks of every copy of this copy's message
};
struct copies {
    static constexpr unsigned capacity = 40;
    copy c[capacity];
    unsigned count;
};

inline constexpr unsigned copy_block = 256;

template <class Chunk>
__device__ void copy_chunks(const std::byte* from, std::byte* to, std::size_t bytes,
                            std::size_t thread, std::size_t threads) {
    const std::size_t n = bytes / sizeof(Chunk);
    const auto* f = reinterpret_cast<const Chunk*>(from);
    auto* t = reinterpret_cast<Chunk*>(to);
    for (std::size_t i = thread; i < n; i += threads) t[i] = f[i];
    for (std::size_t i = n * sizeof(Chunk) + thread; i < bytes; i += threads) to[i] = from[i];
}

/// The elements of a gathered copy as Chunks: a warp's stores cover consecutive chunks of `to`
/// (whole sectors), its loads whole elements' chunks.
template <class Chunk>
__device__ void gather_chunks(const std::byte* base, const std::uint32_t* order, unsigned element,
                              std::byte* to, std::size_t bytes, std::size_t thread,
                              std::size_t threads) {
    const unsigned per = element / static_cast<unsigned>(sizeof(Chunk));
    const std::size_t n = bytes / sizeof(Chunk);
    auto* t = reinterpret_cast<Chunk*>(to);
    for (std::size_t u = thread; u < n; u += threads) {
        // (A message holds fewer than 2^32 elements: 32-bit division.)
        const std::uint32_t e = static_cast<std::uint32_t>(u / per);
        const unsigned c = static_cast<unsigned>(u - std::size_t{e} * per);
        t[u] = reinterpret_cast<const Chunk*>(base + std::size_t{order[e]} * element)[c];
    }
}

inline __device__ void wait_for(const copy& c) {
    ::cuda::atomic_ref<counter, ::cuda::thread_scope_system> flag(*c.wait);
    while (flag.load(::cuda::memory_order_acquire) < c.wait_value) __nanosleep(64);
}

/// in_blocks: each block waits for its copy's counter (else wait_kernel did, before). (Kernels
/// are templates so that every translation unit that includes this header may define them.)
template <class Copies>
__global__ void copy_kernel(Copies t, bool in_blocks) {
    unsigned k = 0;
    while (k + 1 < t.count && blockIdx.x >= t.c[k + 1].first_block) ++k;
    const copy& c = t.c[k];
    if (in_blocks && c.wait != nullptr) {
        // One thread waits (the peer's counter is in this GPU's memory), the block after it.
        if (threadIdx.x == 0) wait_for(c);
        __syncthreads();
    }
    const std::size_t threads = std::size_t{c.blocks} * blockDim.x;
    const std::size_t thread = std::size_t{blockIdx.x - c.first_block} * blockDim.x + threadIdx.x;
    const auto bits = reinterpret_cast<std::uintptr_t>(c.from) |
                      reinterpret_cast<std::uintptr_t>(c.to) | std::uintptr_t{c.element};
    if (c.order != nullptr) {
        if (bits % 16 == 0)
            gather_chunks<uint4>(c.from, c.order, c.element, c.to, c.bytes, thread, threads);
        else if (bits % 8 == 0)
            gather_chunks<unsigned long long>(c.from, c.order, c.element, c.to, c.bytes, thread,
                                              threads);
        else if (bits % 4 == 0)
            gather_chunks<unsigned>(c.from, c.order, c.element, c.to, c.bytes, thread, threads);
        else
            gather_chunks<unsigned char>(c.from, c.order, c.element, c.to, c.bytes, thread,
                                         threads);
    } else if (bits % 16 == 0)
        copy_chunks<uint4>(c.from, c.to, c.bytes, thread, threads);
    else if (bits % 8 == 0)
        copy_chunks<unsigned long long>(c.from, c.to, c.bytes, thread, threads);
    else if (bits % 4 == 0) // a column of 4-byte leaves landing at an element's offset
        copy_chunks<unsigned>(c.from, c.to, c.bytes, thread, threads);
    else
        copy_chunks<unsigned char>(c.from, c.to, c.bytes, thread, threads);
    if (c.signal == nullptr) return;
    // Every thread's accesses ordered before the block's count, the last block's signal after
    // every block's (of every copy of the message, in this launch or an earlier one on the
    // stream): the peer that sees the signal sees the bytes (or has had them read).
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(c.done, counter{1}) == c.message_blocks - 1) {
        *c.done = 0;
        __threadfence_system();
        ::cuda::atomic_ref<counter, ::cuda::thread_scope_system>(*c.signal).store(
            c.value, ::cuda::memory_order_release);
    }
}

/// One block waits for every copy's counter.
template <class Copies>
__global__ void wait_kernel(Copies t) {
    for (unsigned k = threadIdx.x; k < t.count; k += blockDim.x)
        if (t.c[k].wait != nullptr) wait_for(t.c[k]);
}

} // namespace layout::mpi::detail::ipc
