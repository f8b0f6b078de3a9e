/// \file mpi/detail/plan_order.hpp
/// What a host-planned plan decides when it is built: which source elements go to which rank
/// (its order: grouped by rank, each rank's in source order), the segments it sends and
/// receives, and how often it was rebuilt (its version, which every exchange's agreement
/// carries). Apart from the messages (message_layout.hpp, point_to_point.hpp): an order is
/// built once per update and serves every exchange until the next.
///
///     items (element, rank): (0, 2) (1, 0) (2, 2) (3, -1) (4, 1)     on rank 0 of 3
///     order  = {1, 4, 0, 2}        sends = {rank 0: [0, 1), rank 1: [1, 2), rank 2: [2, 4)}
///     recvs  = one segment per source rank with elements for rank 0, in rank order
///
/// Counts travel only between named neighbours when the plan has them (else one MPI_Alltoall).
/// count() is local and comes before the plan's agreement (all that can throw on one rank
/// alone); place() and exchange_counts() after it allocate nothing.
#pragma once

#include "../error.hpp"
#include "message_layout.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace layout::mpi::detail {

class plan_order {
public:
    /// Local: the ranks this plan may send to (every rank, or the neighbours and self). Returns
    /// what is wrong with the neighbours, if anything.
    std::string set_ranks(int me, int size, std::span<const int> neighbours, bool has_neighbours) {
        me_ = me;
        size_ = size;
        neighbour_mode_ = has_neighbours;
        if (has_neighbours) {
            ranks_.assign(neighbours.begin(), neighbours.end());
            for (int r : ranks_)
                if (r < 0 || r >= size)
                    return "layout::mpi: neighbour rank " + std::to_string(r) +
                           " is out of range for a communicator of " + std::to_string(size) +
                           " ranks";
            ranks_.push_back(me); // a rank may always send to itself
            std::sort(ranks_.begin(), ranks_.end());
            ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
        } else {
            ranks_.resize(static_cast<std::size_t>(size));
            for (int r = 0; r < size; ++r) ranks_[static_cast<std::size_t>(r)] = r;
        }
        self_slot_ = slot_of(me);
        slot_counts_.assign(ranks_.size(), 0);
        peer_counts_.assign(ranks_.size(), 0);
        return {};
    }

    /// Neighbour lists must be symmetric, or a rank would wait for counts from a rank that never
    /// sends them. Each listed pair adds a hash of (low, high) when listed by low and subtracts it
    /// when listed by high: the sum over all ranks is zero exactly when every pair is listed both
    /// ways (barring a 2^-64 collision). One more MPI_Allreduce over comm, at construction only.
    void check_symmetric(MPI_Comm comm) const {
        if (!neighbour_mode_) return;
        std::uint64_t sum = 0;
        for (int r : ranks_) {
            if (r == me_) continue;
            const auto low = static_cast<std::uint64_t>(std::min(r, me_));
            const auto high = static_cast<std::uint64_t>(std::max(r, me_));
            std::uint64_t h = (low << 32 | high) * 0x9E3779B97F4A7C15ull;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 32;
            sum += me_ < r ? h : ~h + 1;
        }
        check(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm),
              "MPI_Allreduce (neighbour check)", me_);
        if (sum != 0)
            throw error("layout::mpi: the neighbour lists are not symmetric (some rank a names b "
                        "where b does not name a); every rank throws",
                        -1);
    }

    /// Local, before the agreement: each item's slot and the count per slot, checked; the
    /// storage that place() and exchange_counts() need, reserved. Items k in [0, n): item k
    /// sends source element index_of(k) (< source_size) to rank rank_of(k); -1 drops the item
    /// when allow_drop. Returns what is wrong with the items, if anything.
    template <class RankOf, class IndexOf>
    std::string count(std::size_t n, RankOf rank_of, IndexOf index_of, std::size_t source_size,
                      bool allow_drop, const char* what) {
        std::string problem;
        item_slots_.resize(n);
        std::fill(slot_counts_.begin(), slot_counts_.end(), std::size_t{0});
        for (std::size_t k = 0; k < n && problem.empty(); ++k) {
            const auto r = static_cast<long long>(rank_of(k));
            if (allow_drop && r == -1) {
                item_slots_[k] = -1;
                continue;
            }
            const std::size_t slot =
                (r < 0 || r >= size_) ? ranks_.size() : slot_of(static_cast<int>(r));
            if (slot == ranks_.size()) {
                problem = "layout::mpi: " + std::string(what) + " " + std::to_string(k) +
                          " names rank " + std::to_string(r) +
                          ((r < 0 || r >= size_)
                               ? std::string(", out of range for a communicator of ") +
                                     std::to_string(size_) + " ranks" +
                                     (allow_drop ? " (-1 drops an element)" : "")
                               : std::string(", which is not one of this rank's neighbours"));
                break;
            }
            const auto index = static_cast<std::size_t>(index_of(k));
            if (index >= source_size) {
                problem = "layout::mpi: " + std::string(what) + " " + std::to_string(k) +
                          " names element " + std::to_string(index) + " of " +
                          std::to_string(source_size);
                break;
            }
            item_slots_[k] = static_cast<int>(slot);
            ++slot_counts_[slot];
        }
        std::size_t total = 0;
        for (std::size_t c : slot_counts_) total += c;
        order_.reserve(total);
        requests_.reserve(2 * ranks_.size());
        sends_.reserve(ranks_.size());
        recvs_.reserve(ranks_.size());
        return problem;
    }

    /// After the agreement: counting sort, stable, so each rank's elements keep their source
    /// order (order_'s capacity was reserved by count: nothing here allocates); then the counts
    /// travel over comm, and the segments follow. A new version of the order.
    template <class IndexOf>
    void place(std::size_t n, IndexOf index_of, std::size_t source_size, MPI_Comm comm) {
        std::vector<std::size_t>& next = peer_counts_; // reused as scratch before the exchange
        send_total_ = 0;
        for (std::size_t s = 0; s < ranks_.size(); ++s) {
            next[s] = send_total_;
            send_total_ += slot_counts_[s];
        }
        order_.resize(send_total_);
        for (std::size_t k = 0; k < n; ++k)
            if (item_slots_[k] >= 0)
                order_[next[static_cast<std::size_t>(item_slots_[k])]++] =
                    static_cast<std::size_t>(index_of(k));
        source_size_ = source_size;
        exchange_counts(comm);
        ++version_;
    }

    /// The segments sent and received in a direction.
    std::span<const segment> out_segments(direction d) const {
        return d == direction::forward ? sends_ : recvs_;
    }
    std::span<const segment> in_segments(direction d) const {
        return d == direction::forward ? recvs_ : sends_;
    }

    bool neighbour_mode() const noexcept { return neighbour_mode_; }
    std::int64_t version() const noexcept { return version_; }
    std::size_t source_size() const noexcept { return source_size_; }
    std::size_t send_total() const noexcept { return send_total_; }
    std::size_t recv_total() const noexcept { return recv_total_; }
    /// Source element of each sent item, by rank then source order.
    const std::vector<std::size_t>& order() const noexcept { return order_; }

