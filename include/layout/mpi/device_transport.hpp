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
/// Every transport satisfies layout::mpi::device_transport. The library's three also split an
/// exchange in phases, for the host-planned plans (migration_plan, halo_plan on device
/// containers, <layout/mpi/cuda.hpp>), whose start and finish let computation run while the
/// messages travel:
///
///     prepare(send, send_bytes, recv_bytes, stream)  local, before the plans' agreement: what
///                                                     can fail on one rank alone (buffers,
///                                                     staging copies, the wait for the packing)
///     post(send, out, recv, in, stream)               after it: the messages leave
///     wait(stream)                                    they have arrived (or are queued on the
///                                                     stream, NCCL), in recv
///
/// exchange() is the three in a row.
///
/// A transport that copies the messages with its own kernel may also read the elements where
/// they are and write them where they go (exchange_gathered, gathered_column and gathered_message
/// below: ipc.hpp), so that the plan packs and unpacks nothing: the device-planned plans use it
/// where whole AoS elements travel, and else for the travelling leaves' columns (SoA, AoSoA, AoS).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_transport.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../cuda/error.hpp"
#include "../cuda/memory.hpp"
#include "cuda_aware.hpp"
#include "detail/byte_buffer.hpp"
#include "detail/point_to_point.hpp"
#include "error.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace layout::mpi {

/// One peer's message: [offset, offset + bytes) of the send or receive buffer.
struct message_range {
    int rank;
    std::size_t offset;
    std::size_t bytes;
};

/// One peer's message of a gathered exchange (exchange_gathered): `count` elements. Sent: the
/// elements order[first], ..., order[first + count - 1] of the source; received: they become
/// elements first, ..., first + count - 1 of the destination.
struct gathered_message {
    int rank;
    std::size_t first;
    std::size_t count;
};

/// One column of a gathered exchange: element i of the source at from + i * element, of the
/// destination at to + i * element (a whole AoS element, or a SoA leaf); with lanes set, a
/// column in blocks: element i at from + (i / lanes) * block + (i % lanes) * element, and the
/// same from `to` (an AoSoA leaf: its lanes and block bytes; an AoS leaf: 1 and sizeof(T)). A
/// message holds its columns one after another, count * element bytes each, in the order they
/// are given (how the transport lays them out in its own blocks is its own: ipc_transport starts
/// each at 16 bytes).
struct gathered_column {
    const std::byte* from;
    std::byte* to;
    std::size_t element;
    std::size_t lanes = 0; ///< 0: element i at from + i * element
    std::size_t block = 0; ///< bytes from one block of lanes to the next
};

/// What a device-planned exchange needs from a transport.
template <class T>
concept device_transport = requires(T& t, const std::byte* send, std::byte* recv,
                                    std::span<const message_range> m, cudaStream_t stream) {
    { t.exchange(send, m, recv, m, stream) };
    { t.allocations() } -> std::convertible_to<std::size_t>;
};

