/// \file mpi/detail/device_counts.hpp
/// Who sends how many elements to whom in a device-planned exchange (device_exchange.hpp moves
/// them): this rank's items sorted by destination rank on the GPU, their counts read back (the
/// exchange's one host wait; sort_by_bucket), then the count matrix agreed (agree): one
/// MPI_Allreduce that carries the plans' agreement, each rank's room and every rank's counts, or,
/// with neighbours, the agreement alone and then the counts point to point with the neighbours
/// only (a halo's ranks exchange with a few others; the reduction would grow with the square of
/// the ranks).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/device_counts.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../cuda/detail/radix_sort.hpp"
#include "../../cuda/error.hpp"
#include "../../cuda/memory.hpp"
#include "../../cuda/workspace.hpp"
#include "../../extension.hpp"
#include "../error.hpp"
#include "agreement.hpp"
#include "byte_buffer.hpp"
#include "device_exchange_kernels.hpp"
#include "peer_ranks.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace layout::mpi::detail {

class device_counts {
public:
    using slot = layout::cuda::workspace::slot;

    device_counts() = default;
    device_counts(const device_counts&) = delete;
    device_counts& operator=(const device_counts&) = delete;
    ~device_counts() {
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!finalized && counts_comm_ != MPI_COMM_NULL) MPI_Comm_free(&counts_comm_);
    }

    /// Local, inside the plan's construction: every rank of a communicator of `size`, or the
    /// neighbours and this rank; everything kept on the host reserved, so that nothing there
    /// grows after an agreement. Returns what is wrong with the neighbours, if anything.
    std::string set(int rank, int size, std::span<const int> neighbours, bool has_neighbours) {
        rank_ = rank;
        size_ = size;
        std::string problem = peers_.set(rank, size, neighbours, has_neighbours);
        counts_ = reinterpret_cast<unsigned long long*>(host_.reserve(host_bytes()));
        census_.reserve(ranks() + 3);
        if (has_neighbours) {
            peer_sent_.assign(peers_.count(), 0);
            peer_received_.assign(peers_.count(), 0);
            sent_.assign(ranks(), 0);
            received_.assign(ranks(), 0);
        } else {
            extra_.reserve(2 * ranks() + ranks() * ranks());
        }
        return problem;
    }
    /// Collective over comm, after the construction's agreement: neighbour lists checked
    /// symmetric (every rank throws otherwise), and a communicator of the plan's own for their
    /// counts.
    void connect(MPI_Comm comm) {
        peers_.check_symmetric(comm);
        if (!peers_.neighbour_mode()) return;
        check(MPI_Comm_dup(comm, &counts_comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(counts_comm_, MPI_ERRORS_RETURN);
    }

    std::size_t ranks() const noexcept { return static_cast<std::size_t>(size_); }
    std::size_t me() const noexcept { return static_cast<std::size_t>(rank_); }
    std::size_t allocations() const noexcept { return host_.allocations(); }

    /// Sorts positions [0, n) by the bucket of dest(i) (its rank; -1: dropped, after the ranks;
    /// out of range: last), stably, into ws's slot indices_alt, reads the counts back and keeps
    /// where each bucket begins. Returns the order. n < 2^32 - 1.
    template <class Destinations>
    const std::uint32_t* sort_by_bucket(layout::cuda::workspace& ws, std::size_t n,
                                        Destinations dest, const char* function) {
        namespace ext = layout::extension::cuda;
        constexpr unsigned block = ext::block_size;
        const cudaStream_t s = layout::cuda::native(ws.stream());
        const auto count = static_cast<std::uint32_t>(n);
        auto* bucket = ws.get<std::uint32_t>(slot::keys, n);
        auto* bucket_sorted = ws.get<std::uint32_t>(slot::keys_alt, n);
        auto* index = ws.get<std::uint32_t>(slot::indices, n);
        auto* order = ws.get<std::uint32_t>(slot::indices_alt, n);
        auto* counts = ws.get<unsigned long long>(slot::counter, ranks() + 3);
        layout::cuda::check(cudaMemsetAsync(counts, 0, host_bytes(), s), "cudaMemsetAsync");
        if (n != 0) {
            const std::size_t shared = (ranks() + 2) * sizeof(unsigned);
            const bool shared_counts = shared <= 32 * 1024;
            classify_kernel<<<ext::grid_size(n, block, function), block, shared_counts ? shared : 0,
                              s>>>(dest, count, size_, bucket, index, counts, counts + ranks() + 2,
                                   shared_counts);
            layout::cuda::check_launch(function);
            // Buckets 0..ranks+1: only their low bits take part (one pass for up to 254 ranks).
            const int end_bit = std::bit_width(static_cast<unsigned>(size_ + 1));
            layout::cuda::detail::radix_sort_pairs(
                static_cast<const std::uint32_t*>(bucket), bucket_sorted,
                static_cast<const std::uint32_t*>(index), order, count, 0, end_bit, ws, s);
        }
        layout::cuda::check(
            cudaMemcpyAsync(counts_, counts, host_bytes(), cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (counts)");
        layout::cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        census_.assign(ranks() + 3, 0);
        for (std::size_t b = 0; b + 1 < census_.size(); ++b)
            census_[b + 1] = census_[b] + static_cast<long long>(counts_[b]);
        return order;
    }
    /// After sort_by_bucket: whether an item's destination was out of range, and which item
    /// (the first) and destination.
    bool any_bad() const noexcept { return counts_[ranks() + 2] != 0; }
    std::size_t first_bad_item() const noexcept { return ~counts_[ranks() + 2] >> 32; }
    int first_bad_destination() const noexcept {
        return static_cast<std::int32_t>(~counts_[ranks() + 2] & 0xffffffffu);
    }
    /// After sort_by_bucket: the items sorted to rank r, and where they begin in the order.
    std::size_t sorted_count(std::size_t r) const noexcept {
        return static_cast<std::size_t>(census_[r + 1] - census_[r]);
    }
    std::size_t sorted_first(std::size_t r) const noexcept {
        return static_cast<std::size_t>(census_[r]);
    }
    /// After sort_by_bucket: a rank that items were sorted to and that is not a neighbour, or -1.
    int outside_neighbours() const noexcept {
        if (peers_.neighbour_mode())
            for (std::size_t r = 0; r < ranks(); ++r)
                if (sorted_count(r) != 0 && peers_.slot_of(static_cast<int>(r)) == peers_.count())
                    return static_cast<int>(r);
        return -1;
    }

    /// Collective over comm: the agreement of plan `id` at `version` (agreement.hpp), with this
    /// rank's room (elements, incoming bytes) and sorted counts in the same reduction where
    /// local is ok; with neighbours, the agreement alone, then the counts point to point (the
    /// room is not carried: every_rank_has_room cannot tell). Throws on every rank if any
    /// rank's local outcome is not ok or the ranks disagree.
    void agree(MPI_Comm comm, operation op, const local_outcome& local, std::int64_t id,
               std::int64_t version, std::int64_t signature, std::size_t element_room,
               std::size_t incoming_room) {
        const std::size_t P = ranks();
        if (peers_.neighbour_mode()) {
            detail::agree(comm, rank_, op, local, id, version, signature, true);
            for (std::size_t k = 0; k < peers_.count(); ++k)
                peer_sent_[k] = sorted_count(static_cast<std::size_t>(peers_.rank(k)));
            peers_.exchange(peer_sent_, peer_received_, counts_comm_);
            std::fill(sent_.begin(), sent_.end(), std::size_t{0});
            std::fill(received_.begin(), received_.end(), std::size_t{0});
            for (std::size_t k = 0; k < peers_.count(); ++k) {
                sent_[static_cast<std::size_t>(peers_.rank(k))] = peer_sent_[k];
                received_[static_cast<std::size_t>(peers_.rank(k))] = peer_received_[k];
            }
            return;
        }
        extra_.assign(2 * P + P * P, 0);
        if (local.ok()) {
            extra_[me()] = static_cast<std::int64_t>(element_room);
            extra_[P + me()] = static_cast<std::int64_t>(incoming_room);
            for (std::size_t r = 0; r < P; ++r)
                extra_[2 * P + me() * P + r] = static_cast<std::int64_t>(sorted_count(r));
        }
        detail::agree(comm, rank_, op, local, id, version, signature, true, extra_);
    }
    /// After agree: what rank `from` sends to rank `to` (with neighbours, one of them this
    /// rank), and what arrives at rank r in all.
    std::size_t count(std::size_t from, std::size_t to) const noexcept {
        if (peers_.neighbour_mode()) return from == me() ? sent_[to] : received_[from];
        return static_cast<std::size_t>(extra_[2 * ranks() + from * ranks() + to]);
    }
    std::size_t arriving(std::size_t r) const noexcept {
        std::size_t total = 0;
        for (std::size_t s = 0; s < ranks(); ++s) total += count(s, r);
        return total;
    }
    /// After agree: whether every rank has the room it carried for what arrives there, its
    /// elements and the incoming bytes incoming_bytes(r) says; with neighbours, where no rank
    /// knows another's room, false.
    template <class IncomingBytes>
    bool every_rank_has_room(IncomingBytes incoming_bytes) const {
        if (peers_.neighbour_mode()) return false;
        for (std::size_t r = 0; r < ranks(); ++r)
            if (arriving(r) > static_cast<std::size_t>(extra_[r]) ||
                incoming_bytes(r) > static_cast<std::size_t>(extra_[ranks() + r]))
                return false;
        return true;
    }

private:
    std::size_t host_bytes() const noexcept { return (ranks() + 3) * sizeof(unsigned long long); }

    int rank_ = 0, size_ = 1;
    peer_ranks peers_;
    MPI_Comm counts_comm_ = MPI_COMM_NULL; // with neighbours: their counts' messages
    std::vector<std::size_t> peer_sent_, peer_received_, sent_, received_; // with neighbours
    byte_buffer<layout::cuda::pinned_memory> host_;
    unsigned long long* counts_ = nullptr; // pinned: per bucket, then the first bad item
    std::vector<long long> census_;        // where each bucket begins in the order
    std::vector<std::int64_t> extra_;      // each rank's room, then the count matrix
};

} // namespace layout::mpi::detail
