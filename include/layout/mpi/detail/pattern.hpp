/// \file mpi/detail/pattern.hpp
/// The communication pattern that migration and halo plans share: which source elements go to
/// which rank (grouped by rank, in source order), how many arrive from each rank, and the
/// non-blocking exchange of one message per peer.
///
///     items (element, rank): (0, 2) (1, 0) (2, 2) (3, -1) (4, 1)     on rank 0 of 3
///     order_  = {1, 4, 0, 2}        sends_ = {rank 0: [0, 1), rank 1: [1, 2), rank 2: [2, 4)}
///     recvs_  = one segment per source rank with elements for rank 0, in rank order
///
/// Counts travel only between named neighbours when the plan has them (else one MPI_Alltoall),
/// and every collective step passes through agree(): one MPI_Allreduce in which each rank says
/// whether its input was refused or its own preparation threw (an allocation, a device error),
/// and which operation, plan and fields it is running, so that the ranks either all go on or all
/// throw before any element moves. Everything that can throw on one rank alone (checks, buffer
/// growth, packing) comes before it; after it come only the messages and the unpacking into
/// memory already reserved, so no rank can leave the others waiting for it.
#pragma once

#include "../../memory.hpp"
#include "../error.hpp"
#include "../fields.hpp"
#include "agreement.hpp"
#include "byte_buffer.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace layout::mpi {
namespace detail {

/// Elements of one peer's message: the peer, and [offset, offset + count) in the plan's order.
struct segment {
    int rank;
    std::size_t offset;
    std::size_t count;
};

/// Direction of an exchange: forward sends the plan's segments (migration, halo gather);
/// reverse sends back what arrived (halo scatter_add).
enum class direction { forward, reverse };

/// State that a plan keeps for memory this header does not handle (the device path of
/// <layout/mpi/cuda.hpp>: device buffers and the transports that move their messages), owned
/// here without knowing its type. The pattern asks it only what every plan must answer whatever
/// its memory: how many buffers it allocated, and to wait for messages it has in flight (a finish
/// that refuses, a container that must grow first). The messages themselves are posted by that
/// state's own typed transport, never through the pattern.
class attachment {
public:
    attachment() = default;
    attachment(const attachment&) = delete;
    attachment& operator=(const attachment&) = delete;
    attachment(attachment&& o) noexcept
        : state_(std::exchange(o.state_, nullptr)), ops_(std::exchange(o.ops_, nullptr)) {}
    attachment& operator=(attachment&& o) noexcept {
        attachment(std::move(o)).swap(*this);
        return *this;
    }
    ~attachment() { reset(); }
    void swap(attachment& o) noexcept {
        std::swap(state_, o.state_);
        std::swap(ops_, o.ops_);
    }
    void reset() noexcept {
        if (state_) ops_->destroy(state_);
        state_ = nullptr;
        ops_ = nullptr;
    }

    /// The state, made on first use. State: default-constructible, with allocations() and
    /// wait(). One state type per plan (the device path's).
    template <class State>
    State& get() {
        if (!state_) {
            state_ = new State();
            ops_ = &ops_for<State>;
        }
        return *static_cast<State*>(state_);
    }
    std::size_t allocations() const noexcept { return state_ ? ops_->allocations(state_) : 0; }
    void wait() {
        if (state_) ops_->wait(state_);
    }

private:
    struct operations {
        void (*destroy)(void*) noexcept;
        std::size_t (*allocations)(const void*) noexcept;
        void (*wait)(void*);
    };
    template <class State>
    static constexpr operations ops_for{
        [](void* p) noexcept { delete static_cast<State*>(p); },
        [](const void* p) noexcept { return static_cast<const State*>(p)->allocations(); },
        [](void* p) { static_cast<State*>(p)->wait(); }};

