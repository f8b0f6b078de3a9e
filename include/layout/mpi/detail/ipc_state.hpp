/// \file mpi/detail/ipc_state.hpp
/// ipc_transport's state (<layout/mpi/ipc.hpp> says what the transport does): the counters and
/// the peers' mappings of them, made collectively at construction (connect), and the landing
/// blocks (ipc_landing.hpp); exchange() queues the copy kernels of ipc_kernels.hpp. Kept at one
/// address: the transport moves, this does not.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/ipc_state.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../cuda/error.hpp"
#include "../device_transport.hpp"
#include "../error.hpp"
#include "agreement.hpp"
#include "ipc_kernels.hpp"
#include "ipc_landing.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace layout::mpi {
namespace detail::ipc {

/// Collective over comm: whether every rank of comm shares this node (MPI_COMM_TYPE_SHARED).
inline bool on_one_node(MPI_Comm comm) {
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    int on_node = 0, ranks = 0;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    MPI_Comm_size(comm, &ranks);
    return on_node == ranks;
}

/// The transport's state, kept at one address (the transport moves, the state does not).
class state {
public:
    explicit state(MPI_Comm comm) {
        check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        try {
            connect();
        } catch (...) {
            release();
            MPI_Comm_free(&comm_);
            throw;
        }
    }
    state(const state&) = delete;
    state& operator=(const state&) = delete;
    ~state() {
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (last_) cudaEventSynchronize(last_);
        // Every rank's kernels are done before anyone's memory goes.
        if (!finalized) MPI_Barrier(comm_);
        release();
        if (!finalized) MPI_Comm_free(&comm_);
    }

    void check_ranks(int plan_rank, int plan_size) const {
        if (plan_rank != rank_ || plan_size != size_)
            throw std::invalid_argument("layout::mpi::ipc_transport: its communicator's rank " +
                                        std::to_string(rank_) + " of " + std::to_string(size_) +
                                        " is not the plan's rank " + std::to_string(plan_rank) +
                                        " of " + std::to_string(plan_size));
    }
    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        check_device();
        landing_.grow(comm_, rank_, out, in, last_);
        spread(out, true);
        copies t{};
        std::size_t parts = 0;
        for (const message_range& m : out)
            if (m.bytes != 0 && m.rank != rank_) {
                queue_message(t, true, m.rank, stream, [&](auto part) {
                    part(copy{.from = send + m.offset, .bytes = m.bytes});
                });
                ++parts;
            }
        for (const message_range& m : in) parts += m.bytes != 0;
        end_of_sends(t, parts, stream);
        spread(in, false);
        std::size_t to_self = 0;
        for (const message_range& m : in) {
            if (m.bytes == 0) continue;
            if (m.rank == rank_) { // to itself: the matching outgoing range, copied here
                add(t,
                    copy{.from = send + self_offset(out, to_self++, m.bytes),
                         .to = recv + m.offset,
                         .bytes = m.bytes},
                    stream);
                continue;
            }
            queue_message(t, false, m.rank, stream,
                          [&](auto part) { part(copy{.to = recv + m.offset, .bytes = m.bytes}); });
        }
        finish(t, stream);
    }
    /// The messages' elements read and written where they are, column by column (see
    /// ipc_transport::exchange_gathered).
    void exchange_gathered(std::span<const gathered_column> columns, const std::uint32_t* order,
                           std::span<const gathered_message> out,
                           std::span<const gathered_message> in, cudaStream_t stream) {
        check_device();
        for (const gathered_column& c : columns) check_column(c);
        const auto as_ranges = [&](std::span<const gathered_message> messages,
                                   std::vector<message_range>& ranges) {
            ranges.clear();
            for (const gathered_message& g : messages) {
                if (g.rank == rank_ && g.count != 0)
                    throw std::invalid_argument("layout::mpi::ipc_transport: a gathered exchange "
                                                "carries no message to or from the rank itself");
                std::size_t bytes = 0;
                for (const gathered_column& c : columns) bytes += padded(g.count * c.element);
                ranges.push_back({g.rank, 0, bytes});
            }
        };
        as_ranges(out, out_ranges_);
        as_ranges(in, in_ranges_);
        landing_.grow(comm_, rank_, out_ranges_, in_ranges_, last_);
        spread(out_ranges_, true);
        copies t{};
        for (const gathered_message& g : out)
            if (g.count != 0)
                queue_message(t, true, g.rank, stream, [&](auto part) {
                    for (const gathered_column& c : columns)
                        part(copy{.from = c.from,
                                  .bytes = g.count * c.element,
                                  .order = order + g.first,
                                  .element = static_cast<unsigned>(c.element),
                                  .lanes = static_cast<unsigned>(c.lanes),
                                  .block = static_cast<unsigned>(c.block)});
                });
        std::size_t parts = 0;
        for (const gathered_message& g : out) parts += g.count != 0 ? columns.size() : 0;
        for (const gathered_message& g : in) parts += g.count != 0 ? columns.size() : 0;
        end_of_sends(t, parts, stream);
        spread(in_ranges_, false);
        for (const gathered_message& g : in)
            if (g.count != 0)
                queue_message(t, false, g.rank, stream, [&](auto part) {
                    for (const gathered_column& c : columns)
                        part(c.lanes == 0 ? copy{.to = c.to + g.first * c.element,
                                                 .bytes = g.count * c.element}
                                          : copy{.to = c.to,
                                                 .bytes = g.count * c.element,
                                                 .element = static_cast<unsigned>(c.element),
                                                 .lanes = static_cast<unsigned>(c.lanes),
                                                 .block = static_cast<unsigned>(c.block),
                                                 .first = g.first});
                });
        finish(t, stream);
    }
    /// The one-column form, its incoming messages as byte ranges of recv (deprecated in
    /// ipc_transport).
    void exchange_gathered(const std::byte* base, std::size_t element, const std::uint32_t* order,
                           std::span<const gathered_message> out, std::byte* recv,
                           std::span<const message_range> in, cudaStream_t stream) {
        if (element == 0)
            throw std::invalid_argument("layout::mpi::ipc_transport: elements of 0 bytes");
        in_messages_.clear();
        for (const message_range& m : in) {
            if (m.offset % element != 0 || m.bytes % element != 0)
                throw std::invalid_argument("layout::mpi::ipc_transport: a received range that "
                                            "is not whole elements");
            in_messages_.push_back({m.rank, m.offset / element, m.bytes / element});
        }
        const gathered_column column{base, recv, element, 0, 0};
        exchange_gathered(std::span(&column, 1), order, out, in_messages_, stream);
    }

