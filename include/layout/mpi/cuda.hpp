/// \file mpi/cuda.hpp
/// Migration and halo plans for containers in device memory (layout::cuda::aos_vector, ...).
///
///     layout::cuda::soa_vector<Particle> dev = ...;
///     layout::mpi::migration_plan plan(MPI_COMM_WORLD, destinations);   // host ranks, as before
///     plan.migrate(dev);                                   // packs on the GPU, unpacks on the GPU
///     layout::mpi::set_device_path(plan, layout::mpi::device_path::staged);  // (deprecated)
///
/// Messages are packed and unpacked on the GPU, one kernel per peer and direction, with the
/// library's gather kernel (all fields travelling, owners to messages) or per-leaf copies
/// (layout::extension::copy_leaves over the travelling leaves). The messages move through the
/// device-planned plans' transport types (device_transport.hpp): cuda_aware_transport where the
/// MPI library says it is CUDA-aware (Open MPI's MPIX_Query_cuda_support()), else
/// staged_transport (pinned host buffers), or nccl_transport after use_nccl (nccl.hpp; it and
/// set_device_path are deprecated: the device-planned plans take the transport as their type);
/// start prepares and posts them, finish waits. The kernels and copies run on the exchange's stream
/// (the container's; a view's, the default one; unless set_stream chose one): start waits for
/// the packing before it sends; finish queues the unpacking and returns, so work queued after
/// it on that stream sees the elements. scatter_add sums each owner's contributions in one
/// thread, in ghost order: no atomics, the same bits every run. Packing (buffers, kernels,
/// staging) comes before the plans' agreement, so a device error there makes every rank throw
/// (error.hpp); an error while unpacking comes after all messages arrived, so it leaves no rank
/// waiting: that rank throws.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/cuda.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../cuda/algorithms/gather_scatter.hpp"
#include "../cuda/detail/launch.hpp"
#include "../cuda/error.hpp"
#include "../cuda/vector.hpp"
#include "../extension.hpp"
#include "cuda_aware.hpp"
#include "detail/exchange.hpp"
#include "detail/pattern.hpp"
#include "device_transport.hpp"
#include "halo.hpp"
#include "migrate.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::mpi {

/// How device buffers reach MPI.
enum class device_path {
    automatic,  ///< cuda_aware where the MPI library says so, else staged
    cuda_aware, ///< device pointers to MPI
    staged,     ///< through pinned host buffers
    nccl ///< grouped ncclSend/ncclRecv on the plan's stream (use_nccl, <layout/mpi/nccl.hpp>)
};

namespace detail {

/// What a plan keeps for device containers: buffers that only grow, the plan's order on the
/// device, for scatter_add each owner's contributions in order (a CSR built on the host), and
/// the transports that move the messages: the same types as a device_migration_plan's
/// (device_transport.hpp, nccl.hpp). A plan's type does not name its transport (set_device_path
/// and use_nccl choose it at run time), so each one is made when its path is first taken (staged
/// and cuda-aware over the plan's own communicator: no collective call) and kept, buffers and
/// all, should the plan switch back. Owned by the pattern (attachment.hpp), which asks it only
/// for its allocations and to wait for its messages.
struct device_state {
    byte_buffer<layout::cuda::device_memory> send, recv, order, owner_offsets, owner_items,
        segments;
    std::int64_t order_version = -1, owners_version = -1;
    std::size_t owner_count = 0;
    std::optional<cudaStream_t> chosen; // set_stream's, for every exchange
    cudaStream_t stream{};              // the exchange in flight's (choose_stream, at its start)
    device_path path = device_path::automatic;
    any_transport staged, cuda_aware, nccl; // nccl: set by use_nccl
    any_transport* in_flight = nullptr;     // the transport of the exchange started, if any
    std::vector<message_range> out, in;     // that exchange's messages