    void* state_ = nullptr;
    const operations* ops_ = nullptr;
};

class pattern {
public:
    /// Collective over comm. With has_neighbours, counts travel only between this rank and
    /// neighbours (which must be symmetric: b lists a if a lists b; checked here).
    pattern(MPI_Comm comm, std::span<const int> neighbours, bool has_neighbours)
        : user_comm_(comm), neighbour_mode_(has_neighbours) {
        check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
        local_outcome local;
        local.run([&] {
            if (has_neighbours) {
                ranks_.assign(neighbours.begin(), neighbours.end());
                for (int r : ranks_)
                    if (r < 0 || r >= size_) {
                        local.problem = "layout::mpi: neighbour rank " + std::to_string(r) +
                                        " is out of range for a communicator of " +
                                        std::to_string(size_) + " ranks";
                        return;
                    }
                ranks_.push_back(rank_); // a rank may always send to itself
                std::sort(ranks_.begin(), ranks_.end());
                ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
            } else {
                ranks_.resize(static_cast<std::size_t>(size_));
                for (int r = 0; r < size_; ++r) ranks_[static_cast<std::size_t>(r)] = r;
            }
            self_slot_ = slot_of(rank_);
            slot_counts_.assign(ranks_.size(), 0);
            peer_counts_.assign(ranks_.size(), 0);
        });
        const std::int64_t mode = has_neighbours ? 1 : 0;
        const std::int64_t reduced_id =
            agree(operation::construct, local, next_plan_id(), mode, /*check_plan=*/false);
        id_ = reduced_id;
        next_plan_id() = id_ + 1;
        if (neighbour_mode_) check_symmetric();
        check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    }

    pattern(const pattern&) = delete;
    pattern& operator=(const pattern&) = delete;
    pattern(pattern&& other) noexcept { swap(other); }
    pattern& operator=(pattern&& other) noexcept {
        pattern(std::move(other)).swap(*this);
        return *this;
    }
    ~pattern() {
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!finalized) {
            if (!requests_.empty())
                MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                            MPI_STATUSES_IGNORE);
            attached_.reset(); // its transports borrow comm_ and wait for their messages
            if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
        }
    }

    void swap(pattern& o) noexcept {
        std::swap(user_comm_, o.user_comm_);
        std::swap(comm_, o.comm_);
        std::swap(rank_, o.rank_);
        std::swap(size_, o.size_);
        std::swap(neighbour_mode_, o.neighbour_mode_);
        std::swap(ranks_, o.ranks_);
        std::swap(self_slot_, o.self_slot_);
        std::swap(id_, o.id_);
        std::swap(version_, o.version_);
        std::swap(slot_counts_, o.slot_counts_);
        std::swap(peer_counts_, o.peer_counts_);
        std::swap(item_slots_, o.item_slots_);
        std::swap(order_, o.order_);
        std::swap(sends_, o.sends_);
        std::swap(recvs_, o.recvs_);
        std::swap(send_total_, o.send_total_);
        std::swap(recv_total_, o.recv_total_);
        std::swap(source_size_, o.source_size_);
        std::swap(out_bytes_, o.out_bytes_);
        std::swap(in_bytes_, o.in_bytes_);
        std::swap(requests_, o.requests_);
        std::swap(expected_, o.expected_);
        std::swap(host_send_, o.host_send_);
        std::swap(host_recv_, o.host_recv_);
        attached_.swap(o.attached_);
        std::swap(pending_, o.pending_);
        std::swap(pending_signature_, o.pending_signature_);
        std::swap(pending_direction_, o.pending_direction_);
        std::swap(statuses_, o.statuses_);
        std::swap(receives_, o.receives_);
    }

    // ---- building ------------------------------------------------------------------------------

    /// Collective. Items k in [0, n): item k sends source element index_of(k) (< source_size)
    /// to rank rank_of(k); a rank of -1 drops the item when allow_drop. Counting sort by rank,
    /// stable, so each rank's elements keep their source order. local: what the caller found
    /// (the checks and allocations here add to it). The plan is unchanged unless every rank
    /// agrees to go on.
    template <class RankOf, class IndexOf>
    void build(std::size_t n, RankOf rank_of, IndexOf index_of, std::size_t source_size,
               bool allow_drop, const char* what, local_outcome local = {}) {
        local.run([&] {
            if (pending_ != 0)
                local.problem = "layout::mpi: the plan was updated while an exchange was in "
                                "flight (call finish first)";
            else
                local.problem = count_items(n, rank_of, index_of, source_size, allow_drop, what);
        });
        agree(operation::build, local, id_, neighbour_mode_ ? 1 : 0);

        // Counting sort: offsets per slot, then each item at its slot's next place (order_'s
        // capacity was reserved before the agreement: nothing here allocates).
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
        exchange_counts();
        ++version_;
    }

