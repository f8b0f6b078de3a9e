/// \file mpi/detail/device_exchange_kernels.hpp
/// The kernels of the device-planned plans (device_exchange.hpp runs them): classify and count
/// destinations, pack messages (columns, or whole AoS elements), and write the elements that
/// stay and those that arrived into the new block. Each pack or assemble launch takes a table
/// of pieces (runs of elements) as a kernel parameter.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/device_exchange_kernels.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../extension.hpp"
#include "../../view.hpp"
#include "../fields.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace layout::mpi::detail {

/// The destinations as a device array.
struct destination_array {
    const int* d;
    __device__ long long operator()(std::size_t i) const { return d[i]; }
};
/// The destinations as leaf Leaf of the container's elements.
template <std::size_t Leaf, class V>
struct destination_leaf {
    V v;
    __device__ long long operator()(std::size_t i) const {
        return static_cast<long long>(v.storage().at(i).template leaf<Leaf>());
    }
};

/// bucket[i]: the destination rank, `ranks` for -1 (dropped), ranks + 1 out of range; index[i] =
/// i; counts[b] += the elements of bucket b (a histogram per block in shared memory, lanes of
/// a warp with the same bucket adding once, then one global add per bucket and block, where
/// the buckets fit in shared memory); *first_bad: the complement of (index << 32 | destination)
/// of the first element out of range (a maximum of complements is the smallest index).
template <class Destinations>
__global__ void classify_kernel(Destinations dest, std::uint32_t n, int ranks,
                                std::uint32_t* LAYOUT_RESTRICT bucket,
                                std::uint32_t* LAYOUT_RESTRICT index,
                                unsigned long long* LAYOUT_RESTRICT counts,
                                unsigned long long* LAYOUT_RESTRICT first_bad, bool shared_counts) {
    extern __shared__ unsigned block_counts[];
    const unsigned buckets = static_cast<unsigned>(ranks) + 2;
    if (shared_counts) {
        for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) block_counts[b] = 0;
        __syncthreads();
    }
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const long long d = dest(i);
        const unsigned b = d >= 0 && d < ranks ? static_cast<unsigned>(d)
                                               : static_cast<unsigned>(d == -1 ? ranks : ranks + 1);
        bucket[i] = b;
        index[i] = i;
        if (b == buckets - 1)
            atomicMax(first_bad, ~(static_cast<unsigned long long>(i) << 32 |
                                   static_cast<std::uint32_t>(static_cast<std::int32_t>(d))));
        if (shared_counts) {
            const unsigned same = __match_any_sync(__activemask(), b);
            if (static_cast<unsigned>(__ffs(same) - 1) == (threadIdx.x & 31u))
                atomicAdd(&block_counts[b], static_cast<unsigned>(__popc(same)));
        } else {
            atomicAdd(&counts[b], 1ull);
        }
    }
    if (shared_counts) {
        __syncthreads();
        for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x)
            if (block_counts[b] != 0) atomicAdd(&counts[b], block_counts[b]);
    }
}

/// The last of entries [0, count) whose key(i) <= k, the keys ascending and key(0) <= k: the
/// entry of a launch's table that thread or item k belongs to.
template <class Key, class Value>
__device__ unsigned last_at_or_below(unsigned count, Value k, Key key) {
    unsigned lo = 0, hi = count;
    while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        if (key(mid) <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/// A run of elements for the pack or assemble kernel: `count` elements that come from positions
/// [from, from + count) of the sorted order (the old block), or, where message is set, from
/// elements 0.. of that message; assemble writes them at [first, first + count) of the new
/// block, pack into the message at out.
struct piece {
    std::uint64_t first, count, from;
    const std::byte* message;
    std::byte* out;
    std::uint64_t thread; // the launch's threads before this piece's
};

/// Up to `capacity` pieces, passed by value as a kernel parameter (no table to copy to the
/// device first); more pieces take more launches.
struct pieces {
    static constexpr unsigned capacity = 32;
    piece p[capacity];
    unsigned count;
    std::uint64_t threads;

    /// The piece of thread t: the last piece whose first thread is <= t.
    __device__ const piece& of(std::uint64_t t) const {
        return p[last_at_or_below(count, t, [&](unsigned k) { return p[k].thread; })];
    }
};

/// Messages: thread t's element goes to its piece's message, one column per travelling leaf.
/// Without an order, the pieces' elements are positions [from, from + count) themselves.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void pack_kernel(layout::view<const T, L, M> src,
                            const std::uint32_t* LAYOUT_RESTRICT order, const pieces table) {
    const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= table.threads) return;
    const piece& p = table.of(t);
    const std::uint64_t i = t - p.thread;
    const auto from = src.storage().at(order != nullptr ? order[p.from + i] : p.from + i);
    using W = wire_format<T, S>;
    ((reinterpret_cast<leaf_t<T, W::leaves[K]>*>(p.out + p.count * W::prefix[K])[i] =
          from.template leaf<W::leaves[K]>()),
     ...);
}

