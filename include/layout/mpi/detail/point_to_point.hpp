/// \file mpi/detail/point_to_point.hpp
/// The host-planned plans' messages in host memory, as MPI point-to-point: posted by start
/// (receives first), waited for by finish, which checks each receive got the bytes the plan
/// expected (a peer running another plan would otherwise go unnoticed). Apart from the pattern
/// because it is one way to move messages among others (device memory: the transports of
/// device_transport.hpp), and owns the only state that must outlive a start: the requests.
#pragma once

#include "../error.hpp"
#include "message_layout.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace layout::mpi::detail {

class point_to_point {
public:
    point_to_point() = default;
    point_to_point(const point_to_point&) = delete;
    point_to_point& operator=(const point_to_point&) = delete;
    point_to_point(point_to_point&&) noexcept = default;
    point_to_point& operator=(point_to_point&&) noexcept = default;
    ~point_to_point() { wait_quietly(); }

    /// Messages still in flight (a plan destroyed between start and finish) end before their
    /// buffers and communicator go; nothing is checked or thrown.
    void wait_quietly() noexcept {
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!finalized && !requests_.empty())
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
    }

    /// Room for an exchange's messages (message_layout::sizes): post() and wait() then allocate
    /// nothing. Local, before the agreement.
    void reserve(const message_layout::sizes& z) {
        requests_.reserve(z.messages);
        statuses_.reserve(z.messages);
        expected_.reserve(z.receives);
    }

    /// Posts the messages that for_each(receive, send) lists (message_layout::for_each_message),
    /// each split into chunks of at most message_chunk bytes, on comm with tag.
    template <class ForEach>
    void post(MPI_Comm comm, int me, int tag, ForEach&& for_each) {
        requests_.clear();
        expected_.clear();
        receives_ = 0;
        for_each(
            [&](int rank, std::byte* p, std::size_t bytes) {
                do {
                    const std::size_t part = std::min(bytes, message_chunk);
                    requests_.emplace_back();
                    expected_.push_back(static_cast<int>(part));
                    posted(MPI_Irecv(p, static_cast<int>(part), MPI_BYTE, rank, tag, comm,
                                     &requests_.back()),
                           "MPI_Irecv", me);
                    p += part;
                    bytes -= part;
                } while (bytes > 0);
                receives_ = requests_.size();
            },
            [&](int rank, const std::byte* p, std::size_t bytes) {
                do {
                    const std::size_t part = std::min(bytes, message_chunk);
                    requests_.emplace_back();
                    posted(MPI_Isend(p, static_cast<int>(part), MPI_BYTE, rank, tag, comm,
                                     &requests_.back()),
                           "MPI_Isend", me);
                    p += part;
                    bytes -= part;
                } while (bytes > 0);
            });
    }

    /// Waits for the posted messages; checks each received the bytes this plan expected.
    void wait(int me) {
        if (requests_.empty()) return;
        statuses_.resize(requests_.size());
        const int code =
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), statuses_.data());
        requests_.clear();
        check(code, "MPI_Waitall", me);
        for (std::size_t k = 0; k < receives_; ++k) {
            int bytes = 0;
            MPI_Get_count(&statuses_[k], MPI_BYTE, &bytes);
            if (bytes != expected_[k])
                throw error("layout::mpi: rank " + std::to_string(statuses_[k].MPI_SOURCE) +
                                " sent " + std::to_string(bytes) +
                                " bytes where this rank's "
                                "plan expected " +
                                std::to_string(expected_[k]),
                            me);
        }
    }

    void swap(point_to_point& o) noexcept {
        requests_.swap(o.requests_);
        statuses_.swap(o.statuses_);
        expected_.swap(o.expected_);
        std::swap(receives_, o.receives_);
    }

private:
    /// A failed post: the messages already posted end before their buffers may change.
    void posted(int code, const char* call, int me) {
        if (code == MPI_SUCCESS) return;
        requests_.pop_back();
        wait_quietly();
        check(code, call, me);
    }

    std::vector<MPI_Request> requests_;
    std::vector<MPI_Status> statuses_;
    std::vector<int> expected_; // bytes of each receive, in posting order
    std::size_t receives_ = 0;  // the first receives_ requests are receives
};

} // namespace layout::mpi::detail