private:
    /// build's local part: each item's slot and the count per slot, checked; the storage that
    /// the rest of build needs, reserved. Returns what is wrong with the items, if anything.
    template <class RankOf, class IndexOf>
    std::string count_items(std::size_t n, RankOf rank_of, IndexOf index_of,
                            std::size_t source_size, bool allow_drop, const char* what) {
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

public:
    // ---- agreement -----------------------------------------------------------------------------

    /// Collective over the user's communicator (so that ranks running different plans still meet
    /// in it): every rank says whether its input was refused or its preparation threw, and what
    /// it is running. If any rank did, or the ranks disagree, every rank throws: a rank whose
    /// preparation threw rethrows its own exception, one whose input was refused throws
    /// layout::mpi::error saying why, the others layout::mpi::error naming the rank. Returns the
    /// largest `value` (the plan id, at construction).
    std::int64_t agree(operation op, const local_outcome& local, std::int64_t value,
                       std::int64_t signature, bool check_plan = true) const {
        return detail::agree(user_comm_, rank_, op, local, value, version_, signature, check_plan);
    }

    // ---- exchanging ----------------------------------------------------------------------------

    /// The segments sent and received in a direction.
    const std::vector<segment>& out_segments(direction d) const {
        return d == direction::forward ? sends_ : recvs_;
    }
    const std::vector<segment>& in_segments(direction d) const {
        return d == direction::forward ? recvs_ : sends_;
    }

    /// Messages larger than an int of bytes go as several, in order (MPI keeps the order of
    /// messages between two ranks with the same tag and communicator).
    static constexpr std::size_t chunk = std::size_t{1} << 30;

    /// Lays out the messages of an exchange of bytes_per_element per element: out_bytes_[k] is
    /// where out segment k starts in the send buffer (self included, for in-place exchanges),
    /// in_bytes_[k] where in segment k starts in the receive buffer (self takes no room: it is
    /// read from the send buffer). Returns {send buffer bytes, receive buffer bytes}. Local: it
    /// runs before the agreement, and reserves what post() and wait() need.
    std::pair<std::size_t, std::size_t> layout_messages(direction d,
                                                        std::size_t bytes_per_element) {
        const auto& out = out_segments(d);
        const auto& in = in_segments(d);
        out_bytes_.resize(out.size());
        in_bytes_.resize(in.size());
        std::size_t send = 0, recv = 0;
        for (std::size_t k = 0; k < out.size(); ++k) {
            out_bytes_[k] = send;
            send += message_bytes(bytes_per_element, out[k].count);
        }
        std::size_t messages = 0, receives = 0; // as post() splits them
        for (std::size_t k = 0; k < in.size(); ++k) {
            in_bytes_[k] = recv;
            if (in[k].rank == rank_) continue;
            const std::size_t bytes = message_bytes(bytes_per_element, in[k].count);
            recv += bytes;
            receives += bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
        }
        messages = receives;
        for (const auto& seg : out) {
            if (seg.rank == rank_) continue;
            const std::size_t bytes = message_bytes(bytes_per_element, seg.count);
            messages += bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
        }
        // post() and wait() then allocate nothing.
        requests_.reserve(messages);
        statuses_.reserve(messages);
        expected_.reserve(receives);
        return {send, recv};
    }
    std::size_t out_byte_offset(std::size_t k) const { return out_bytes_[k]; }
    /// Where in segment k's bytes are: in the receive buffer, or (self) in the send buffer.
    const std::byte* in_message(direction d, std::size_t k, const std::byte* send_base,
                                const std::byte* recv_base) const {
        const auto& in = in_segments(d);
        if (in[k].rank != rank_) return recv_base + in_bytes_[k];
        const auto& out = out_segments(d);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j].rank == rank_) return send_base + out_bytes_[j];
        return nullptr; // unreachable: self sends exactly what self receives
    }

    /// Calls receive(rank, where, bytes) for each message this rank receives in an exchange laid
    /// out by layout_messages, then send(rank, where, bytes) for each it sends (self excluded:
    /// it reads its own part from the send buffer), in the plan's order.
    template <class Receive, class Send>
    void for_each_message(direction d, std::size_t bytes_per_element, const std::byte* send_base,
                          std::byte* recv_base, Receive&& receive, Send&& send) const {
        const auto& out = out_segments(d);
        const auto& in = in_segments(d);
        for (std::size_t k = 0; k < in.size(); ++k)
            if (in[k].rank != rank_)
                receive(in[k].rank, recv_base + in_bytes_[k],
                        message_bytes(bytes_per_element, in[k].count));
        for (std::size_t k = 0; k < out.size(); ++k)
            if (out[k].rank != rank_)
                send(out[k].rank, send_base + out_bytes_[k],
                     message_bytes(bytes_per_element, out[k].count));
    }

    /// Posts the receives and sends of an exchange whose send buffer is packed, in host memory,
    /// as MPI point-to-point messages (device memory has its own transports: cuda.hpp).
    void post(direction d, std::size_t bytes_per_element, const std::byte* send_base,
              std::byte* recv_base) {
        requests_.clear();
        expected_.clear();
        receives_ = 0;
        const int tag = d == direction::forward ? 2 : 3;
        for_each_message(
            d, bytes_per_element, send_base, recv_base,
            [&](int rank, std::byte* p, std::size_t bytes) {
                do {
                    const std::size_t part = std::min(bytes, chunk);
                    requests_.emplace_back();
                    expected_.push_back(static_cast<int>(part));
                    check(MPI_Irecv(p, static_cast<int>(part), MPI_BYTE, rank, tag, comm_,
                                    &requests_.back()),
                          "MPI_Irecv", rank_);
                    p += part;
                    bytes -= part;
                } while (bytes > 0);
                receives_ = requests_.size();
            },
            [&](int rank, const std::byte* p, std::size_t bytes) {
                do {
                    const std::size_t part = std::min(bytes, chunk);
                    requests_.emplace_back();
                    check(MPI_Isend(p, static_cast<int>(part), MPI_BYTE, rank, tag, comm_,
                                    &requests_.back()),
                          "MPI_Isend", rank_);
                    p += part;
                    bytes -= part;
                } while (bytes > 0);
            });
    }

    /// Waits for the posted messages (the attached state's too); checks each received the bytes
    /// this plan expected.
    void wait() {
        attached_.wait();
        if (requests_.empty()) return;
        statuses_.resize(requests_.size());
        const int code =
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), statuses_.data());
        requests_.clear();
        check(code, "MPI_Waitall", rank_);
        for (std::size_t k = 0; k < receives_; ++k) {
            int bytes = 0;
            MPI_Get_count(&statuses_[k], MPI_BYTE, &bytes);
            if (bytes != expected_[k])
                throw error("layout::mpi: rank " + std::to_string(statuses_[k].MPI_SOURCE) +
                                " sent " + std::to_string(bytes) +
                                " bytes where this rank's "
                                "plan expected " +
                                std::to_string(expected_[k]),
                            rank_);
        }
    }

    // ---- state ---------------------------------------------------------------------------------

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    MPI_Comm communicator() const noexcept { return user_comm_; }
    /// The plan's own duplicate, where its messages travel (and the attached transports').
    MPI_Comm messages_comm() const noexcept { return comm_; }
    std::int64_t id() const noexcept { return id_; }
    std::int64_t version() const noexcept { return version_; }
    std::size_t source_size() const noexcept { return source_size_; }
    std::size_t send_total() const noexcept { return send_total_; }
    std::size_t recv_total() const noexcept { return recv_total_; }
    const std::vector<std::size_t>& order() const noexcept { return order_; }
    /// Buffer allocations so far, host and device.
    std::size_t allocations() const noexcept {
        return host_send_.allocations() + host_recv_.allocations() + attached_.allocations();
    }

    /// What an exchange started and not yet finished: its operation and field signature (0: none).
    std::int64_t pending_ = 0;
    std::int64_t pending_signature_ = 0;
    direction pending_direction_ = direction::forward;

    byte_buffer<host_memory> host_send_, host_recv_;

    attachment& attached() noexcept { return attached_; }