/// Element j of dst (the travelling leaves): one that stays here (from src, through the order)
/// or one that arrived (from its message). Where every leaf travels and whole elements lie in
/// 16-byte chunks (AoS of a multiple of 16 bytes; blocks are aligned), those that stay move as
/// chunks.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void assemble_kernel(layout::view<T, L, M> dst, layout::view<const T, L, M> src,
                                const std::uint32_t* LAYOUT_RESTRICT order, const pieces table) {
    const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= table.threads) return;
    const piece& p = table.of(t);
    const std::uint64_t i = t - p.thread, j = p.first + i;
    using W = wire_format<T, S>;
    if (p.message == nullptr) {
        const std::uint32_t k = order[p.from + i];
        if constexpr (std::is_same_v<S, every_leaf> && layout::extension::packed_elements_v<T, L> &&
                      sizeof(T) % 16 == 0) {
            const auto* from = reinterpret_cast<const uint4*>(src.storage().data + k);
            auto* to = reinterpret_cast<uint4*>(dst.storage().data + j);
            LAYOUT_UNROLL
            for (std::size_t c = 0; c < sizeof(T) / 16; ++c) to[c] = from[c];
        } else {
            layout::extension::copy_leaves(dst.storage().at(j), src.storage().at(k),
                                           std::index_sequence<W::leaves[K]...>{});
        }
        return;
    }
    const auto to = dst.storage().at(j);
    ((to.template leaf<W::leaves[K]>() =
          reinterpret_cast<const leaf_t<T, W::leaves[K]>*>(p.message + p.count * W::prefix[K])[i]),
     ...);
}

/// Whole elements of an AoS block into their message (every leaf travels, receive_mode::elements):
/// thread t's element, as assemble_kernel moves those that stay.
template <class T, class L, class M>
__global__ void pack_elements_kernel(layout::view<const T, L, M> src,
                                     const std::uint32_t* LAYOUT_RESTRICT order,
                                     const pieces table) {
    const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= table.threads) return;
    const piece& p = table.of(t);
    const std::uint64_t i = t - p.thread;
    const T* from = src.storage().data + order[p.from + i];
    T* to = reinterpret_cast<T*>(p.out) + i;
    if constexpr (sizeof(T) % 16 == 0) {
        LAYOUT_UNROLL
        for (std::size_t c = 0; c < sizeof(T) / 16; ++c)
            reinterpret_cast<uint4*>(to)[c] = reinterpret_cast<const uint4*>(from)[c];
    } else {
        *to = *from;
    }
}

/// The contributions to this rank's exports in a halo's reverse exchange (scatter_add), by
/// the rank they went to: sorted exports [first, first + count) went to one rank, and their
/// contributions are that rank's message (packed columns), or, for the exports to this rank
/// itself, its own ghosts from element `self` on (message null). Runs in order of `first`; a
/// launch takes up to `capacity`, and adds the contributions of exports [lo, hi) alone.
struct contribution_run {
    std::uint32_t first, count;
    const std::byte* message;
};
struct contribution_runs {
    static constexpr unsigned capacity = 64;
    contribution_run r[capacity];
    unsigned count;
    std::uint32_t lo, hi;
    std::uint64_t self;

    /// The run of export k: the last whose first is <= k.
    __device__ const contribution_run& of(std::uint32_t k) const {
        return r[last_at_or_below(count, k, [&](unsigned i) { return r[i].first; })];
    }
};

/// dst[owner] += each contribution to it, one thread an owner, in the plan's order (owner[c],
/// item[c]: the sorted exports grouped by the element they read, stably, so that an owner's
/// contributions come in export order): the same bits every run, as the host plan adds them.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void add_contributions_kernel(layout::view<T, L, M> dst,
                                         const std::uint32_t* LAYOUT_RESTRICT owner,
                                         const std::uint32_t* LAYOUT_RESTRICT item, std::uint32_t n,
                                         const contribution_runs runs) {
    std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    const std::uint32_t u = owner[c];
    if (c > 0 && owner[c - 1] == u) return; // not the first of its owner's
    using W = wire_format<T, S>;
    const auto to = dst.storage().at(u);
    for (; c < n && owner[c] == u; ++c) {
        const std::uint32_t k = item[c];
        if (k < runs.lo || k >= runs.hi) continue;
        const contribution_run& run = runs.of(k);
        const std::uint32_t j = k - run.first;
        if (run.message == nullptr) {
            const auto from = dst.storage().at(runs.self + j);
            ((to.template leaf<W::leaves[K]>() += from.template leaf<W::leaves[K]>()), ...);
        } else {
            ((to.template leaf<W::leaves[K]>() += reinterpret_cast<const leaf_t<T, W::leaves[K]>*>(
                  run.message + std::size_t{run.count} * W::prefix[K])[j]),
             ...);
        }
    }
}

} // namespace layout::mpi::detail
