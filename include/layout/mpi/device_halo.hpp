/// \file mpi/device_halo.hpp
/// layout::mpi::device_halo_plan: ghosts of a device container, built from a ghost list in
/// device memory and refreshed every step with no per-element work on the host.
///
///     layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, layout::mpi::nccl_transport(nccl), stream);
///     // at each rebuild: which owned element goes to which rank (device arrays, any length)
///     halo.update(owned, export_index, export_rank);   // collective; counts only to the host
///     // every step:
///     halo.gather<&Atom::x>(atoms);                 // owned, then ghosts; x refreshed
///
/// update() sorts the exports by rank on the GPU (stable: each rank's ghosts arrive in the order
/// of the sender's list, senders in rank order, self included), reads the counts back and agrees
/// on them with the other ranks in one MPI_Allreduce. gather() resizes the container to owned +
/// ghost_count() (the first time, or after an update) and writes the travelling fields of the
/// ghosts: a kernel packs the exports into one message per peer, the transport moves them while
/// exports to this rank itself (periodic images) are copied on a forked stream, and a kernel
/// writes the arrivals. One host-side MPI_Allreduce a gather (the agreement; no host wait on the
/// GPU), nothing allocated once warm.
///
/// Errors: an export naming an element past `owned` or a rank out of range (update), a container
/// that is neither owned nor owned + ghost_count() long (gather), ranks running different plans,
/// updates or fields: every rank throws layout::mpi::error before anything moves, and the
/// container is as it was. At most 2^32 - 2 exports and owned elements per rank.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_halo.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../cuda/error.hpp"
#include "../cuda/memory.hpp"
#include "../cuda/workspace.hpp"
#include "../extension.hpp"
#include "../memory_resource.hpp"
#include "../view.hpp"
#include "detail/agreement.hpp"
#include "detail/device_exchange.hpp"
#include "device_transport.hpp"
#include "error.hpp"
#include "fields.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

namespace layout::mpi {
namespace detail {

/// The rank of export k, or -2 (out of range) where its element is not an owned one.
template <class I>
struct export_destination {
    const I* index;
    const int* rank;
    std::size_t owned;
    __device__ long long operator()(std::size_t k) const {
        const auto i = index[k];
        if constexpr (std::is_signed_v<I>)
            if (i < 0) return -2;
        return static_cast<std::size_t>(i) < owned ? rank[k] : -2;
    }
};

/// send[k] = index[order[k]]: the element each sorted export reads.
template <class I>
__global__ void compose_kernel(const I* LAYOUT_RESTRICT index,
                               const std::uint32_t* LAYOUT_RESTRICT order,
                               std::uint32_t* LAYOUT_RESTRICT send, std::uint32_t n) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) send[k] = static_cast<std::uint32_t>(index[order[k]]);
}

} // namespace detail

template <device_transport Transport>
class device_halo_plan {
public:
    /// Collective over comm; no ghosts until update().
    device_halo_plan(MPI_Comm comm, Transport transport, layout::stream_ref stream = {},
                     resource_ref resource = layout::cuda::device_memory::default_resource())
        : x_(comm, std::move(transport), stream, resource, function) {}
    device_halo_plan(const device_halo_plan&) = delete;
    device_halo_plan& operator=(const device_halo_plan&) = delete;