private:
    std::size_t slot_of(int r) const {
        if (!neighbour_mode_) return static_cast<std::size_t>(r);
        const auto it = std::lower_bound(ranks_.begin(), ranks_.end(), r);
        return (it != ranks_.end() && *it == r) ? static_cast<std::size_t>(it - ranks_.begin())
                                                : ranks_.size();
    }

    /// Neighbour lists must be symmetric, or a rank would wait for counts from a rank that never
    /// sends them. Each listed pair adds a hash of (low, high) when listed by low and subtracts it
    /// when listed by high: the sum over all ranks is zero exactly when every pair is listed both
    /// ways (barring a 2^-64 collision). One more MPI_Allreduce, at construction only.
    void check_symmetric() const {
        std::uint64_t sum = 0;
        for (int r : ranks_) {
            if (r == rank_) continue;
            const auto low = static_cast<std::uint64_t>(std::min(r, rank_));
            const auto high = static_cast<std::uint64_t>(std::max(r, rank_));
            std::uint64_t h = (low << 32 | high) * 0x9E3779B97F4A7C15ull;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 32;
            sum += rank_ < r ? h : ~h + 1;
        }
        check(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, user_comm_),
              "MPI_Allreduce (neighbour check)", rank_);
        if (sum != 0)
            throw error("layout::mpi: the neighbour lists are not symmetric (some rank a names b "
                        "where b does not name a); every rank throws",
                        -1);
    }

    /// Counts to each slot's rank; from each, how many come here. Then the segments.
    void exchange_counts() {
        static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
        if (!neighbour_mode_) {
            check(MPI_Alltoall(slot_counts_.data(), 1, MPI_UINT64_T, peer_counts_.data(), 1,
                               MPI_UINT64_T, comm_),
                  "MPI_Alltoall (counts)", rank_);
        } else {
            requests_.clear();
            for (std::size_t s = 0; s < ranks_.size(); ++s) {
                if (s == self_slot_) continue;
                requests_.emplace_back();
                check(MPI_Irecv(&peer_counts_[s], 1, MPI_UINT64_T, ranks_[s], 1, comm_,
                                &requests_.back()),
                      "MPI_Irecv (counts)", rank_);
            }
            for (std::size_t s = 0; s < ranks_.size(); ++s) {
                if (s == self_slot_) continue;
                requests_.emplace_back();
                check(MPI_Isend(&slot_counts_[s], 1, MPI_UINT64_T, ranks_[s], 1, comm_,
                                &requests_.back()),
                      "MPI_Isend (counts)", rank_);
            }
            const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                                         MPI_STATUSES_IGNORE);
            requests_.clear();
            check(code, "MPI_Waitall (counts)", rank_);
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

    MPI_Comm user_comm_ = MPI_COMM_NULL;
    MPI_Comm comm_ = MPI_COMM_NULL; // a duplicate: the plan's messages never meet the user's
    int rank_ = 0;
    int size_ = 1;
    bool neighbour_mode_ = false;
    std::vector<int> ranks_; // the slots: every rank, or the neighbours and self, ascending
    std::size_t self_slot_ = 0;
    std::int64_t id_ = 0;
    std::int64_t version_ = 0;
    std::vector<std::size_t> slot_counts_, peer_counts_; // per slot: sent, received
    std::vector<int> item_slots_;
    std::vector<std::size_t> order_; // source element of each sent item, by rank then source order
    std::vector<segment> sends_, recvs_;
    std::size_t send_total_ = 0, recv_total_ = 0, source_size_ = 0;
    std::vector<std::size_t> out_bytes_, in_bytes_;
    std::vector<MPI_Request> requests_;
    std::vector<MPI_Status> statuses_;
    std::vector<int> expected_;
    std::size_t receives_ = 0;
    attachment attached_;
};

} // namespace detail
} // namespace layout::mpi
