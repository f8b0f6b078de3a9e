/// \file mpi/device_transport.hpp
/// How the bytes of a device-planned exchange travel between ranks: a transport is a type that a
/// plan is parameterized by (layout::mpi::device_migration_plan<Transport>), not a run-time hook.
///
///     layout::mpi::staged_transport staged(MPI_COMM_WORLD);       // any MPI: pinned host buffers
///     layout::mpi::cuda_aware_transport direct(MPI_COMM_WORLD);   // MPI reads device memory
///     layout::mpi::nccl_transport nccl(communicator);             // <layout/mpi/nccl.hpp>
///
/// A transport moves one exchange: each outgoing message is a byte range of the send buffer for
/// one peer, each incoming one a byte range of the receive buffer from one peer (both in device
/// memory, laid out by the plan), ordered after the work already queued on the stream; work
/// queued after exchange() on that stream sees the received bytes. Both sides of a pair of ranks
/// list the same message sizes (the plan's agreed counts), zero-byte messages included or not
/// alike. NCCL queues everything on the stream (no host wait); the MPI transports wait for the
/// packing to finish, because MPI reads the buffer when the send is posted.
///
/// Every transport satisfies layout::mpi::device_transport.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_transport.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../cuda/error.hpp"
#include "../cuda/memory.hpp"
#include "cuda_aware.hpp"
#include "detail/byte_buffer.hpp"
#include "error.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace layout::mpi {

/// One peer's message: [offset, offset + bytes) of the send or receive buffer.
struct message_range {
    int rank;
    std::size_t offset;
    std::size_t bytes;
};

/// What a device-planned exchange needs from a transport.
template <class T>
concept device_transport = requires(T& t, const std::byte* send, std::byte* recv,
                                    std::span<const message_range> m, cudaStream_t stream) {
    { t.exchange(send, m, recv, m, stream) };
    { t.allocations() } -> std::convertible_to<std::size_t>;
};

namespace detail {

/// Posts MPI point-to-point messages for every range (split into chunks of at most 1 GiB, which
/// MPI keeps in order between two ranks) on comm, and waits for all of them.
class mpi_messages {
public:
    explicit mpi_messages(MPI_Comm comm) {
        check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    }
    mpi_messages(mpi_messages&& o) noexcept
        : comm_(std::exchange(o.comm_, MPI_COMM_NULL)), rank_(o.rank_),
          requests_(std::move(o.requests_)) {}
    mpi_messages(const mpi_messages&) = delete;
    mpi_messages& operator=(const mpi_messages&) = delete;
    mpi_messages& operator=(mpi_messages&&) = delete;
    ~mpi_messages() {
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in) {
        requests_.clear();
        constexpr std::size_t chunk = std::size_t{1} << 30;
        for (const message_range& m : in)
            for (std::size_t at = 0; at < m.bytes; at += chunk)
                post(MPI_Irecv(recv + m.offset + at,
                               static_cast<int>(std::min(chunk, m.bytes - at)), MPI_BYTE, m.rank, 7,
                               comm_, &requests_.emplace_back()),
                     "MPI_Irecv");
        for (const message_range& m : out)
            for (std::size_t at = 0; at < m.bytes; at += chunk)
                post(MPI_Isend(send + m.offset + at,
                               static_cast<int>(std::min(chunk, m.bytes - at)), MPI_BYTE, m.rank, 7,
                               comm_, &requests_.emplace_back()),
                     "MPI_Isend");
        const int code =
            MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
        check(code, "MPI_Waitall (device exchange)", rank_);
    }

private:
    void post(int code, const char* call) {
        if (code == MPI_SUCCESS) return;
        requests_.pop_back();
        // The messages already posted must end before their buffers may change.
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
        requests_.clear();
        check(code, call, rank_);
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    std::vector<MPI_Request> requests_;
};

} // namespace detail

/// Through pinned host buffers: one device-to-host copy of the packed messages, MPI between
/// the host buffers, one host-to-device copy of what arrived. Works with any MPI.
class staged_transport {
public:
    /// Local (duplicates comm, which is collective over comm).
    explicit staged_transport(MPI_Comm comm) : messages_(comm) {}

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        const std::size_t send_bytes = end_of(out), recv_bytes = end_of(in);
        std::byte* host_send = send_.reserve(send_bytes);
        std::byte* host_recv = recv_.reserve(recv_bytes);
        if (send_bytes)
            layout::cuda::check(
                cudaMemcpyAsync(host_send, send, send_bytes, cudaMemcpyDeviceToHost, stream),
                "cudaMemcpyAsync (staging)");
        // Also orders the previous exchange's host-to-device copy before host_recv is reused.
        layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        messages_.exchange(host_send, out, host_recv, in);
        if (recv_bytes)
            layout::cuda::check(
                cudaMemcpyAsync(recv, host_recv, recv_bytes, cudaMemcpyHostToDevice, stream),
                "cudaMemcpyAsync (staging)");
    }
    std::size_t allocations() const noexcept { return send_.allocations() + recv_.allocations(); }

private:
    static std::size_t end_of(std::span<const message_range> m) {
        std::size_t end = 0;
        for (const message_range& r : m) end = std::max(end, r.offset + r.bytes);
        return end;
    }

    detail::mpi_messages messages_;
    detail::byte_buffer<layout::cuda::pinned_memory> send_, recv_;
};

/// Device pointers straight to MPI; needs an MPI library that is CUDA-aware (the constructor
/// throws std::invalid_argument where MPIX_Query_cuda_support() says it is not).
class cuda_aware_transport {
public:
    explicit cuda_aware_transport(MPI_Comm comm) : messages_(comm) {
        if (!cuda_aware_mpi())
            throw std::invalid_argument("layout::mpi::cuda_aware_transport: this MPI library is "
                                        "not CUDA-aware (MPIX_Query_cuda_support() is 0); use "
                                        "staged_transport or nccl_transport");
    }

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        messages_.exchange(send, out, recv, in);
    }
    std::size_t allocations() const noexcept { return 0; }

private:
    detail::mpi_messages messages_;
};

} // namespace layout::mpi
