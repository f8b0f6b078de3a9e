/// \file mpi/device_migration.hpp
/// layout::mpi::device_migration_plan: moves the elements of a device container between ranks,
/// each to the rank its destination names, with the destinations and all per-element work on the
/// GPU. Only counts cross to the host: one small read-back and one MPI_Allreduce a migration.
///
///     layout::mpi::nccl_communicator nccl(MPI_COMM_WORLD);          // one GPU per rank
///     layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, layout::mpi::nccl_transport(nccl),
///                                             stream);
///     for (int step = 0; ...; ++step) {
///         find_destinations<<<grid, block, 0, stream>>>(particles.view(), dest.data());
///         plan.migrate(particles, dest);            // dest: device ints, -1 drops an element
///         // or, with the destination in a field of the element itself:
///         plan.migrate<&Particle::rank>(particles);
///     }
///
/// Elements arrive ordered by source rank, then source index, self included: the same result
/// every run and for every layout (a stable radix sort by destination on the GPU). Each
/// migration: a kernel classifies and counts the destinations, CUB sorts the positions by
/// destination (one pass up to 254 ranks), the counts come back to the host (the migration's one
/// host wait), one MPI_Allreduce agrees on the outcome and carries every rank's counts, a kernel
/// packs the leaving elements into one message per peer, the transport moves the messages while
/// the elements that stay move from the old block into the new one (on a second stream forked
/// from and joined back into the plan's, so the two overlap), and a kernel writes the elements
/// that arrived after them; the new block then becomes the container's (double buffering, as a
/// hand-written step does). Everything is ordered on the plan's stream, which must be the
/// container's; scratch and messages stay in the plan's workspace from call to call, so a plan
/// reused with sizes that fit allocates nothing.
///
/// Every leaf travels (a migration in place needs them all); the wire format is that of
/// layout::mpi::migration_plan (one column per leaf, per message). The transport is a type:
/// nccl_transport (<layout/mpi/nccl.hpp>), staged_transport or cuda_aware_transport
/// (<layout/mpi/device_transport.hpp>).
///
/// Errors: a destination out of range, a destination count that differs from the container's
/// size, ranks running different plans or element types, or a failure while preparing (a device
/// error, a buffer that cannot grow): every rank throws layout::mpi::error (the rank whose own
/// preparation threw rethrows its exception) before any element moves, and every container is
/// as it was. At most 2^32 - 1 elements per rank and migration.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_migration.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../cuda/error.hpp"
#include "../cuda/memory.hpp"
#include "../cuda/workspace.hpp"
#include "../extension.hpp"
#include "../policies.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "detail/agreement.hpp"
#include "detail/pattern.hpp"
#include "device_transport.hpp"
#include "error.hpp"
#include "fields.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <mpi.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::mpi {
namespace detail {

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
        unsigned lo = 0, hi = count;
        while (hi - lo > 1) {
            const unsigned mid = (lo + hi) / 2;
            if (p[mid].thread <= t)
                lo = mid;
            else
                hi = mid;
        }
        return p[lo];
    }
};

/// Messages: element j of the leaving elements goes to its piece's message, one column per leaf.
template <class T, class L, class M, std::size_t... K>
__global__ void pack_kernel(layout::view<const T, L, M> src,
                            const std::uint32_t* LAYOUT_RESTRICT order, const pieces table) {
    const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= table.threads) return;
    const piece& p = table.of(t);
    const std::uint64_t i = t - p.thread;
    const auto from = src.storage().at(order[p.from + i]);
    using W = wire_format<T, all_fields>;
    ((reinterpret_cast<leaf_t<T, W::leaves[K]>*>(p.out + p.count * W::prefix[K])[i] =
          from.template leaf<W::leaves[K]>()),
     ...);
}