namespace detail {

/// Tag of the transports' constructors that take a communicator already duplicated for the
/// plan (the host-planned plans' own): used as is, and not freed.
struct borrowed_comm_t {
    explicit borrowed_comm_t() = default;
};
inline constexpr borrowed_comm_t borrowed_comm{};

/// Posts MPI point-to-point messages for every range (point_to_point.hpp: chunks of at most
/// 1 GiB, which MPI keeps in order between two ranks) on comm; wait() waits for all of them and
/// checks that each receive got the bytes its range says.
class mpi_messages {
public:
    explicit mpi_messages(MPI_Comm comm) : owned_(true) {
        check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    }
    /// comm: a duplicate the caller owns, with MPI_ERRORS_RETURN (the host-planned plans').
    mpi_messages(borrowed_comm_t, MPI_Comm comm) : comm_(comm), owned_(false) {
        check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    }
    mpi_messages(mpi_messages&& o) noexcept
        : comm_(std::exchange(o.comm_, MPI_COMM_NULL)), owned_(o.owned_), rank_(o.rank_),
          messages_(std::move(o.messages_)) {}
    mpi_messages(const mpi_messages&) = delete;
    mpi_messages& operator=(const mpi_messages&) = delete;
    mpi_messages& operator=(mpi_messages&&) = delete;
    ~mpi_messages() {
        messages_.wait_quietly(); // a plan destroyed between start and finish
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!finalized && owned_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in) {
        post(send, out, recv, in);
        wait();
    }
    /// Posts the receives, then the sends.
    void post(const std::byte* send, std::span<const message_range> out, std::byte* recv,
              std::span<const message_range> in) {
        messages_.post(comm_, rank_, 7, [&](auto&& receive, auto&& send_one) {
            for (const message_range& m : in)
                if (m.bytes != 0) receive(m.rank, recv + m.offset, m.bytes);
            for (const message_range& m : out)
                if (m.bytes != 0) send_one(m.rank, send + m.offset, m.bytes);
        });
    }
    /// Waits for what post() posted (nothing: returns at once).
    void wait() { messages_.wait(rank_); }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    bool owned_ = true;
    int rank_ = 0;
    point_to_point messages_;
};

/// Where a set of ranges ends: the bytes a buffer needs for them.
inline std::size_t end_of(std::span<const message_range> m) {
    std::size_t end = 0;
    for (const message_range& r : m) end = std::max(end, r.offset + r.bytes);
    return end;
}

} // namespace detail

/// Through pinned host buffers: one device-to-host copy of the packed messages, MPI between
/// the host buffers, one host-to-device copy of what arrived. Works with any MPI.
class staged_transport {
public:
    /// Local (duplicates comm, which is collective over comm).
    explicit staged_transport(MPI_Comm comm) : messages_(comm) {}
    /// Over a plan's own duplicate communicator (not freed here): local.
    staged_transport(detail::borrowed_comm_t tag, MPI_Comm comm) : messages_(tag, comm) {}

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        prepare(send, detail::end_of(out), detail::end_of(in), stream);
        post(send, out, recv, in, stream);
        wait(stream);
    }

    /// The pinned buffers grow and the packed messages are copied to the host: the stream waits.
    void prepare(const std::byte* send, std::size_t send_bytes, std::size_t recv_bytes,
                 cudaStream_t stream) {
        std::byte* host_send = send_.reserve(send_bytes);
        recv_.reserve(recv_bytes);
        if (send_bytes)
            layout::cuda::check(
                cudaMemcpyAsync(host_send, send, send_bytes, cudaMemcpyDeviceToHost, stream),
                "cudaMemcpyAsync (staging)");
        // Also orders the previous exchange's host-to-device copy before the host receive
        // buffer is reused.
        layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    /// MPI between the pinned buffers (prepared for these ranges).
    void post(const std::byte* /*send*/, std::span<const message_range> out, std::byte* recv,
              std::span<const message_range> in, cudaStream_t /*stream*/) {
        recv_device_ = recv;
        recv_bytes_ = detail::end_of(in);
        messages_.post(send_.data(), out, recv_.data(), in);
    }
    /// The messages arrived on the host; their copy to the device is queued on the stream.
    void wait(cudaStream_t stream) {
        messages_.wait();
        if (recv_bytes_)
            layout::cuda::check(cudaMemcpyAsync(recv_device_, recv_.data(), recv_bytes_,
                                                cudaMemcpyHostToDevice, stream),
                                "cudaMemcpyAsync (staging)");
        recv_bytes_ = 0;
    }
    std::size_t allocations() const noexcept { return send_.allocations() + recv_.allocations(); }

private:
    detail::mpi_messages messages_;
    detail::byte_buffer<layout::cuda::pinned_memory> send_, recv_;
    std::byte* recv_device_ = nullptr;
    std::size_t recv_bytes_ = 0;
};