private:
    std::size_t slot_of(int r) const {
        if (!neighbour_mode_) return static_cast<std::size_t>(r);
        const auto it = std::lower_bound(ranks_.begin(), ranks_.end(), r);
        return (it != ranks_.end() && *it == r) ? static_cast<std::size_t>(it - ranks_.begin())
                                                : ranks_.size();
    }

    /// Counts to each slot's rank; from each, how many come here. Then the segments.
    void exchange_counts(MPI_Comm comm) {
        static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
        if (!neighbour_mode_) {
            check(MPI_Alltoall(slot_counts_.data(), 1, MPI_UINT64_T, peer_counts_.data(), 1,
                               MPI_UINT64_T, comm),
                  "MPI_Alltoall (counts)", me_);
        } else {
            requests_.clear();
            for (std::size_t s = 0; s < ranks_.size(); ++s) {
                if (s == self_slot_) continue;
                requests_.emplace_back();
                check(MPI_Irecv(&peer_counts_[s], 1, MPI_UINT64_T, ranks_[s], 1, comm,
                                &requests_.back()),
                      "MPI_Irecv (counts)", me_);
            }
            for (std::size_t s = 0; s < ranks_.size(); ++s) {
                if (s == self_slot_) continue;
                requests_.emplace_back();
                check(MPI_Isend(&slot_counts_[s], 1, MPI_UINT64_T, ranks_[s], 1, comm,
                                &requests_.back()),
                      "MPI_Isend (counts)", me_);
            }
            const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                                         MPI_STATUSES_IGNORE);
            requests_.clear();
            check(code, "MPI_Waitall (counts)", me_);
            peer_counts_[self_slot_] = slot_counts_[self_slot_];
        }
        sends_.clear();
        recvs_.clear();
        std::size_t sent = 0;
        recv_total_ = 0;
        for (std::size_t s = 0; s < ranks_.size(); ++s) {
            if (slot_counts_[s] != 0) sends_.push_back({ranks_[s], sent, slot_counts_[s]});
            sent += slot_counts_[s];
            if (peer_counts_[s] != 0) recvs_.push_back({ranks_[s], recv_total_, peer_counts_[s]});
            recv_total_ += peer_counts_[s];
        }
    }

    int me_ = 0, size_ = 1;
    bool neighbour_mode_ = false;
    std::vector<int> ranks_; // the slots: every rank, or the neighbours and self, ascending
    std::size_t self_slot_ = 0;
    std::int64_t version_ = 0;
    std::vector<std::size_t> slot_counts_, peer_counts_; // per slot: sent, received
    std::vector<int> item_slots_;
    std::vector<std::size_t> order_;
    std::vector<segment> sends_, recvs_;
    std::size_t send_total_ = 0, recv_total_ = 0, source_size_ = 0;
    std::vector<MPI_Request> requests_; // the neighbours' counts
};

} // namespace layout::mpi::detail