/// The new block: element j is an element that stayed (from the old block, through the sorted
/// order) or one that arrived (from its message). Where whole elements lie in 16-byte chunks
/// (AoS of a multiple of 16 bytes; blocks are aligned), those that stay move as chunks.
template <class T, class L, class M, std::size_t... K>
__global__ void assemble_kernel(layout::view<T, L, M> dst, layout::view<const T, L, M> src,
                                const std::uint32_t* LAYOUT_RESTRICT order, const pieces table) {
    const std::uint64_t t = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= table.threads) return;
    const piece& p = table.of(t);
    const std::uint64_t i = t - p.thread, j = p.first + i;
    if (p.message == nullptr) {
        const std::uint32_t k = order[p.from + i];
        if constexpr (layout::extension::packed_elements_v<T, L> && sizeof(T) % 16 == 0) {
            const auto* from = reinterpret_cast<const uint4*>(src.storage().data + k);
            auto* to = reinterpret_cast<uint4*>(dst.storage().data + j);
            LAYOUT_UNROLL
            for (std::size_t c = 0; c < sizeof(T) / 16; ++c) to[c] = from[c];
        } else {
            layout::extension::copy_leaves(dst.storage().at(j), src.storage().at(k),
                                           std::make_index_sequence<leaf_count_v<T>>{});
        }
        return;
    }
    const auto to = dst.storage().at(j);
    using W = wire_format<T, all_fields>;
    ((to.template leaf<W::leaves[K]>() =
          reinterpret_cast<const leaf_t<T, W::leaves[K]>*>(p.message + p.count * W::prefix[K])[i]),
     ...);
}

/// A second stream that work forks onto from a stream and joins back into, ordered by events
/// (no host wait; a CUDA graph captures the fork and the join).
class side_stream {
public:
    side_stream() {
        layout::cuda::check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags");
        if (cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming) != cudaSuccess) {
            release();
            layout::cuda::check(cudaErrorMemoryAllocation, "cudaEventCreateWithFlags");
        }
    }
    side_stream(const side_stream&) = delete;
    side_stream& operator=(const side_stream&) = delete;
    ~side_stream() { release(); }

    cudaStream_t side() const noexcept { return side_; }
    /// Work queued on side() from now on runs after the work queued on `from` so far.
    void record(cudaStream_t from) {
        layout::cuda::check(cudaEventRecord(forked_, from), "cudaEventRecord");
        layout::cuda::check(cudaStreamWaitEvent(side_, forked_, 0), "cudaStreamWaitEvent");
    }
    /// Work queued on `into` from now on runs after the work queued on side() so far.
    void join(cudaStream_t into) {
        layout::cuda::check(cudaEventRecord(joined_, side_), "cudaEventRecord");
        layout::cuda::check(cudaStreamWaitEvent(into, joined_, 0), "cudaStreamWaitEvent");
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

} // namespace detail

template <device_transport Transport>
class device_migration_plan {
public:
    /// Collective over comm. The plan runs on `stream` (the containers' stream); its scratch and
    /// messages come from `resource` (device memory), the containers' new blocks from theirs.
    device_migration_plan(MPI_Comm comm, Transport transport, layout::stream_ref stream = {},
                          resource_ref resource = layout::cuda::device_memory::default_resource())
        : comm_(comm), transport_(std::move(transport)), ws_(stream, resource) {
        detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
        detail::check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
        detail::local_outcome local;
        local.run([&] {
            if constexpr (requires { transport_.check_ranks(rank_, size_); })
                transport_.check_ranks(rank_, size_);
            // Everything a migration keeps on the host, so that nothing there grows after the
            // ranks agreed to go on.
            counts_ = reinterpret_cast<unsigned long long*>(host_.reserve(host_bytes()));
            census_.reserve(ranks() + 3);
            extra_.reserve(2 * ranks() + ranks() * ranks());
            out_.reserve(ranks());
            in_.reserve(ranks());
            pieces_.reserve(2 * ranks());
        });
        id_ = detail::agree(comm_, rank_, detail::operation::construct, local,
                            detail::next_plan_id(), 0, 0, /*check_plan=*/false);
        detail::next_plan_id() = id_ + 1;
    }
    device_migration_plan(const device_migration_plan&) = delete;
    device_migration_plan& operator=(const device_migration_plan&) = delete;

    /// Collective. c: a container in device memory on the plan's stream; destinations: c.size()
    /// ranks in device memory, -1 drops an element. c ends up holding the elements sent here,
    /// ordered by source rank then source index.
    template <class C>
    void migrate(C& c, std::span<const int> destinations) {
        run(c, destinations.size(), detail::destination_array{destinations.data()});
    }
    /// The destinations in a device container of ints (layout::cuda::aos_vector<int>).
    template <class C, class M>
    void migrate(C& c, const layout::vector<int, policy::aos, M>& destinations) {
        static_assert(M::device_accessible, "layout: mpi::device_migration_plan: the "
                                            "destinations must be in device memory");
        migrate(c, std::span<const int>(destinations.data(), destinations.size()));
    }

