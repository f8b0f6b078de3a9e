/// \file mpi/detail/peer_ranks.hpp
/// The ranks a plan exchanges with, as slots: every rank of the communicator, or the named
/// neighbours and the rank itself (ascending); and how per-slot counts travel between them: one
/// MPI_Alltoall over every rank, or point to point with each neighbour only. The host-planned
/// plans (plan_order.hpp) and the device-planned ones (device_counts.hpp) share it.
#pragma once

#include "../error.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace layout::mpi::detail {

class peer_ranks {
public:
    /// Local: every rank, or the neighbours and this rank. Returns what is wrong with the
    /// neighbours, if anything.
    std::string set(int me, int size, std::span<const int> neighbours, bool has_neighbours) {
        me_ = me;
        neighbour_mode_ = has_neighbours;
        ranks_.clear();
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
        self_ = slot_of(me);
        requests_.reserve(2 * ranks_.size());
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

    /// The slot of rank r, or count() where r is not one of them.
    std::size_t slot_of(int r) const noexcept {
        if (!neighbour_mode_)
            return r >= 0 && static_cast<std::size_t>(r) < ranks_.size()
                       ? static_cast<std::size_t>(r)
                       : ranks_.size();
        const auto it = std::lower_bound(ranks_.begin(), ranks_.end(), r);
        return (it != ranks_.end() && *it == r) ? static_cast<std::size_t>(it - ranks_.begin())
                                                : ranks_.size();
    }
    std::size_t count() const noexcept { return ranks_.size(); }
    int rank(std::size_t slot) const noexcept { return ranks_[slot]; }
    std::size_t self() const noexcept { return self_; }
    bool neighbour_mode() const noexcept { return neighbour_mode_; }

    /// Collective over the slots' ranks (every rank, or this rank's neighbours): sent[s] goes to
    /// slot s's rank, and received[s] is what that rank sent here (this rank's own, copied).
    /// Point to point on comm, which must be the plan's own (no other messages with tag 1), in
    /// neighbour mode; else one MPI_Alltoall. Allocates nothing (set reserved it).
    void exchange(std::span<const std::size_t> sent, std::span<std::size_t> received,
                  MPI_Comm comm) {
        static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
        if (!neighbour_mode_) {
            check(
                MPI_Alltoall(sent.data(), 1, MPI_UINT64_T, received.data(), 1, MPI_UINT64_T, comm),
                "MPI_Alltoall (counts)", me_);
            return;
        }
        requests_.clear();
        for (std::size_t s = 0; s < ranks_.size(); ++s) {
            if (s == self_) continue;
            requests_.emplace_back();
            check(MPI_Irecv(&received[s], 1, MPI_UINT64_T, ranks_[s], 1, comm, &requests_.back()),
                  "MPI_Irecv (counts)", me_);
        }
        for (std::size_t s = 0; s < ranks_.size(); ++s) {
            if (s == self_) continue;
            requests_.emplace_back();
            check(MPI_Isend(&sent[s], 1, MPI_UINT64_T, ranks_[s], 1, comm, &requests_.back()),
                  "MPI_Isend (counts)", me_);
        }
        const int code =
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
        check(code, "MPI_Waitall (counts)", me_);
        received[self_] = sent[self_];
    }

private:
    int me_ = 0;
    bool neighbour_mode_ = false;
    std::vector<int> ranks_; // every rank, or the neighbours and this rank, ascending
    std::size_t self_ = 0;
    std::vector<MPI_Request> requests_;
};

} // namespace layout::mpi::detail
