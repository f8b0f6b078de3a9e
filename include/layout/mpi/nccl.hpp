/// \file mpi/nccl.hpp
/// Device exchanges through NCCL: the messages of a plan's device exchanges go as grouped
/// ncclSend / ncclRecv on the plan's stream, one process per GPU. Plans are built, checked and
/// agreed on over MPI as before (counts, order, errors); only the elements' bytes move by NCCL.
///
///     layout::mpi::nccl_communicator nccl(MPI_COMM_WORLD);  // collective; one GPU per rank
///     layout::mpi::device_migration_plan plan(MPI_COMM_WORLD,
///                                             layout::mpi::nccl_transport(nccl), stream);
///     plan.migrate(dev, destinations);                      // destinations in device memory
///
/// (The host-planned plans' use_nccl(plan, nccl), which sent a migration_plan's or halo_plan's
/// device exchanges through NCCL, is deprecated: a plan's transport is its type.)
///
/// Nothing waits on the host between packing and unpacking: start queues the packing kernels,
/// then the grouped sends and receives behind them on the plan's stream (set_stream); finish
/// queues the unpacking behind those. Work queued after finish on that stream sees the elements.
/// Every rank of a plan must take the NCCL path together (as with set_device_path). NCCL moves
/// the bytes point to point; NVLink multicast plays no part (keep NCCL_NVLS_ENABLE=0 on shared
/// machines). An error NCCL reports while the messages are queued, after the plans' agreement,
/// is thrown on that rank alone: its peers' NCCL kernels then wait; NCCL's own abort
/// (ncclCommAbort on the communicator, nccl_communicator::abort) is the way out of that.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/nccl.hpp needs a CUDA compiler (nvcc)"
#endif

#include "cuda.hpp"
#include "device_transport.hpp"
#include "error.hpp"

#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

namespace layout::mpi {

namespace detail {

inline void check_nccl(ncclResult_t result, const char* call, int rank) {
    if (result == ncclSuccess) return;
    throw error(std::string("layout::mpi: ") + call + " failed: " + ncclGetErrorString(result),
                rank);
}

} // namespace detail

/// An NCCL communicator over the ranks of an MPI communicator, rank for rank, on each rank's
/// current CUDA device (one device per rank: NCCL refuses two ranks on one GPU). Collective.
class nccl_communicator {
public:
    explicit nccl_communicator(MPI_Comm comm) {
        int size = 0;
        detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
        detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
        // Rank 0 makes the id and sends it with its outcome, so that a failure there stops
        // every rank here rather than in ncclCommInitRank.
        struct {
            ncclUniqueId id;
            int result;
        } start{};
        if (rank_ == 0) start.result = static_cast<int>(ncclGetUniqueId(&start.id));
        detail::check(MPI_Bcast(&start, sizeof start, MPI_BYTE, 0, comm), "MPI_Bcast");
        detail::check_nccl(static_cast<ncclResult_t>(start.result), "ncclGetUniqueId (rank 0)", 0);
        detail::check_nccl(ncclCommInitRank(&comm_, size, start.id, rank_), "ncclCommInitRank",
                           rank_);
    }
    nccl_communicator(const nccl_communicator&) = delete;
    nccl_communicator& operator=(const nccl_communicator&) = delete;
    ~nccl_communicator() {
        if (comm_) ncclCommDestroy(comm_);
    }

