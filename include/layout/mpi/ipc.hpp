/// \file mpi/ipc.hpp
/// layout::mpi::ipc_transport: the messages of device-planned exchanges written by the sender's
/// GPU straight into the receiver's memory (CUDA IPC over NVLink or PCIe), for ranks of one node.
///
///     layout::mpi::device_halo_plan halo(MPI_COMM_WORLD,
///                                        layout::mpi::ipc_transport(MPI_COMM_WORLD), stream);
///     layout::mpi::device_migration_plan<layout::mpi::ipc_transport> migration(
///         MPI_COMM_WORLD, layout::mpi::ipc_transport(MPI_COMM_WORLD), stream);
///
/// Each rank keeps in its own memory a landing block per peer, which that peer writes into, and two
/// counters per peer: messages arrived from it, and messages of this rank's it has consumed. An
/// exchange is one kernel on the stream (two where its copies are too many for one launch) and
/// no host wait: its first blocks copy each message into its peer's landing block once the peer
/// has consumed this rank's previous message, the last block of a message then raising the peer's
/// arrival counter; the blocks after them wait for the messages to arrive, copy each landing block
/// to its range of the receive buffer (exactly that range: the plans receive whole AoS elements in
/// place) and raise the sender's consumed counter. Blocks take their work in the order they start
/// (a ticket), so the waiting ones never hold back a send. A peer that never sends stalls the
/// stream, not the host, as with NCCL. One transport's exchanges run one after another: on one
/// stream (a plan's are), or on streams the caller orders, since they share the landing blocks,
/// the counters and the tickets.
///
/// Why not NCCL alone: between GPUs of one node, a copy kernel moves halo-sized messages over
/// NVLink in less time than NCCL's point-to-point kernels, with no NCCL communicator to build
/// (device_migrate_bench_gpu's ipc rows; bench/results/gpu-2026-11-27-g). The plans' elements
/// travel without pack or unpack kernel, send or receive buffer (exchange_gathered): the copy
/// kernel reads whole AoS elements, or each travelling leaf (SoA's columns, AoSoA's runs of lanes,
/// AoS's leaves, those next to each other in the element as one value), where they are, and the
/// landing copy writes them where they go, its threads on consecutive chunks of the message (16
/// bytes, or a leaf's size), so each warp writes whole sectors to the peer. (The plans' pack
/// kernels writing into the peers' blocks, a thread an element, left partial sectors, which NVLink
/// carries as partial writes: measured slower.)
///
/// Handles travel over MPI: every rank's counters once (the constructor, collective over comm),
/// and a landing block's again when a message outgrows it; both sides know each message's size,
/// so both know when, and that exchange is point to point between the two. A block that cannot
/// grow (cudaMalloc fails) makes its rank throw and the peer that was to write into it throw
/// layout::mpi::error naming that rank. The destructor is collective too (each rank waits for
/// its last exchange, then a barrier, before the memory the others write into goes).
///
/// Needs: every rank of comm on one node (MPI_COMM_TYPE_SHARED) and legacy CUDA IPC between
/// their devices (a GPU per rank, or ranks sharing one); otherwise the constructor throws on
/// every rank. The current device when exchanging must be the one at construction.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/ipc.hpp needs a CUDA compiler (nvcc)"
#endif

#include "detail/ipc_state.hpp"
#include "device_transport.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace layout::mpi {

/// The transport of device-planned exchanges through CUDA IPC (see the file comment).
class ipc_transport {
public:
    /// Collective over comm.
    explicit ipc_transport(MPI_Comm comm) : state_(std::make_unique<detail::ipc::state>(comm)) {}
    /// Collective over comm: whether every rank of comm is on this node, as the transport needs
    /// (where not, the constructor throws on every rank): a program's test before choosing it.
    static bool reaches_every_rank(MPI_Comm comm) { return detail::ipc::on_one_node(comm); }

    /// exchange() queues everything on the stream and returns without waiting.
    static constexpr bool queues_on_stream = true;
    /// Each received message is written where its range says and nowhere else.
    static constexpr bool receives_in_place = true;
    /// exchange_gathered reads and writes the messages' elements where they are.
    static constexpr bool gathers = true;

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        state_->exchange(send, out, recv, in, stream);
    }
    /// An exchange whose messages nothing packs or unpacks: element k of the message to out[m]'s
    /// rank is source element order[out[m].first + k], read in each column where it is (column
    /// c at c.from); element k of the message from in[m]'s rank is written as destination
    /// element in[m].first + k (at c.to). A message holds its columns one after another. The
    /// device-planned plans' whole AoS elements (one column) and travelling leaves (a column
    /// each, in blocks where the layout keeps them so; AoS leaves next to each other in the
    /// element as one column). No message to or from the rank itself.
    /// Throws std::invalid_argument, before anything moves, for a column it cannot address
    /// (values of 0 bytes; sizes past 32 bits; a block smaller than its lanes).
    void exchange_gathered(std::span<const gathered_column> columns, const std::uint32_t* order,
                           std::span<const gathered_message> out,
                           std::span<const gathered_message> in, cudaStream_t stream) {
        state_->exchange_gathered(columns, order, out, in, stream);
    }
    /// Deprecated: exchange_gathered with one column {base, recv, element}, each incoming
    /// message's elements at recv + its offset.
    [[deprecated("layout::mpi::ipc_transport::exchange_gathered(base, element, order, out, recv, "
                 "in, stream) is deprecated: use exchange_gathered(columns, order, out, in, "
                 "stream)")]] void
    exchange_gathered(const std::byte* base, std::size_t element, const std::uint32_t* order,
                      std::span<const gathered_message> out, std::byte* recv,
                      std::span<const message_range> in, cudaStream_t stream) {
        state_->exchange_gathered(base, element, order, out, recv, in, stream);
    }
    std::size_t allocations() const noexcept { return state_ ? state_->allocations() : 0; }
    /// Throws std::invalid_argument unless the plan's ranks are this transport's, in order.
    void check_ranks(int plan_rank, int plan_size) const {
        state_->check_ranks(plan_rank, plan_size);
    }

private:
    std::unique_ptr<detail::ipc::state> state_;
};

} // namespace layout::mpi
