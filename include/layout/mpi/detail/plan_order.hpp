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
/// Counts travel only between named neighbours when the plan has them (else one MPI_Alltoall;
/// peer_ranks.hpp).
/// count() is local and comes before the plan's agreement (all that can throw on one rank
/// alone); place() and exchange_counts() after it allocate nothing.
#pragma once

#include "../error.hpp"
#include "message_layout.hpp"
#include "peer_ranks.hpp"

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
        size_ = size;
        std::string problem = ranks_.set(me, size, neighbours, has_neighbours);
        slot_counts_.assign(ranks_.count(), 0);
        peer_counts_.assign(ranks_.count(), 0);
        return problem;
    }
    /// Collective, at construction: see peer_ranks::check_symmetric.
    void check_symmetric(MPI_Comm comm) const { ranks_.check_symmetric(comm); }

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
                (r < 0 || r >= size_) ? ranks_.count() : ranks_.slot_of(static_cast<int>(r));
            if (slot == ranks_.count()) {
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
        sends_.reserve(ranks_.count());
        recvs_.reserve(ranks_.count());
        return problem;
    }

    /// After the agreement: counting sort, stable, so each rank's elements keep their source
    /// order (order_'s capacity was reserved by count: nothing here allocates); then the counts
    /// travel over comm, and the segments follow. A new version of the order.
    template <class IndexOf>
    void place(std::size_t n, IndexOf index_of, std::size_t source_size, MPI_Comm comm) {
        std::vector<std::size_t>& next = peer_counts_; // reused as scratch before the exchange
        send_total_ = 0;
        for (std::size_t s = 0; s < ranks_.count(); ++s) {
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

    bool neighbour_mode() const noexcept { return ranks_.neighbour_mode(); }
    std::int64_t version() const noexcept { return version_; }
    std::size_t source_size() const noexcept { return source_size_; }
    std::size_t send_total() const noexcept { return send_total_; }
    std::size_t recv_total() const noexcept { return recv_total_; }
    /// Source element of each sent item, by rank then source order.
    const std::vector<std::size_t>& order() const noexcept { return order_; }

private:
    /// Counts to each slot's rank; from each, how many come here. Then the segments.
    void exchange_counts(MPI_Comm comm) {
        ranks_.exchange(slot_counts_, peer_counts_, comm);
        sends_.clear();
        recvs_.clear();
        std::size_t sent = 0;
        recv_total_ = 0;
        for (std::size_t s = 0; s < ranks_.count(); ++s) {
            if (slot_counts_[s] != 0) sends_.push_back({ranks_.rank(s), sent, slot_counts_[s]});
            sent += slot_counts_[s];
            if (peer_counts_[s] != 0)
                recvs_.push_back({ranks_.rank(s), recv_total_, peer_counts_[s]});
            recv_total_ += peer_counts_[s];
        }
    }

    int size_ = 1;
    peer_ranks ranks_; // the slots: every rank, or the neighbours and self, ascending
    std::int64_t version_ = 0;
    std::vector<std::size_t> slot_counts_, peer_counts_; // per slot: sent, received
    std::vector<int> item_slots_;
    std::vector<std::size_t> order_;
    std::vector<segment> sends_, recvs_;
    std::size_t send_total_ = 0, recv_total_ = 0, source_size_ = 0;
};

} // namespace layout::mpi::detail
