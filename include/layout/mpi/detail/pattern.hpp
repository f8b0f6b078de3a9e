/// \file mpi/detail/pattern.hpp
/// What migration and halo plans share (migrate.hpp, halo.hpp): the plan's identity (its
/// communicators, rank, id), its order (plan_order.hpp), the messages of its exchanges
/// (message_layout.hpp, point_to_point.hpp, the host buffers) and the exchange in flight, if
/// any; device state, when a device container was exchanged, hangs off it (attachment.hpp).
/// Each of those is a small class of its own; this one composes them and is the only one the
/// plans and the exchange steps (exchange.hpp, cuda.hpp) talk to.
///
/// Every collective step passes through agree(): one MPI_Allreduce in which each rank says
/// whether its input was refused or its own preparation threw (an allocation, a device error),
/// and which operation, plan and fields it is running, so that the ranks either all go on or all
/// throw before any element moves. Everything that can throw on one rank alone (checks, buffer
/// growth, packing) comes before it; after it come only the messages and the unpacking into
/// memory already reserved, so no rank can leave the others waiting for it.
#pragma once

#include "../../memory.hpp"
#include "../error.hpp"
#include "agreement.hpp"
#include "attachment.hpp"
#include "byte_buffer.hpp"
#include "message_layout.hpp"
#include "plan_order.hpp"
#include "point_to_point.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace layout::mpi::detail {

