/// \file mpi/detail/ipc_kernels.hpp
/// The kernel of ipc_transport (ipc.hpp): copies between this GPU's memory and a peer's, each
/// waiting for a counter before it starts and raising one when its last block is done.
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
/// scope) if signal is set.
///
/// One side may be a column of `element`-byte values instead of contiguous bytes (the other
/// side, a landing block, always is): with `order` set, the copy reads value order[k] of the
/// column at `from`; else with `lanes` set, it writes value first + k of the column at `to`.
/// Value i of a column is at base + i * element, or with lanes set at
/// base + (i / lanes) * block + (i % lanes) * element (AoSoA's runs of lanes; AoS: 1 lane).
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
    unsigned message_blocks;    // the blocks of every copy of this copy's message
    const std::uint32_t* order; // the values read, where `from` is a column
    unsigned element, lanes, block;
    std::size_t first; // the first value written, where `to` is a column in blocks
};
/// A launch's copies. Its blocks take the copies' blocks in the order of their tickets, drawn
/// from *tickets (which counts every block of every launch: this launch's first is
/// first_ticket), not in blockIdx order: every block with an earlier ticket has started, so one
/// that waits for a peer never keeps an earlier one from running (see copy_kernel).
struct copies {
    // 36 copies of 112 bytes: a launch's parameters stay under 4 KiB.
    static constexpr unsigned capacity = 36;
    copy c[capacity];
    counter* tickets;
    counter first_ticket;
    unsigned count;
};
static_assert(sizeof(copies) <= 4096, "a copy kernel's parameters stay under 4 KiB");

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

/// Where value i of a column in blocks starts (see copy). Values index below 2^32 (a plan's
/// elements do): 32-bit arithmetic, a shift where lanes is a power of two.
struct blocked_column {
    unsigned element, lanes, block, shift;
    bool power_of_two;
    __device__ std::size_t offset(std::uint32_t i) const {
        const std::uint32_t q = power_of_two ? i >> shift : i / lanes;
        return std::size_t{q} * block + std::size_t{i - q * lanes} * element;
    }
};
inline __device__ blocked_column blocked_of(const copy& c) {
    return {c.element, c.lanes, c.block,
            static_cast<unsigned>(__ffs(static_cast<int>(c.lanes)) - 1),
            (c.lanes & (c.lanes - 1)) == 0};
}

/// A gathered copy from a column in blocks, as Chunks: value order[k] of the column to the
/// contiguous bytes at `to`.
template <class Chunk>
__device__ void gather_blocked(const copy& c, std::size_t thread, std::size_t threads) {
    const blocked_column column = blocked_of(c);
    const unsigned per = c.element / static_cast<unsigned>(sizeof(Chunk));
    const auto n = static_cast<std::uint32_t>(c.bytes / sizeof(Chunk));
    auto* t = reinterpret_cast<Chunk*>(c.to);
    for (std::size_t u = thread; u < n; u += threads) {
        const std::uint32_t e = static_cast<std::uint32_t>(u) / per;
        const unsigned k = static_cast<unsigned>(u) - e * per;
        t[u] = reinterpret_cast<const Chunk*>(c.from + column.offset(c.order[e]))[k];
    }
}

/// A landing copy into a column in blocks, as Chunks: the contiguous bytes at `from` become
/// values first, first + 1, ... of the column at `to`.
template <class Chunk>
__device__ void scatter_blocked(const copy& c, std::size_t thread, std::size_t threads) {
    const blocked_column column = blocked_of(c);
    const unsigned per = c.element / static_cast<unsigned>(sizeof(Chunk));
    const auto n = static_cast<std::uint32_t>(c.bytes / sizeof(Chunk));
    const auto first = static_cast<std::uint32_t>(c.first);
    const auto* f = reinterpret_cast<const Chunk*>(c.from);
    for (std::size_t u = thread; u < n; u += threads) {
        const std::uint32_t e = static_cast<std::uint32_t>(u) / per;
        const unsigned k = static_cast<unsigned>(u) - e * per;
        reinterpret_cast<Chunk*>(c.to + column.offset(first + e))[k] = f[u];
    }
}

/// The widest chunk (16, 8, 4 or 1 bytes) that every address and size of a copy allows: what
/// the kernel copies in.
__device__ inline unsigned chunk_bytes(const copy& c) {
    const auto bits = reinterpret_cast<std::uintptr_t>(c.from) |
                      reinterpret_cast<std::uintptr_t>(c.to) | std::uintptr_t{c.element} |
                      std::uintptr_t{c.block};
    return bits % 16 == 0 ? 16 : bits % 8 == 0 ? 8 : bits % 4 == 0 ? 4 : 1;
}

inline __device__ void wait_for(const copy& c) {
    ::cuda::atomic_ref<counter, ::cuda::thread_scope_system> flag(*c.wait);
    while (flag.load(::cuda::memory_order_acquire) < c.wait_value) __nanosleep(64);
}

/// One launch's copies: a block draws a ticket, takes the copy whose blocks hold it, waits for
/// that copy's counter (one thread polls: the counter is in this GPU's memory), then copies its
/// share. The sends of an exchange come before its receives in a launch, so a receive's blocks,
/// which wait for the peers, hold tickets after every send block's: those have started (or
/// finished) and wait for nothing of this GPU's; blockIdx order would give no such promise.
/// (Kernels are templates so that every translation unit that includes this header may define
/// them.)
template <class Copies>
__global__ void copy_kernel(Copies t) {
    __shared__ unsigned ticket;
    if (threadIdx.x == 0)
        ticket = static_cast<unsigned>(atomicAdd(t.tickets, counter{1}) - t.first_ticket);
    __syncthreads();
    unsigned k = 0;
    while (k + 1 < t.count && ticket >= t.c[k + 1].first_block) ++k;
    const copy& c = t.c[k];
    if (c.wait != nullptr) {
        if (threadIdx.x == 0) wait_for(c);
        __syncthreads();
    }
    const std::size_t threads = std::size_t{c.blocks} * blockDim.x;
    const std::size_t thread = std::size_t{ticket - c.first_block} * blockDim.x + threadIdx.x;
    auto run = [&]<class Chunk>(Chunk) {
        if (c.lanes != 0 && c.order != nullptr)
            gather_blocked<Chunk>(c, thread, threads);
        else if (c.lanes != 0)
            scatter_blocked<Chunk>(c, thread, threads);
        else if (c.order != nullptr)
            gather_chunks<Chunk>(c.from, c.order, c.element, c.to, c.bytes, thread, threads);
        else
            copy_chunks<Chunk>(c.from, c.to, c.bytes, thread, threads);
    };
    switch (chunk_bytes(c)) {
    case 16:
        run(uint4{});
        break;
    case 8:
        run(0ull);
        break;
    case 4:
        run(0u);
        break; // e.g. a column of 4-byte leaves landing at an odd element
    default:
        run(static_cast<unsigned char>(0));
    }
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

} // namespace layout::mpi::detail::ipc