    /// Collective. The destination of each element is its own field Key (an integral leaf, or a
    /// path<...> to one), read on the GPU in whatever layout c has.
    template <auto Key, auto... Rest, class C>
    void migrate(C& c) {
        using T = typename C::value_type;
        constexpr auto leaves = detail::path_leaves<T, Key, Rest...>();
        static_assert(leaves.second == leaves.first + 1,
                      "layout: mpi::device_migration_plan::migrate<Key>: the destination names a "
                      "struct or array; name one integer leaf (path<...> into it)");
        constexpr std::size_t leaf = leaves.first;
        static_assert(std::is_integral_v<leaf_t<T, leaf>>,
                      "layout: mpi::device_migration_plan::migrate<Key>: the destination field "
                      "must be an integer (a rank; -1 drops the element)");
        using V = layout::view<const T, typename C::layout_type, typename C::memory_type>;
        run(c, c.size(), detail::destination_leaf<leaf, V>{V(c.view())});
    }

    /// The last migration: elements sent to other ranks, received from them, kept here.
    std::size_t send_count() const noexcept { return sent_; }
    std::size_t receive_count() const noexcept { return received_; }
    std::size_t destination_size() const noexcept { return kept_ + received_; }
    /// Blocks allocated so far (scratch, messages, new element blocks, staging): constant once
    /// the sizes fit.
    std::size_t allocations() const noexcept {
        return ws_.allocations() + host_.allocations() + transport_.allocations();
    }
    layout::stream_ref stream() const noexcept { return ws_.stream(); }
    MPI_Comm communicator() const noexcept { return comm_; }
    Transport& transport() noexcept { return transport_; }

private:
    using slot = layout::cuda::workspace::slot;
    static constexpr const char* function = "layout::mpi::device_migration_plan::migrate";

    std::size_t ranks() const noexcept { return static_cast<std::size_t>(size_); }
    std::size_t host_bytes() const noexcept { return (ranks() + 3) * sizeof(unsigned long long); }