/// Device pointers straight to MPI; needs an MPI library that is CUDA-aware (the constructor
/// throws std::invalid_argument where MPIX_Query_cuda_support() says it is not).
class cuda_aware_transport {
public:
    explicit cuda_aware_transport(MPI_Comm comm) : messages_(comm) { require_cuda_aware(); }
    /// Over a plan's own duplicate communicator (not freed here): local.
    cuda_aware_transport(detail::borrowed_comm_t tag, MPI_Comm comm) : messages_(tag, comm) {
        require_cuda_aware();
    }

    void exchange(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) {
        prepare(send, 0, 0, stream);
        post(send, out, recv, in, stream);
        wait(stream);
    }
    /// MPI reads the send buffer as soon as the send is posted: the packing must be done.
    void prepare(const std::byte*, std::size_t, std::size_t, cudaStream_t stream) {
        layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    void post(const std::byte* send, std::span<const message_range> out, std::byte* recv,
              std::span<const message_range> in, cudaStream_t /*stream*/) {
        messages_.post(send, out, recv, in);
    }
    void wait(cudaStream_t /*stream*/) { messages_.wait(); }
    std::size_t allocations() const noexcept { return 0; }

private:
    static void require_cuda_aware() {
        if (!cuda_aware_mpi())
            throw std::invalid_argument("layout::mpi::cuda_aware_transport: this MPI library is "
                                        "not CUDA-aware (MPIX_Query_cuda_support() is 0); use "
                                        "staged_transport or nccl_transport");
    }

    detail::mpi_messages messages_;
};

namespace detail {

/// The transport of a host-planned plan's device exchanges (<layout/mpi/cuda.hpp>): one of the
/// transport types above, or nccl_transport, chosen at run time (set_device_path, use_nccl) on a
/// plan whose type does not name it, so held here by type erasure. A transport without the
/// split phases exchanges everything in post().
class any_transport {
public:
    template <device_transport T>
    void emplace(T t) {
        self_ = std::make_unique<model<T>>(std::move(t));
    }
    explicit operator bool() const noexcept { return self_ != nullptr; }
    void prepare(const std::byte* send, std::size_t send_bytes, std::size_t recv_bytes,
                 cudaStream_t stream) {
        self_->prepare(send, send_bytes, recv_bytes, stream);
    }
    void post(const std::byte* send, std::span<const message_range> out, std::byte* recv,
              std::span<const message_range> in, cudaStream_t stream) {
        self_->post(send, out, recv, in, stream);
    }
    void wait(cudaStream_t stream) { self_->wait(stream); }
    std::size_t allocations() const noexcept { return self_ ? self_->allocations() : 0; }

private:
    struct base {
        virtual ~base() = default;
        virtual void prepare(const std::byte*, std::size_t, std::size_t, cudaStream_t) = 0;
        virtual void post(const std::byte*, std::span<const message_range>, std::byte*,
                          std::span<const message_range>, cudaStream_t) = 0;
        virtual void wait(cudaStream_t) = 0;
        virtual std::size_t allocations() const noexcept = 0;
    };
    template <class T>
    struct model final : base {
        explicit model(T&& x) : t(std::move(x)) {}
        static constexpr bool phased = requires(T& x, const std::byte* s, std::byte* r,
                                                std::span<const message_range> m, cudaStream_t c) {
            x.prepare(s, std::size_t{}, std::size_t{}, c);
            x.post(s, m, r, m, c);
            x.wait(c);
        };
        void prepare(const std::byte* send, std::size_t send_bytes, std::size_t recv_bytes,
                     cudaStream_t stream) override {
            if constexpr (phased) t.prepare(send, send_bytes, recv_bytes, stream);
        }
        void post(const std::byte* send, std::span<const message_range> out, std::byte* recv,
                  std::span<const message_range> in, cudaStream_t stream) override {
            if constexpr (phased)
                t.post(send, out, recv, in, stream);
            else
                t.exchange(send, out, recv, in, stream);
        }
        void wait(cudaStream_t stream) override {
            if constexpr (phased) t.wait(stream);
        }
        std::size_t allocations() const noexcept override { return t.allocations(); }
        T t;
    };
    std::unique_ptr<base> self_;
};

} // namespace detail

} // namespace layout::mpi