    ncclComm_t get() const noexcept { return comm_; }
    int rank() const noexcept { return rank_; }
    /// Ends the communicator's pending work on every rank waiting on this one (after an error
    /// on this rank alone); the communicator cannot be used afterwards.
    void abort() noexcept {
        if (comm_) ncclCommAbort(comm_);
        comm_ = nullptr;
    }

private:
    ncclComm_t comm_ = nullptr;
    int rank_ = 0;
};

/// The transport of device-planned exchanges through NCCL (device_migration_plan<nccl_transport>):
/// each exchange is one group of ncclRecv and ncclSend on the plan's stream, queued behind the
/// packing with no host wait. The communicator must outlive the transport and hold the plan's
/// ranks in the same order (checked by the plan at construction).
class nccl_transport {
public:
    explicit nccl_transport(const nccl_communicator& nccl) noexcept : comm_(nccl.get()) {}
    /// exchange() queues the messages on the stream and returns without waiting.
    static constexpr bool queues_on_stream = true;
    /// Each received message is written where its range says and nowhere else: the device plans
    /// receive whole AoS elements straight into a container's block.
    static constexpr bool receives_in_place = true;

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) const {
        post(send, out, recv, in, stream);
    }
    /// The phases of an exchange (device_transport.hpp): nothing to prepare (the sends queue
    /// behind the packing), nothing to wait for on the host (the receives are on the stream).
    void prepare(const std::byte*, std::size_t, std::size_t, cudaStream_t) const noexcept {}
    void post(const std::byte* send, std::span<const message_range> out, std::byte* recv,
              std::span<const message_range> in, cudaStream_t stream) const {
        int rank = -1;
        ncclCommUserRank(comm_, &rank);
        detail::check_nccl(ncclGroupStart(), "ncclGroupStart", rank);
        ncclResult_t result = ncclSuccess;
        const char* failed = "ncclGroupStart";
        for (const message_range& m : in)
            if (m.bytes != 0 && result == ncclSuccess) {
                result = ncclRecv(recv + m.offset, m.bytes, ncclUint8, m.rank, comm_, stream);
                failed = "ncclRecv";
            }
        for (const message_range& m : out)
            if (m.bytes != 0 && result == ncclSuccess) {
                result = ncclSend(send + m.offset, m.bytes, ncclUint8, m.rank, comm_, stream);
                failed = "ncclSend";
            }
        const ncclResult_t ended = ncclGroupEnd(); // the group is closed whatever happened
        detail::check_nccl(result, failed, rank);
        detail::check_nccl(ended, "ncclGroupEnd", rank);
    }
    void wait(cudaStream_t) const noexcept {}
    std::size_t allocations() const noexcept { return 0; }
    ncclComm_t communicator() const noexcept { return comm_; }
    /// Throws std::invalid_argument unless the communicator holds the plan's ranks, in order.
    void check_ranks(int plan_rank, int plan_size) const {
        int rank = -1, count = -1;
        detail::check_nccl(ncclCommUserRank(comm_, &rank), "ncclCommUserRank", plan_rank);
        detail::check_nccl(ncclCommCount(comm_, &count), "ncclCommCount", plan_rank);
        if (rank != plan_rank || count != plan_size)
            throw std::invalid_argument("layout::mpi::nccl_transport: the NCCL communicator's "
                                        "rank " +
                                        std::to_string(rank) + " of " + std::to_string(count) +
                                        " is not the plan's rank " + std::to_string(plan_rank) +
                                        " of " + std::to_string(plan_size));
    }

private:
    ncclComm_t comm_;
};

/// Sends this plan's device exchanges through `nccl` from now on (device_path::nccl: the plan's
/// transport is an nccl_transport, as a device_migration_plan<nccl_transport>'s); host
/// containers still go over MPI. The communicator must outlive the plan's exchanges and hold
/// the plan's ranks in the same order; std::invalid_argument otherwise. Local: every rank calls
/// it (or none does). Deprecated, goes in the next release: NCCL is a transport type,
/// device_migration_plan<nccl_transport> and device_halo_plan<nccl_transport> (plans whose
/// destinations and ghost lists are in device memory, planned on the GPU).
template <class Plan>
[[deprecated("layout::mpi::use_nccl is deprecated: use layout::mpi::device_migration_plan or "
             "device_halo_plan with layout::mpi::nccl_transport(nccl)")]] void
use_nccl(Plan& plan, const nccl_communicator& nccl) {
    auto& st = detail::device_state_of(plan.pattern());
    int rank = -1, count = -1;
    detail::check_nccl(ncclCommUserRank(nccl.get(), &rank), "ncclCommUserRank", rank);
    detail::check_nccl(ncclCommCount(nccl.get(), &count), "ncclCommCount", rank);
    if (rank != plan.pattern().rank() || count != plan.pattern().size())
        throw std::invalid_argument(
            "layout::mpi::use_nccl: the NCCL communicator's rank " + std::to_string(rank) + " of " +
            std::to_string(count) + " is not the plan's rank " +
            std::to_string(plan.pattern().rank()) + " of " + std::to_string(plan.pattern().size()));
    st.nccl.emplace(nccl_transport(nccl));
    st.path = device_path::nccl;
}

} // namespace layout::mpi