    template <class C, class Destinations>
    void run(C& c, std::size_t n, Destinations dest) {
        using T = typename C::value_type;
        using L = typename C::layout_type;
        using M = typename C::memory_type;
        static_assert(M::device_accessible && !M::host_accessible,
                      "layout: mpi::device_migration_plan moves containers in device memory "
                      "(layout::cuda::soa_vector<T>, ...); host containers: mpi::migration_plan");
        using W = detail::wire_format<T, all_fields>;
        const cudaStream_t stream = layout::cuda::native(ws_.stream());
        const std::size_t P = ranks(), me = static_cast<std::size_t>(rank_);

        // Local: the destinations classified and counted on the GPU, read back once.
        detail::local_outcome local;
        local.run([&] {
            ws_.check_stream(c.stream(), function);
            if (n != c.size()) {
                local.problem = "layout::mpi::device_migration_plan: " + std::to_string(n) +
                                " destinations for a container of " + std::to_string(c.size()) +
                                " elements";
                return;
            }
            if (n > std::numeric_limits<std::uint32_t>::max() - 1) {
                local.problem = "layout::mpi::device_migration_plan: more than 2^32 - 2 "
                                "elements on one rank";
                return;
            }
            sort_by_destination(n, dest, stream);
            const std::vector<long long>& census = census_;
            if (const unsigned long long bad = counts_[P + 2]; bad != 0) {
                local.problem = "layout::mpi::device_migration_plan: the destination of element " +
                                std::to_string(~bad >> 32) + " is " +
                                std::to_string(static_cast<std::int32_t>(~bad & 0xffffffffu)) +
                                ", out of range for a communicator of " + std::to_string(P) +
                                " ranks (-1 drops an element)";
                return;
            }
            // What only this rank's counts decide grows now, before the agreement.
            std::size_t out_bytes = 0;
            for (std::size_t r = 0; r < P; ++r)
                if (r != me)
                    out_bytes += detail::message_bytes(
                        W::bytes_per_element, static_cast<std::size_t>(census[r + 1] - census[r]));
            ws_.bytes(slot::outgoing, out_bytes);
        });

        // One reduction: the agreement, then each rank's room for elements and incoming bytes,
        // then the count matrix (row: source rank).
        extra_.assign(2 * P + P * P, 0);
        if (local.ok()) {
            extra_[me] = static_cast<std::int64_t>(ws_.element_room(c));
            extra_[P + me] = static_cast<std::int64_t>(ws_.capacity(slot::incoming));
            for (std::size_t r = 0; r < P; ++r)
                extra_[2 * P + me * P + r] = census_[r + 1] - census_[r];
        }
        detail::agree(comm_, rank_, detail::operation::device_migrate, local, id_, 0, W::signature,
                      true, extra_);
        const auto count = [&](std::size_t from, std::size_t to) {
            return static_cast<std::size_t>(extra_[2 * P + from * P + to]);
        };
        const auto incoming_bytes = [&](std::size_t r) {
            std::size_t bytes = 0;
            for (std::size_t s = 0; s < P; ++s)
                if (s != r) bytes += detail::message_bytes(W::bytes_per_element, count(s, r));
            return bytes;
        };
        std::size_t total = 0;
        for (std::size_t s = 0; s < P; ++s) total += count(s, me);

        // Room on every rank, or every rank grows and agrees again (nothing has moved yet).
        bool fits = true;
        for (std::size_t r = 0; r < P; ++r) {
            std::size_t arriving = 0;
            for (std::size_t s = 0; s < P; ++s) arriving += count(s, r);
            fits = fits && arriving <= static_cast<std::size_t>(extra_[r]) &&
                   incoming_bytes(r) <= static_cast<std::size_t>(extra_[P + r]);
        }
        if (!fits) {
            detail::local_outcome grown;
            grown.run([&] {
                ws_.element_view(c, total);
                ws_.bytes(slot::incoming, incoming_bytes(me));
            });
            detail::agree(comm_, rank_, detail::operation::device_migrate, grown, id_, 0,
                          W::signature);
        }

        // The messages: one per peer, in rank order, each padded to 16 bytes.
        out_.clear();
        in_.clear();
        pieces_.clear();
        std::size_t out_bytes = 0, in_bytes = 0, leaving = 0;
        for (std::size_t r = 0; r < P; ++r) {
            const std::size_t k = count(me, r);
            if (r == me || k == 0) continue;
            out_.push_back(
                {static_cast<int>(r), out_bytes, detail::message_bytes(W::bytes_per_element, k)});
            out_bytes += out_.back().bytes;
        }
        for (std::size_t s = 0; s < P; ++s) {
            const std::size_t k = count(s, me);
            if (s == me || k == 0) continue;
            in_.push_back(
                {static_cast<int>(s), in_bytes, detail::message_bytes(W::bytes_per_element, k)});
            in_bytes += in_.back().bytes;
        }
        std::byte* outgoing = static_cast<std::byte*>(ws_.bytes(slot::outgoing, out_bytes));
        std::byte* incoming = static_cast<std::byte*>(ws_.bytes(slot::incoming, in_bytes));
        // Pack pieces: the leaving elements, per peer. Then what the new block is made of: the
        // elements that stay (self) and those that arrive, per source rank.
        for (std::size_t r = 0, m = 0; r < P; ++r) {
            const std::size_t k = count(me, r);
            if (r == me || k == 0) continue;
            pieces_.push_back({0, k, static_cast<std::uint64_t>(census_[r]), nullptr,
                               outgoing + out_[m++].offset, 0});
            leaving += k;
        }
        const std::size_t pack_pieces = pieces_.size();
        detail::piece self{};
        for (std::size_t s = 0, m = 0, at = 0; s < P; at += count(s, me), ++s) {
            const std::size_t k = count(s, me);
            if (s == me)
                self = {at, k, static_cast<std::uint64_t>(census_[me]), nullptr, nullptr, 0};
            else if (k != 0)
                pieces_.push_back({at, k, 0, incoming + in_[m++].offset, nullptr, 0});
        }
        sent_ = leaving;
        kept_ = count(me, me);
        received_ = total - kept_;

        const auto src = layout::view<const T, L, M>(c.view());
        const auto dst = ws_.element_view(c, total); // fits: nothing allocated here
        const auto* order = static_cast<const std::uint32_t*>(ws_.bytes(slot::indices_alt, 0));
        const detail::piece* pack = pieces_.data();
        const detail::piece* arrivals = pack + pack_pieces;
        const detail::piece* end = pack + pieces_.size();
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            for_each_launch(pack, arrivals, [&](const detail::pieces& t, unsigned grid) {
                detail::pack_kernel<T, L, M, K...><<<grid, block, 0, stream>>>(src, order, t);
            });
            // The elements that stay move on a second stream while the messages travel, and
            // the stream joins it again before the container takes the new block. A transport
            // that queues its messages on the stream (NCCL) goes first, so that its kernel has
            // the SMs it needs before the copy takes the rest.
            const bool fork = self.count != 0;
            auto stay = [&](cudaStream_t on) {
                for_each_launch(&self, &self + 1, [&](const detail::pieces& t, unsigned grid) {
                    detail::assemble_kernel<T, L, M, K...>
                        <<<grid, block, 0, on>>>(dst, src, order, t);
                });
            };
            if (fork) fork_.record(stream);
            if (fork && !queues_on_stream) stay(fork_.side());
            transport_.exchange(outgoing, out_, incoming, in_, stream);
            if (fork && queues_on_stream) stay(fork_.side());
            for_each_launch(arrivals, end, [&](const detail::pieces& t, unsigned grid) {
                detail::assemble_kernel<T, L, M, K...>
                    <<<grid, block, 0, stream>>>(dst, src, order, t);
            });
            if (fork) fork_.join(stream);
        }(std::make_index_sequence<W::count>{});
        ws_.adopt_elements(c, total);
    }

    static constexpr unsigned block = layout::extension::cuda::block_size;
    static constexpr bool queues_on_stream = requires { requires Transport::queues_on_stream; };

    /// launch(table, grid) for the pieces in [first, last), at most pieces::capacity a launch.
    template <class Launch>
    static void for_each_launch(const detail::piece* first, const detail::piece* last,
                                Launch launch) {
        for (; first != last;) {
            detail::pieces t{};
            t.count = static_cast<unsigned>(
                std::min<std::ptrdiff_t>(detail::pieces::capacity, last - first));
            for (unsigned k = 0; k < t.count; ++k, ++first) {
                t.p[k] = *first;
                t.p[k].thread = t.threads;
                t.threads += first->count;
            }
            launch(t, layout::extension::cuda::grid_size(t.threads, block, function));
            layout::cuda::check_launch(function);
        }
    }

    /// Sorts the element positions by destination (stable) into slot indices_alt, reads the
    /// counts back (the migration's host wait) and sets census_[b] to where bucket b starts in
    /// that order (b in [0, ranks + 2]; the last is n).
    template <class Destinations>
    void sort_by_destination(std::size_t n, Destinations dest, cudaStream_t stream) {
        namespace ext = layout::extension::cuda;
        const auto count = static_cast<std::uint32_t>(n);
        auto* bucket = ws_.get<std::uint32_t>(slot::keys, n);
        auto* bucket_sorted = ws_.get<std::uint32_t>(slot::keys_alt, n);
        auto* index = ws_.get<std::uint32_t>(slot::indices, n);
        auto* order = ws_.get<std::uint32_t>(slot::indices_alt, n);
        auto* counts = ws_.get<unsigned long long>(slot::counter, ranks() + 3);
        layout::cuda::check(cudaMemsetAsync(counts, 0, host_bytes(), stream), "cudaMemsetAsync");
        if (n != 0) {
            const std::size_t shared = (ranks() + 2) * sizeof(unsigned);
            const bool shared_counts = shared <= 32 * 1024;
            detail::classify_kernel<<<ext::grid_size(n, ext::block_size, function), ext::block_size,
                                      shared_counts ? shared : 0, stream>>>(
                dest, count, size_, bucket, index, counts, counts + ranks() + 2, shared_counts);
            layout::cuda::check_launch(function);
            // Buckets 0..ranks+1: only their low bits take part (one pass for up to 254 ranks).
            const int end_bit = std::bit_width(static_cast<unsigned>(size_ + 1));
            std::size_t temp_bytes = 0;
            layout::cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, bucket,
                                                                bucket_sorted, index, order, count,
                                                                0, end_bit, stream),
                                "cub::DeviceRadixSort::SortPairs");
            void* temp = ws_.bytes(slot::temp, temp_bytes);
            layout::cuda::check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, bucket,
                                                                bucket_sorted, index, order, count,
                                                                0, end_bit, stream),
                                "cub::DeviceRadixSort::SortPairs");
        }
        layout::cuda::check(
            cudaMemcpyAsync(counts_, counts, host_bytes(), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync (migration counts)");
        layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        census_.assign(ranks() + 3, 0);
        for (std::size_t b = 0; b + 1 < census_.size(); ++b)
            census_[b + 1] = census_[b] + static_cast<long long>(counts_[b]);
    }

    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    std::int64_t id_ = 0;
    Transport transport_;
    layout::cuda::workspace ws_;
    detail::byte_buffer<layout::cuda::pinned_memory> host_;
    unsigned long long* counts_ = nullptr; // pinned: per bucket, then the first bad element
    std::vector<long long> census_;
    std::vector<std::int64_t> extra_;
    std::vector<message_range> out_, in_;
    std::vector<detail::piece> pieces_;
    detail::side_stream fork_;
    std::size_t sent_ = 0, received_ = 0, kept_ = 0;
};

} // namespace layout::mpi
