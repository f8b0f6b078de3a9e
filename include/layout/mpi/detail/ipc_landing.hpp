/// \file mpi/detail/ipc_landing.hpp
/// ipc_transport's landing blocks (ipc_state.hpp uses them): for each peer, the block in this
/// rank's memory that the peer writes its messages into, and this rank's mapping of the peer's
/// block for its own messages (a message at a time). A block is made when a message first
/// outgrows it and made again, larger, the same way: point to point between the two ranks, its
/// handle over MPI, both sides knowing when from the message's size.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/ipc_landing.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../cuda/error.hpp"
#include "../device_transport.hpp"
#include "../error.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace layout::mpi::detail::ipc {

/// The bytes of a block for a message of `bytes`: both sides compute it alike.
inline std::size_t capacity_for(std::size_t bytes) {
    return std::bit_ceil(std::max<std::size_t>(bytes, std::size_t{1} << 20));
}

class landing_blocks {
public:
    landing_blocks() = default;
    landing_blocks(const landing_blocks&) = delete;
    landing_blocks& operator=(const landing_blocks&) = delete;
    ~landing_blocks() { release(); }

    /// Room for the peers of a communicator of `ranks` ranks, no block made yet.
    void resize(std::size_t ranks) { peers_.resize(ranks); }
    /// Where messages from peer r land, in this rank's memory.
    std::byte* incoming(std::size_t r) const noexcept { return peers_[r].landing; }
    /// Where this rank's messages to peer r land, in the peer's memory.
    std::byte* outgoing(std::size_t r) const noexcept { return peers_[r].remote; }
    /// Blocks made by this rank so far.
    std::size_t allocations() const noexcept { return allocations_; }

    /// New blocks where an incoming message outgrew its block (their handles go to the senders),
    /// new mappings where an outgoing one outgrew the peer's: point to point over comm (the
    /// transport's own; this rank is `rank` there). `last`: recorded after this rank's last
    /// exchange, waited for before a mapping it wrote into is closed.
    void grow(MPI_Comm comm, int rank, std::span<const message_range> out,
              std::span<const message_range> in, cudaEvent_t last) {
        // Almost always nothing outgrows its block: return before anything is allocated.
        const auto outgrows = [&](std::span<const message_range> messages, bool sent) {
            for (const message_range& m : messages) {
                if (m.bytes == 0 || m.rank == rank) continue;
                const peer& p = peers_[static_cast<std::size_t>(m.rank)];
                if (m.bytes > (sent ? p.remote_capacity : p.landing_capacity)) return true;
            }
            return false;
        };
        if (!outgrows(out, true) && !outgrows(in, false)) return;
        std::vector<MPI_Request> requests;
        std::vector<handle_message> sent_handles, got_handles;
        std::vector<std::size_t> got_from, got_bytes;
        sent_handles.reserve(in.size());
        got_handles.reserve(out.size());
        std::string failure;
        for (const message_range& m : out) {
            if (m.bytes == 0 || m.rank == rank) continue;
            peer& p = peers_[static_cast<std::size_t>(m.rank)];
            if (m.bytes <= p.remote_capacity) continue;
            got_handles.emplace_back();
            got_from.push_back(static_cast<std::size_t>(m.rank));
            got_bytes.push_back(m.bytes);
            requests.emplace_back();
            check(MPI_Irecv(&got_handles.back(), sizeof(handle_message), MPI_BYTE, m.rank, tag,
                            comm, &requests.back()),
                  "MPI_Irecv", rank);
        }
        for (const message_range& m : in) {
            if (m.bytes == 0 || m.rank == rank) continue;
            peer& p = peers_[static_cast<std::size_t>(m.rank)];
            if (m.bytes <= p.landing_capacity) continue;
            handle_message h{};
            if (failure.empty()) {
                try {
                    // (cudaFree waits for the device: this rank's copies out of the old block
                    // are done; the sender writes the next message into the new one.)
                    if (p.landing) layout::cuda::check(cudaFree(p.landing), "cudaFree");
                    p.landing = nullptr;
                    p.landing_capacity = 0;
                    const std::size_t capacity = capacity_for(m.bytes);
                    void* block = nullptr;
                    layout::cuda::check(cudaMalloc(&block, capacity),
                                        "cudaMalloc (ipc landing block)");
                    p.landing = static_cast<std::byte*>(block);
                    p.landing_capacity = capacity;
                    ++allocations_;
                    layout::cuda::check(cudaIpcGetMemHandle(&h.handle, block),
                                        "cudaIpcGetMemHandle");
                    h.ok = 1;
                } catch (const std::exception& e) {
                    failure = e.what();
                }
            }
            sent_handles.push_back(h);
            requests.emplace_back();
            check(MPI_Isend(&sent_handles.back(), sizeof(handle_message), MPI_BYTE, m.rank, tag,
                            comm, &requests.back()),
                  "MPI_Isend", rank);
        }
        if (requests.empty()) return;
        check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall", rank);
        for (std::size_t k = 0; k < got_handles.size() && failure.empty(); ++k) {
            peer& p = peers_[got_from[k]];
            if (!got_handles[k].ok)
                throw error("layout::mpi::ipc_transport: rank " + std::to_string(got_from[k]) +
                                " could not make the block this rank writes into",
                            static_cast<int>(got_from[k]));
            if (p.remote) {
                // This rank's last exchange is done, and with it every copy into the old block.
                layout::cuda::check(cudaEventSynchronize(last), "cudaEventSynchronize");
                layout::cuda::check(cudaIpcCloseMemHandle(p.remote), "cudaIpcCloseMemHandle");
                p.remote = nullptr;
                p.remote_capacity = 0;
            }
            void* remote = nullptr;
            layout::cuda::check(cudaIpcOpenMemHandle(&remote, got_handles[k].handle,
                                                     cudaIpcMemLazyEnablePeerAccess),
                                "cudaIpcOpenMemHandle (a peer's landing block)");
            p.remote = static_cast<std::byte*>(remote);
            p.remote_capacity = capacity_for(got_bytes[k]);
        }
        if (!failure.empty()) throw error(failure, rank);
    }

    /// Every block and mapping gone (once every rank's copies are done: the caller's barrier).
    void release() noexcept {
        for (peer& p : peers_) {
            if (p.remote) cudaIpcCloseMemHandle(p.remote);
            if (p.landing) cudaFree(p.landing);
            p = peer{};
        }
    }

private:
    /// What a handle message carries: the handle, or that the block could not be made.
    struct handle_message {
        cudaIpcMemHandle_t handle;
        int ok;
    };
    struct peer {
        std::byte* landing = nullptr; // in this rank's memory, written by the peer
        std::size_t landing_capacity = 0;
        std::byte* remote = nullptr; // the peer's block for this rank's messages
        std::size_t remote_capacity = 0;
    };
    static constexpr int tag = 11;
    std::vector<peer> peers_;
    std::size_t allocations_ = 0;
};

} // namespace layout::mpi::detail::ipc