    std::size_t allocations() const noexcept {
        return send.allocations() + recv.allocations() + order.allocations() +
               owner_offsets.allocations() + owner_items.allocations() + segments.allocations() +
               staged.allocations() + cuda_aware.allocations() + nccl.allocations();
    }
    /// Whether the messages leave from device memory (the transport reads the packed buffer).
    bool direct() const {
        return path == device_path::cuda_aware || (path == device_path::nccl && nccl) ||
               (path == device_path::automatic && cuda_aware_mpi());
    }
    /// The transport of the next exchange, made on first use over the plan's communicator.
    any_transport& transport(MPI_Comm plan_comm) {
        if (path == device_path::nccl && nccl) return nccl;
        if (path == device_path::cuda_aware ||
            (path == device_path::automatic && cuda_aware_mpi())) {
            if (!cuda_aware) cuda_aware.emplace(cuda_aware_transport(borrowed_comm, plan_comm));
            return cuda_aware;
        }
        if (!staged) staged.emplace(staged_transport(borrowed_comm, plan_comm));
        return staged;
    }
    /// Waits for the messages of the exchange in flight (staged: and queues their copy to the
    /// device).
    void wait() {
        if (any_transport* t = std::exchange(in_flight, nullptr)) t->wait(stream);
    }
};

inline device_state& device_state_of(pattern& p) { return p.attached().get<device_state>(); }

template <class E>
E* upload(byte_buffer<layout::cuda::device_memory>& buffer, const std::vector<E>& values,
          cudaStream_t stream) {
    auto* p = reinterpret_cast<E*>(buffer.reserve(values.size() * sizeof(E)));
    if (!values.empty())
        layout::cuda::check(cudaMemcpyAsync(p, values.data(), values.size() * sizeof(E),
                                            cudaMemcpyHostToDevice, stream),
                            "cudaMemcpyAsync (plan to device)");
    // The host vector may change before the copy ran (a pageable copy is synchronous with
    // respect to the host only up to staging): wait.
    layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return p;
}

/// One message segment as the unpacking kernels see it.
struct device_segment {
    const std::byte* message;
    std::size_t offset; // in the plan's order
    std::size_t count;
};

// ---- kernels ------------------------------------------------------------------------------------

/// message[i] = src[base + i] (travelling leaves): ghosts to a scatter_add message.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void pack_contiguous_kernel(layout::view<const T, L, M> src,
                                       layout::extension::storage<T, policy::soa> wire,
                                       std::size_t first, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    using W = wire_format<T, S>;
    layout::extension::copy_leaves(wire.at(i), src.storage().at(first + i),
                                   std::index_sequence<W::leaves[K]...>{});
}

/// message[i] = src[order[i]] for a subset of leaves (all leaves go through cuda::gather).
template <class T, class S, class L, class M, std::size_t... K>
__global__ void pack_indexed_kernel(layout::view<const T, L, M> src,
                                    layout::extension::storage<T, policy::soa> wire,
                                    const std::size_t* LAYOUT_RESTRICT order, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    using W = wire_format<T, S>;
    layout::extension::copy_leaves(wire.at(i), src.storage().at(order[i]),
                                   std::index_sequence<W::leaves[K]...>{});
}

/// dst[first + i] = message[i] (travelling leaves): migration and halo gather.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void unpack_kernel(layout::view<T, L, M> dst,
                              layout::extension::storage<const T, policy::soa> wire,
                              std::size_t first, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    using W = wire_format<T, S>;
    layout::extension::copy_leaves(dst.storage().at(first + i), wire.at(i),
                                   std::index_sequence<W::leaves[K]...>{});
}

/// One thread per owner u: dst[owner] += each contribution to it, in ghost order. items holds
/// positions in the plan's order, grouped by owner; each position's segment is found by binary
/// search over the segments' offsets.
template <class T, class S, class L, class M, std::size_t... K>
__global__ void add_kernel(layout::view<T, L, M> dst, const std::size_t* LAYOUT_RESTRICT offsets,
                           const std::size_t* LAYOUT_RESTRICT items,
                           const std::size_t* LAYOUT_RESTRICT order,
                           const device_segment* LAYOUT_RESTRICT segments,
                           std::size_t segment_count, std::size_t owners) {
    const std::size_t u = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (u >= owners) return;
    using W = wire_format<T, S>;
    const std::size_t first = offsets[u], last = offsets[u + 1];
    if (first == last) return;
    const auto to = dst.storage().at(order[items[first]]);
    for (std::size_t c = first; c < last; ++c) {
        const std::size_t g = items[c];
        std::size_t lo = 0, hi = segment_count;
        while (hi - lo > 1) {
            const std::size_t mid = (lo + hi) / 2;
            if (segments[mid].offset <= g)
                lo = mid;
            else
                hi = mid;
        }
        const device_segment seg = segments[lo];
        const std::size_t i = g - seg.offset;
        ((to.template leaf<W::leaves[K]>() += reinterpret_cast<const leaf_t<T, W::leaves[K]>*>(
              seg.message + seg.count * W::prefix[K])[i]),
         ...);
    }
}

template <class T, class S, class F>
decltype(auto) with_wire_leaves(F&& f) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) -> decltype(auto) {
        return f(std::index_sequence<K...>{});
    }(std::make_index_sequence<wire_format<T, S>::count>{});
}