class pattern {
public:
    /// Collective over comm. With has_neighbours, counts travel only between this rank and
    /// neighbours (which must be symmetric: b lists a if a lists b; checked here).
    pattern(MPI_Comm comm, std::span<const int> neighbours, bool has_neighbours)
        : user_comm_(comm) {
        check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
        local_outcome local;
        local.run(
            [&] { local.problem = order_.set_ranks(rank_, size_, neighbours, has_neighbours); });
        const std::int64_t mode = has_neighbours ? 1 : 0;
        const std::int64_t reduced_id =
            agree(operation::construct, local, next_plan_id(), mode, /*check_plan=*/false);
        id_ = reduced_id;
        next_plan_id() = id_ + 1;
        order_.check_symmetric(user_comm_);
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
        if (finalized) return;
        // The messages in flight end before comm_ goes (the members' destructors would be too
        // late): the host ones, then those of the attached transports, which borrow comm_.
        messages_.wait_quietly();
        attached_.reset();
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    void swap(pattern& o) noexcept {
        std::swap(user_comm_, o.user_comm_);
        std::swap(comm_, o.comm_);
        std::swap(rank_, o.rank_);
        std::swap(size_, o.size_);
        std::swap(id_, o.id_);
        std::swap(order_, o.order_); // plain values: their moves are the swap
        std::swap(layout_, o.layout_);
        messages_.swap(o.messages_);
        host_send_.swap(o.host_send_);
        host_recv_.swap(o.host_recv_);
        std::swap(pending_, o.pending_);
        std::swap(pending_signature_, o.pending_signature_);
        attached_.swap(o.attached_);
    }

    // ---- building ------------------------------------------------------------------------------

    /// Collective. Items k in [0, n): item k sends source element index_of(k) (< source_size)
    /// to rank rank_of(k); a rank of -1 drops the item when allow_drop (plan_order::count).
    /// local: what the caller found (the checks and allocations here add to it). The plan is
    /// unchanged unless every rank agrees to go on.
    template <class RankOf, class IndexOf>
    void build(std::size_t n, RankOf rank_of, IndexOf index_of, std::size_t source_size,
               bool allow_drop, const char* what, local_outcome local = {}) {
        local.run([&] {
            if (in_flight())
                local.problem = "layout::mpi: the plan was updated while an exchange was in "
                                "flight (call finish first)";
            else
                local.problem = order_.count(n, rank_of, index_of, source_size, allow_drop, what);
        });
        agree(operation::build, local, id_, order_.neighbour_mode() ? 1 : 0);
        order_.place(n, index_of, source_size, comm_);
    }

    // ---- agreement -----------------------------------------------------------------------------

    /// Collective over the user's communicator (so that ranks running different plans still meet
    /// in it): every rank says whether its input was refused or its preparation threw, and what
    /// it is running. If any rank did, or the ranks disagree, every rank throws: a rank whose
    /// preparation threw rethrows its own exception, one whose input was refused throws
    /// layout::mpi::error saying why, the others layout::mpi::error naming the rank. Returns the
    /// largest `value` (the plan id, at construction).
    std::int64_t agree(operation op, const local_outcome& local, std::int64_t value,
                       std::int64_t signature, bool check_plan = true) const {
        return detail::agree(user_comm_, rank_, op, local, value, order_.version(), signature,
                             check_plan);
    }

    // ---- the messages of an exchange -----------------------------------------------------------

    std::span<const segment> out_segments(direction d) const { return order_.out_segments(d); }
    std::span<const segment> in_segments(direction d) const { return order_.in_segments(d); }

    /// Lays out the messages of an exchange of bytes_per_element per element (message_layout)
    /// and reserves what posting them needs. Returns {send buffer bytes, receive buffer bytes}.
    /// Local: it runs before the agreement.
    std::pair<std::size_t, std::size_t> layout_messages(direction d,
                                                        std::size_t bytes_per_element) {
        const auto z = layout_.lay_out(out_segments(d), in_segments(d), rank_, bytes_per_element);
        messages_.reserve(z);
        return {z.send, z.recv};
    }
    std::size_t out_byte_offset(std::size_t k) const { return layout_.out_offset(k); }
    /// Where in segment k's bytes are: in the receive buffer, or (self) in the send buffer.
    const std::byte* in_message(direction d, std::size_t k, const std::byte* send_base,
                                const std::byte* recv_base) const {
        return layout_.in_message(out_segments(d), in_segments(d), rank_, k, send_base, recv_base);
    }
    /// receive(rank, where, bytes), then send(rank, where, bytes), for each message but self's.
    template <class Receive, class Send>
    void for_each_message(direction d, std::size_t bytes_per_element, const std::byte* send_base,
                          std::byte* recv_base, Receive&& receive, Send&& send) const {
        layout_.for_each_message(out_segments(d), in_segments(d), rank_, bytes_per_element,
                                 send_base, recv_base, receive, send);
    }

    /// Posts the messages of an exchange in host memory (point_to_point).
    void post(direction d, std::size_t bytes_per_element, const std::byte* send_base,
              std::byte* recv_base) {
        messages_.post(comm_, rank_, d == direction::forward ? 2 : 3, [&](auto&& r, auto&& s) {
            for_each_message(d, bytes_per_element, send_base, recv_base, r, s);
        });
    }

    /// Waits for the messages in flight, host and attached (device) alike.
    void wait() {
        attached_.wait();
        messages_.wait(rank_);
    }

    /// The host buffers of exchanges in host memory (exchange.hpp).
    byte_buffer<host_memory>& host_send() noexcept { return host_send_; }
    byte_buffer<host_memory>& host_recv() noexcept { return host_recv_; }
    /// Device state, when a device container was exchanged (cuda.hpp).
    attachment& attached() noexcept { return attached_; }

    // ---- the exchange in flight ----------------------------------------------------------------

    /// Between start and finish: which operation, with which fields (their wire signature).
    bool in_flight() const noexcept { return pending_ != 0; }
    std::int64_t pending_operation() const noexcept { return pending_; }
    std::int64_t pending_signature() const noexcept { return pending_signature_; }
    void started(operation op, std::int64_t signature) noexcept {
        pending_ = static_cast<std::int64_t>(op);
        pending_signature_ = signature;
    }
    /// The exchange is over for the plan (its messages are waited for by the caller next).
    void finished() noexcept { pending_ = 0; }
    /// Waits for the messages, and the exchange is over: before a refusal (the plan stays
    /// usable) or before work that may throw (a container that must grow).
    void end_exchange() {
        wait();
        pending_ = 0;
    }

    // ---- state ---------------------------------------------------------------------------------

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    MPI_Comm communicator() const noexcept { return user_comm_; }
    /// The plan's own duplicate, where its messages travel (and the attached transports').
    MPI_Comm messages_comm() const noexcept { return comm_; }
    std::int64_t id() const noexcept { return id_; }
    std::int64_t version() const noexcept { return order_.version(); }
    std::size_t source_size() const noexcept { return order_.source_size(); }
    std::size_t send_total() const noexcept { return order_.send_total(); }
    std::size_t recv_total() const noexcept { return order_.recv_total(); }
    const std::vector<std::size_t>& order() const noexcept { return order_.order(); }
    /// Buffer allocations so far, host and device.
    std::size_t allocations() const noexcept {
        return host_send_.allocations() + host_recv_.allocations() + attached_.allocations();
    }

private:
    MPI_Comm user_comm_ = MPI_COMM_NULL;
    MPI_Comm comm_ = MPI_COMM_NULL; // a duplicate: the plan's messages never meet the user's
    int rank_ = 0;
    int size_ = 1;
    std::int64_t id_ = 0;
    plan_order order_;
    message_layout layout_;
    point_to_point messages_;
    byte_buffer<host_memory> host_send_, host_recv_;
    std::int64_t pending_ = 0; // the operation in flight (0: none)
    std::int64_t pending_signature_ = 0;
    attachment attached_;
};

} // namespace layout::mpi::detail