    std::size_t allocations() const noexcept { return 1 + landing_.allocations(); }

private:
    void check_device() const {
        int device = -1;
        layout::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
        if (device != device_)
            throw std::invalid_argument(
                "layout::mpi::ipc_transport: the current device (" + std::to_string(device) +
                ") is not the one it was made on (" + std::to_string(device_) + ")");
    }

    /// Where the next part of a message starts in the landing block: 16-byte aligned, so that a
    /// column after one of 1-, 2- or 12-byte leaves still copies in wide chunks. (Both sides
    /// lay the message out here.)
    static std::size_t padded(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

    /// The bytes a copy block moves in the launches that follow: the messages' bytes spread
    /// over about one wave of the GPU's resident copy blocks, between 4 and 64 KiB (fixed sizes
    /// lost both ways on 4 GPUs: 8 KiB a block took two waves for all of a halo's fields,
    /// 16 KiB left most SMs idle for x, y, z alone; bench/results/gpu-2026-11-28-j). Without
    /// sends to itself where `sends`.
    void spread(std::span<const message_range> messages, bool sends) {
        std::size_t total = 0;
        for (const message_range& m : messages)
            if (!sends || m.rank != rank_) total += m.bytes;
        const std::size_t per = (total + wave_ - 1) / wave_;
        block_bytes_ = std::clamp<std::size_t>((per + 1023) / 1024 * 1024, 4096, 65536);
    }
    unsigned blocks_for(const copy& c) const {
        return static_cast<unsigned>(
            std::clamp<std::size_t>((c.bytes + block_bytes_ - 1) / block_bytes_, 1, 1024));
    }

    /// The copies of one message between this rank and peer r through a landing block (into
    /// the peer's where `send`, else out of this rank's): parts(part) calls part(copy) for each
    /// part in the message's order with this rank's side set (a send's from and bytes, order and
    /// the column's addressing where it gathers; a receive's to and bytes, the column's
    /// addressing where it lands in blocks); the landing block's side is set here. Each copy's
    /// blocks wait in the copy kernel: a send's until the peer has consumed this rank's previous
    /// message (the block is free; almost always so already), a receive's until the sender says
    /// it is there; a receive's last block tells the sender the block is free. (Two blocks a peer
    /// used in turn, so that back to back a send need not wait for the copy out of the one
    /// before, were no faster on 2 and 4 GPUs: bench/results/gpu-2026-11-28-k. One block
    /// waiting for the receives in a kernel of its own, so that a slow peer held one SM rather
    /// than a receive's blocks, cost every exchange a kernel boundary: 3 us of 36 for x, y, z
    /// back to back on 4 GPUs, bench/results/gpu-2026-11-28-l.)
    template <class Parts>
    void queue_message(copies& t, bool send, int rank, cudaStream_t stream, Parts parts) {
        const auto P = static_cast<std::size_t>(size_), me = static_cast<std::size_t>(rank_);
        const auto r = static_cast<std::size_t>(rank);
        peer& p = peers_[r];
        const counter n = send ? ++p.sent : ++p.received;
        std::byte* const block = send ? landing_.outgoing(r) : landing_.incoming(r);
        // Each part at its place in the block (twice: the blocks counted, then queued).
        std::size_t at = 0;
        const auto placed = [&](copy c) {
            if (send)
                c.to = block + at;
            else
                c.from = block + at;
            at += padded(c.bytes);
            return c;
        };
        unsigned blocks = 0;
        parts([&](const copy& c) { blocks += blocks_for(placed(c)); });
        at = 0;
        parts([&](const copy& part) {
            copy c = placed(part);
            if (send) {
                c.wait = flags_ + P + r;
                c.wait_value = n - 1;
                c.done = flags_ + 2 * P + r;
                c.signal = p.remote_flags + me;
            } else {
                c.wait = flags_ + r;
                c.wait_value = n;
                c.done = flags_ + 3 * P + r;
                c.signal = p.remote_flags + P + me;
            }
            c.value = n;
            c.message_blocks = blocks;
            add(t, c, stream);
        });
    }
    /// A gathered exchange's column, checked before anything moves: values the copy kernel can
    /// address (their bytes, lanes and block in 32 bits; a block holds its lanes).
    static void check_column(const gathered_column& c) {
        constexpr std::size_t most = std::numeric_limits<unsigned>::max();
        if (c.element == 0 || c.element > most || c.lanes > most || c.block > most ||
            (c.lanes != 0 && c.block < c.lanes * c.element))
            throw std::invalid_argument("layout::mpi::ipc_transport: a gathered column of " +
                                        std::to_string(c.element) + "-byte values, " +
                                        std::to_string(c.lanes) + " lanes in blocks of " +
                                        std::to_string(c.block) + " bytes, that it cannot address");
    }
    /// Between an exchange's sends and its receives (parts: the copies of both): the receives
    /// join the sends' launch where all fit in one, which saves a kernel boundary (x, y, z back
    /// to back on 4 GPUs: 0.032 against 0.035 ms); else they start a launch of their own (one
    /// that ended among them made the rest wait for it: SoA's 8 leaves on 4 GPUs, 0.076 against
    /// 0.070 ms; bench/results/gpu-2026-11-28-l).
    void end_of_sends(copies& t, std::size_t parts, cudaStream_t stream) {
        if (parts > copies::capacity) launch(t, stream);
    }
    void finish(copies& t, cudaStream_t stream) {
        launch(t, stream);
        layout::cuda::check(cudaEventRecord(last_, stream), "cudaEventRecord");
    }

    struct peer {
        counter* remote_flags = nullptr; // the peer's counters
        counter sent = 0, received = 0;  // messages to and from the peer so far
    };

    /// Collective: every rank's counters, and the peers' opened (the constructor's work).
    void connect() {
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
        peers_.resize(static_cast<std::size_t>(size_));
        landing_.resize(peers_.size());
        out_ranges_.reserve(peers_.size());
        in_ranges_.reserve(peers_.size());
        in_messages_.reserve(peers_.size());
        local_outcome local;
        local.run([&] {
            if (!on_one_node(comm_))
                local.problem = "layout::mpi::ipc_transport: the ranks are on more than one node "
                                "(CUDA IPC reaches the GPUs of one node only)";
        });
        local.run([&] {
            layout::cuda::check(cudaGetDevice(&device_), "cudaGetDevice");
            int sms = 0, per_sm = 0;
            layout::cuda::check(
                cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_),
                "cudaDeviceGetAttribute");
            layout::cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                    &per_sm, copy_kernel<copies>, copy_block, 0),
                                "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
            wave_ = static_cast<std::size_t>(std::max(1, sms * per_sm));
            layout::cuda::check(cudaEventCreateWithFlags(&last_, cudaEventDisableTiming),
                                "cudaEventCreateWithFlags");
            layout::cuda::check(cudaMalloc(&flags_, flag_bytes()), "cudaMalloc (ipc counters)");
            layout::cuda::check(cudaMemset(flags_, 0, flag_bytes()), "cudaMemset");
            layout::cuda::check(cudaIpcGetMemHandle(&own_handle_, flags_), "cudaIpcGetMemHandle");
        });
        agree(comm_, rank_, operation::construct, local, 0, 0, 0, /*check_plan=*/false);
        std::vector<cudaIpcMemHandle_t> handles(peers_.size());
        check(MPI_Allgather(&own_handle_, sizeof own_handle_, MPI_BYTE, handles.data(),
                            sizeof own_handle_, MPI_BYTE, comm_),
              "MPI_Allgather");
        local_outcome opened;
        opened.run([&] {
            for (std::size_t p = 0; p < peers_.size(); ++p) {
                if (static_cast<int>(p) == rank_) continue;
                void* remote = nullptr;
                layout::cuda::check(
                    cudaIpcOpenMemHandle(&remote, handles[p], cudaIpcMemLazyEnablePeerAccess),
                    "cudaIpcOpenMemHandle (a peer's counters)");
                peers_[p].remote_flags = static_cast<counter*>(remote);
            }
        });
        agree(comm_, rank_, operation::construct, opened, 0, 0, 0, /*check_plan=*/false);
    }
    void release() noexcept {
        landing_.release();
        for (peer& p : peers_) {
            if (p.remote_flags) cudaIpcCloseMemHandle(p.remote_flags);
            p = peer{};
        }
        if (flags_) cudaFree(flags_);
        flags_ = nullptr;
        if (last_) cudaEventDestroy(last_);
        last_ = nullptr;
    }

    /// Counters in this rank's memory, written by the peers: [0, P) messages arrived from each
    /// rank, [P, 2P) messages of this rank's each rank has consumed, then the copy kernels'
    /// finished-block counts, sends [2P, 3P) and receives [3P, 4P), then the copy blocks'
    /// tickets (4P).
    std::size_t flag_bytes() const { return (4 * peers_.size() + 1) * sizeof(counter); }

    /// The k-th outgoing range to this rank itself: the k-th incoming one's bytes.
    std::size_t self_offset(std::span<const message_range> out, std::size_t k,
                            std::size_t bytes) const {
        for (const message_range& m : out)
            if (m.rank == rank_ && m.bytes != 0 && k-- == 0) {
                if (m.bytes != bytes) break;
                return m.offset;
            }
        throw std::invalid_argument("layout::mpi::ipc_transport: the messages to this rank itself "
                                    "differ from those it receives from itself");
    }

    void add(copies& t, copy c, cudaStream_t stream) {
        if (t.count == copies::capacity) launch(t, stream);
        c.first_block = t.count == 0 ? 0 : t.c[t.count - 1].first_block + t.c[t.count - 1].blocks;
        c.blocks = blocks_for(c);
        if (c.message_blocks == 0) c.message_blocks = c.blocks; // a message of one copy
        t.c[t.count++] = c;
    }
    /// The copies so far in one kernel, its blocks' tickets after every earlier launch's.
    void launch(copies& t, cudaStream_t stream) {
        if (t.count == 0) return;
        const unsigned blocks = t.c[t.count - 1].first_block + t.c[t.count - 1].blocks;
        t.tickets = flags_ + 4 * peers_.size();
        t.first_ticket = tickets_;
        tickets_ += blocks;
        copy_kernel<<<blocks, copy_block, 0, stream>>>(t);
        layout::cuda::check(cudaGetLastError(), "layout::mpi::ipc_transport (copy)");
        t.count = 0;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1, device_ = -1;
    std::vector<peer> peers_;
    landing_blocks landing_;
    // exchange_gathered's messages as byte ranges (for grow), and the deprecated form's incoming
    // messages as elements: kept, so that nothing is allocated per exchange once warm.
    std::vector<message_range> out_ranges_, in_ranges_;
    std::vector<gathered_message> in_messages_;
    counter* flags_ = nullptr;
    cudaEvent_t last_ = nullptr; // recorded after each exchange
    cudaIpcMemHandle_t own_handle_{};
    std::size_t wave_ = 1;            // copy blocks resident on the GPU at once
    std::size_t block_bytes_ = 16384; // what a copy block moves (spread)
    counter tickets_ = 0;             // copy blocks launched so far (their tickets)
};

} // namespace detail::ipc
} // namespace layout::mpi