/// Device containers: pack on the GPU, then MPI on device buffers or through pinned ones.
template <>
struct transport<layout::cuda::device_memory> {
    /// The stream of an exchange, fixed at its start: set_stream's, else a container's own (a
    /// plan on the legacy stream is unordered with a container on a non-blocking stream), else
    /// (views carry none) the default stream, as for the library's other operations on views.
    template <class C>
    static void choose_stream(pattern& p, const C& c) {
        device_state& st = device_state_of(p);
        if (st.chosen)
            st.stream = *st.chosen;
        else if constexpr (layout::extension::is_vector_v<C>)
            st.stream = layout::cuda::native(c.stream());
        else
            st.stream = layout::cuda::native(layout::stream_ref{});
    }

    /// Packs on the GPU (and into the pinned buffers, when staged); returns the buffers for
    /// pattern::post. Before the agreement: a device error here stops every rank.
    template <class S, class T, class L, class M>
    static std::pair<const std::byte*, std::byte*> pack(pattern& p, direction d,
                                                        const view<const T, L, M>& src,
                                                        std::size_t base, bool /*keep_self*/) {
        using W = wire_format<T, S>;
        constexpr const char* function = "layout::mpi (device pack)";
        device_state& st = device_state_of(p);
        const auto [send_bytes, recv_bytes] = p.layout_messages(d, W::bytes_per_element);
        std::byte* send = st.send.reserve(send_bytes);
        std::byte* recv = st.recv.reserve(recv_bytes);
        const std::size_t* order = nullptr;
        if (d == direction::forward) {
            if (st.order_version != p.version()) {
                upload(st.order, p.order(), st.stream);
                st.order_version = p.version();
            }
            order = reinterpret_cast<const std::size_t*>(st.order.data());
        }
        const auto& out = p.out_segments(d);
        for (std::size_t k = 0; k < out.size(); ++k) {
            const segment seg = out[k];
            if (seg.count == 0) continue;
            const auto wire = wire_storage<T, S>(send + p.out_byte_offset(k), seg.count);
            const unsigned grid = layout::extension::cuda::grid_size(
                seg.count, layout::extension::cuda::block_size, function);
            if (d == direction::forward && W::count == leaf_count_v<T>) {
                layout::extension::cuda::launch_gather(
                    view<T, policy::soa, layout::cuda::device_memory>(wire, seg.count), src,
                    order + seg.offset, seg.count, st.stream, function);
            } else {
                with_wire_leaves<T, S>([&]<std::size_t... K>(std::index_sequence<K...>) {
                    if (d == direction::forward)
                        pack_indexed_kernel<T, S, L, M, K...>
                            <<<grid, layout::extension::cuda::block_size, 0, st.stream>>>(
                                src, wire, order + seg.offset, seg.count);
                    else
                        pack_contiguous_kernel<T, S, L, M, K...>
                            <<<grid, layout::extension::cuda::block_size, 0, st.stream>>>(
                                src, wire, base + seg.offset, seg.count);
                });
                layout::cuda::check_launch(function);
            }
        }
        // The messages as the transport sees them, and what it needs before they leave
        // (staged: the copy to pinned memory), all before the agreement.
        st.out.clear();
        st.in.clear();
        p.for_each_message(
            d, W::bytes_per_element, send, recv,
            [&](int rank, std::byte* where, std::size_t bytes) {
                st.in.push_back({rank, static_cast<std::size_t>(where - recv), bytes});
            },
            [&](int rank, const std::byte* where, std::size_t bytes) {
                st.out.push_back({rank, static_cast<std::size_t>(where - send), bytes});
            });
        st.transport(p.messages_comm()).prepare(send, send_bytes, recv_bytes, st.stream);
        return {send, recv};
    }

    /// After the agreement: the messages leave through the plan's transport.
    static void post(pattern& p, direction, std::size_t, const std::byte* send, std::byte* recv) {
        device_state& st = device_state_of(p);
        any_transport& t = st.transport(p.messages_comm());
        st.in_flight = &t;
        t.post(send, st.out, recv, st.in, st.stream);
    }