    /// Collective. Export k sends owned element index[k] (< owned) to rank rank[k] as a ghost;
    /// both arrays in device memory, the same length. Buffers are kept.
    template <class I>
        requires std::is_integral_v<I>
    void update(std::size_t owned, std::span<const I> index, std::span<const int> rank) {
        constexpr const char* where = "layout::mpi::device_halo_plan::update";
        detail::local_outcome local;
        const std::size_t n = index.size();
        local.run([&] {
            if (rank.size() != n) {
                local.problem = std::string(where) + ": " + std::to_string(n) +
                                " export indices but " + std::to_string(rank.size()) + " ranks";
                return;
            }
            if (n > std::numeric_limits<std::uint32_t>::max() - 1 ||
                owned > std::numeric_limits<std::uint32_t>::max() - 1) {
                local.problem = std::string(where) + ": more than 2^32 - 2 exports or elements";
                return;
            }
            const std::uint32_t* order = x_.sort_by_bucket(
                n, detail::export_destination<I>{index.data(), rank.data(), owned});
            if (x_.any_bad()) {
                const std::size_t k = x_.first_bad_item();
                local.problem = std::string(where) + ": export " + std::to_string(k) +
                                (x_.first_bad_destination() == -2
                                     ? " names an element past the " + std::to_string(owned) +
                                           " owned ones (or a negative one)"
                                     : " names rank " + std::to_string(x_.first_bad_destination()) +
                                           ", out of range for a communicator of " +
                                           std::to_string(x_.ranks()) + " ranks");
                return;
            }
            // The sorted exports' elements, in the slot the sort no longer needs.
            auto* send = x_.workspace().template get<std::uint32_t>(slot::indices, n);
            if (n != 0) {
                detail::compose_kernel<<<layout::extension::cuda::grid_size(n, x_.block, where),
                                         x_.block, 0, x_.stream()>>>(index.data(), order, send,
                                                                     static_cast<std::uint32_t>(n));
                layout::cuda::check_launch(where);
            }
        });
        x_.agree_counts(detail::operation::build, local, 0, 0);
        x_.next_version();
        owned_ = owned;
        ghosts_ = x_.arriving(x_.me());
        exports_ = n;
    }

    /// Collective. c holds the owned elements (owned, or owned + ghost_count() after an earlier
    /// gather); it is resized to owned + ghost_count() and each ghost's travelling fields S
    /// written. The other fields of a ghost keep what c held there (uninitialized where c grew:
    /// gather all fields once after an update, or only read the travelling ones).
    template <class S = detail::every_leaf, class C>
    void gather(C& c) {
        using T = typename C::value_type;
        using L = typename C::layout_type;
        using M = typename C::memory_type;
        static_assert(M::device_accessible && !M::host_accessible,
                      "layout: mpi::device_halo_plan exchanges containers in device memory; host "
                      "containers: mpi::halo_plan");
        using W = detail::wire_format<T, S>;
        layout::cuda::workspace& ws = x_.workspace();
        x_.template use_mode<T, S, L>();
        const std::size_t wire = x_.template wire_bytes<T, S>();
        detail::local_outcome local;
        local.run([&] {
            ws.check_stream(c.stream(), function);
            if (c.size() != owned_ && c.size() != owned_ + ghosts_) {
                local.problem = "layout::mpi::device_halo_plan::gather: the container holds " +
                                std::to_string(c.size()) + " elements; the plan was built for " +
                                std::to_string(owned_) + " owned (+ " + std::to_string(ghosts_) +
                                " ghosts) (resized since update? update again)";
                return;
            }
            // Everything that can grow, before the agreement.
            c.reserve(owned_ + ghosts_);
            x_.reserve_outgoing(wire);
            ws.bytes(slot::incoming, x_.incoming_bytes(x_.me(), wire));
        });
        detail::agree(x_.communicator(), x_.rank(), detail::operation::halo_gather, local, x_.id(),
                      version(), detail::with_mode(W::signature, x_.mode()));
        if (c.size() != owned_ + ghosts_) c.resize(owned_ + ghosts_, layout::for_overwrite);
        x_.template lay_out<T, S>(owned_);
        const auto* send = static_cast<const std::uint32_t*>(ws.bytes(slot::indices, 0));
        x_.template move<T, S>(c.view(), layout::view<const T, L, M>(c.view()), send);
    }

    /// The travelling fields named as view.select<Keys...>() names them: gather<&Atom::x>(c).
    template <auto Key, auto... Keys, class C>
    void gather(C& c) {
        gather<detail::keys<Key, Keys...>>(c);
    }

    std::size_t owned() const noexcept { return owned_; }
    std::size_t ghost_count() const noexcept { return ghosts_; }
    std::size_t export_count() const noexcept { return exports_; }
    std::size_t allocations() const noexcept { return x_.allocations(); }
    layout::stream_ref stream() const noexcept { return x_.workspace().stream(); }
    Transport& transport() noexcept { return x_.transport(); }

private:
    using slot = layout::cuda::workspace::slot;
    static constexpr const char* function = "layout::mpi::device_halo_plan::gather";
    std::int64_t version() const noexcept { return x_.version(); }

    detail::device_exchange<Transport> x_;
    std::size_t owned_ = 0, ghosts_ = 0, exports_ = 0;
};

} // namespace layout::mpi