    template <class S, class T, class L, class M>
    static void receive(pattern& p, direction d, const view<T, L, M>& dst, std::size_t base) {
        using W = wire_format<T, S>;
        constexpr const char* function = "layout::mpi (device unpack)";
        device_state& st = device_state_of(p);
        p.wait(); // the transport's wait: the messages are in st.recv, or queued to be
        const auto& in = p.in_segments(d);
        if (d == direction::forward) {
            for (std::size_t k = 0; k < in.size(); ++k) {
                const segment seg = in[k];
                const auto wire = wire_storage<const T, S>(
                    p.in_message(d, k, st.send.data(), st.recv.data()), seg.count);
                const unsigned grid = layout::extension::cuda::grid_size(
                    seg.count, layout::extension::cuda::block_size, function);
                with_wire_leaves<T, S>([&]<std::size_t... K>(std::index_sequence<K...>) {
                    unpack_kernel<T, S, L, M, K...>
                        <<<grid, layout::extension::cuda::block_size, 0, st.stream>>>(
                            dst, wire, base + seg.offset, seg.count);
                });
                layout::cuda::check_launch(function);
            }
            return;
        }
        // Reverse (scatter_add): every contribution to an owner, in order, in one thread.
        if (st.owners_version != p.version()) build_owners(p, st);
        std::vector<device_segment> segments;
        for (std::size_t k = 0; k < in.size(); ++k)
            segments.push_back(
                {p.in_message(d, k, st.send.data(), st.recv.data()), in[k].offset, in[k].count});
        if (segments.empty() || st.owner_count == 0) return;
        const auto* segs = upload(st.segments, segments, st.stream);
        const unsigned grid = layout::extension::cuda::grid_size(
            st.owner_count, layout::extension::cuda::block_size, function);
        with_wire_leaves<T, S>([&]<std::size_t... K>(std::index_sequence<K...>) {
            static_assert((std::is_arithmetic_v<leaf_t<T, W::leaves[K]>> && ...),
                          "layout: mpi::halo_plan::scatter_add adds the travelling leaves; "
                          "select only arithmetic ones (e.g. scatter_add<&Particle::force>)");
            add_kernel<T, S, L, M, K...>
                <<<grid, layout::extension::cuda::block_size, 0, st.stream>>>(
                    dst, reinterpret_cast<const std::size_t*>(st.owner_offsets.data()),
                    reinterpret_cast<const std::size_t*>(st.owner_items.data()),
                    reinterpret_cast<const std::size_t*>(st.order.data()), segs, segments.size(),
                    st.owner_count);
        });
        layout::cuda::check_launch(function);
    }

private:
    /// Positions in the plan's order grouped by the owner they name (counting sort, stable: in
    /// order within an owner), for the owners that have contributions.
    static void build_owners(pattern& p, device_state& st) {
        const auto& order = p.order();
        const std::size_t n = p.source_size();
        std::vector<std::size_t> count(n, 0);
        for (std::size_t owner : order) ++count[owner];
        // Owners with contributions get a slot each; offsets[s] is where slot s's items start.
        std::vector<std::size_t> slot(n, 0), offsets{0};
        for (std::size_t u = 0; u < n; ++u)
            if (count[u] != 0) {
                slot[u] = offsets.size() - 1;
                offsets.push_back(offsets.back() + count[u]);
            }
        std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
        std::vector<std::size_t> items(order.size());
        for (std::size_t g = 0; g < order.size(); ++g) items[next[slot[order[g]]]++] = g;
        upload(st.owner_offsets, offsets, st.stream);
        upload(st.owner_items, items, st.stream);
        upload(st.order, order, st.stream);
        st.order_version = p.version();
        st.owner_count = offsets.size() - 1;
        st.owners_version = p.version();
    }
};

} // namespace detail

/// Chooses how a plan's device buffers reach MPI. cuda_aware where the MPI library is not
/// throws std::invalid_argument (it would crash inside MPI otherwise). Local: not collective.
/// Deprecated, goes in the next release: a plan typed by its transport chooses at compile time
/// (device_migration_plan<T>, device_halo_plan<T> with staged_transport, cuda_aware_transport
/// or nccl_transport); without set_device_path, this plan takes the automatic path.
template <class Plan>
[[deprecated("layout::mpi::set_device_path is deprecated: choose the transport by type, "
             "layout::mpi::device_migration_plan<T> / device_halo_plan<T> with "
             "staged_transport, cuda_aware_transport or nccl_transport")]] void
set_device_path(Plan& plan, device_path path) {
    if (path == device_path::cuda_aware && !cuda_aware_mpi())
        throw std::invalid_argument("layout::mpi::set_device_path: this MPI library is not "
                                    "CUDA-aware (MPIX_Query_cuda_support() is 0)");
    if (path == device_path::nccl && !detail::device_state_of(plan.pattern()).nccl)
        throw std::invalid_argument("layout::mpi::set_device_path: device_path::nccl needs a "
                                    "communicator: layout::mpi::use_nccl(plan, nccl)");
    detail::device_state_of(plan.pattern()).path = path;
}

/// Whether the plan's next device exchange hands device buffers to MPI directly.
template <class Plan>
bool uses_cuda_aware_path(Plan& plan) {
    return detail::device_state_of(plan.pattern()).direct();
}

/// The stream on which the plan packs and unpacks device memory. Without it, an exchange of a
/// container runs on the container's stream, and an exchange of views on the default stream.
template <class Plan>
void set_stream(Plan& plan, cudaStream_t stream) {
    detail::device_state_of(plan.pattern()).chosen = stream;
}

} // namespace layout::mpi
