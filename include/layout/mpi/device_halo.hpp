/// \file mpi/device_halo.hpp
/// layout::mpi::device_halo_plan: ghosts of a device container, built from a ghost list in
/// device memory and refreshed every step with no per-element work on the host.
///
///     layout::mpi::device_halo_plan halo(MPI_COMM_WORLD, layout::mpi::nccl_transport(nccl), stream);
///     // at each rebuild: which owned element goes to which rank (device arrays, any length)
///     halo.update(owned, export_index, export_rank);   // collective; counts only to the host
///     // every step:
///     halo.gather<&Atom::x>(atoms);                 // owned, then ghosts; x refreshed
///     halo.scatter_add<&Atom::f>(atoms);            // the ghosts' f added on their owners
///
/// update() sorts the exports by rank on the GPU (stable: each rank's ghosts arrive in the order
/// of the sender's list, senders in rank order, self included), reads the counts back and agrees
/// on them with the other ranks in one MPI_Allreduce (with neighbours named at construction: the
/// agreement, then counts only to and from them, point to point). gather() resizes the container
/// to owned + ghost_count() (the first time, or after an update) and writes the travelling fields
/// of the ghosts: a kernel packs the exports into one message per peer, the transport moves them
/// while exports to this rank itself (periodic images) are copied on a forked stream, and a
/// kernel writes the arrivals. One host-side MPI_Allreduce a gather (the agreement; no host wait
/// on the GPU), nothing allocated once warm. scatter_add is the reverse: the ghosts go back
/// packed, and one thread an owner adds their values in the plan's order (grouped by owner once
/// an update, on the GPU), as layout::mpi::halo_plan does on the host, bit for bit.
///
/// Errors: an export naming an element past `owned`, a rank out of range or not a neighbour
/// (update), neighbour lists that are not symmetric (construction), a container that is neither
/// owned nor owned + ghost_count() long (gather; scatter_add: not owned + ghost_count()), ranks
/// running different plans, updates, operations or fields: every rank throws layout::mpi::error
/// before anything moves, and the container is as it was. At most 2^32 - 2 exports and owned
/// elements per rank.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_halo.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../cuda/detail/radix_sort.hpp"
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

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

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
    /// Collective over comm: exports only to these ranks (and this one), whose counts alone
    /// travel at each update, point to point, where the plan without them reduces every rank's
    /// over the communicator. The lists must be symmetric (b names a where a names b): checked
    /// here, every rank throws otherwise.
    device_halo_plan(MPI_Comm comm, Transport transport, std::span<const int> neighbours,
                     layout::stream_ref stream = {},
                     resource_ref resource = layout::cuda::device_memory::default_resource())
        : x_(comm, std::move(transport), stream, resource, function, neighbours, true) {}
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
            const detail::device_counts& counts = x_.counts();
            if (counts.any_bad()) {
                const std::size_t k = counts.first_bad_item();
                local.problem =
                    std::string(where) + ": export " + std::to_string(k) +
                    (counts.first_bad_destination() == -2
                         ? " names an element past the " + std::to_string(owned) +
                               " owned ones (or a negative one)"
                         : " names rank " + std::to_string(counts.first_bad_destination()) +
                               ", out of range for a communicator of " +
                               std::to_string(x_.ranks()) + " ranks");
                return;
            }
            if (const int r = counts.outside_neighbours(); r >= 0) {
                local.problem = std::string(where) + ": an export names rank " + std::to_string(r) +
                                ", which is not one of this rank's neighbours";
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
        ghosts_ = x_.counts().arriving(x_.me());
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

    /// Collective: the reverse of gather. c holds owned + ghost_count() elements; each ghost's
    /// travelling fields S (arithmetic leaves) go back to its owner and are added to the element
    /// it copies there, all contributions to one element by one thread in the plan's order (by
    /// the rank that holds the ghost, then export order): the same bits every run, and the same
    /// as layout::mpi::halo_plan::scatter_add's (but for NaN payloads, which the GPU does not
    /// carry through a sum as the CPU does). The ghosts keep their values.
    template <class S = detail::every_leaf, class C>
    void scatter_add(C& c) {
        using T = typename C::value_type;
        using L = typename C::layout_type;
        using M = typename C::memory_type;
        using W = detail::wire_format<T, S>;
        static_assert(M::device_accessible && !M::host_accessible,
                      "layout: mpi::device_halo_plan exchanges containers in device memory; host "
                      "containers: mpi::halo_plan");
        static_assert(
            []<std::size_t... K>(std::index_sequence<K...>) {
                return (std::is_arithmetic_v<leaf_t<T, W::leaves[K]>> && ...);
            }(std::make_index_sequence<W::count>{}),
            "layout: mpi::device_halo_plan::scatter_add adds the travelling leaves; "
            "select only arithmetic ones (e.g. scatter_add<&Particle::force>)");
        constexpr const char* where = "layout::mpi::device_halo_plan::scatter_add";
        layout::cuda::workspace& ws = x_.workspace();
        detail::local_outcome local;
        local.run([&] {
            ws.check_stream(c.stream(), where);
            if (c.size() != owned_ + ghosts_) {
                local.problem = std::string(where) + ": the container holds " +
                                std::to_string(c.size()) + " elements; the plan's " +
                                std::to_string(owned_) + " owned and " + std::to_string(ghosts_) +
                                " ghosts are " + std::to_string(owned_ + ghosts_) +
                                " (gather first; resized since?)";
                return;
            }
            // Everything that can grow, before the agreement.
            if (owners_version_ != version()) group_by_owner();
            const auto [out_bytes, in_bytes] = x_.reverse_bytes(W::bytes_per_element);
            ws.bytes(slot::outgoing, out_bytes);
            ws.bytes(slot::incoming, in_bytes);
        });
        detail::agree(x_.communicator(), x_.rank(), detail::operation::halo_scatter_add, local,
                      x_.id(), version(), W::signature);
        x_.template lay_out_reverse<T, S>(owned_);
        x_.template send_back<T, S>(layout::view<const T, L, M>(c.view()));
        if (exports_ == 0) return;
        const auto n = static_cast<std::uint32_t>(exports_);
        const auto* owner = static_cast<const std::uint32_t*>(ws.bytes(slot::keys_alt, 0));
        const auto* item = static_cast<const std::uint32_t*>(ws.bytes(slot::indices_alt, 0));
        const auto runs = x_.runs();
        // Up to contribution_runs::capacity ranks' contributions a launch, in export order: an
        // owner's sum goes on from one launch to the next in the same order.
        for (std::size_t first = 0; first < runs.size();) {
            detail::contribution_runs t{};
            t.count = static_cast<unsigned>(
                std::min<std::size_t>(detail::contribution_runs::capacity, runs.size() - first));
            std::copy_n(runs.begin() + static_cast<std::ptrdiff_t>(first), t.count, t.r);
            first += t.count;
            t.lo = t.r[0].first;
            t.hi = first < runs.size() ? runs[first].first : runs.back().first + runs.back().count;
            t.self = x_.self_ghosts();
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                detail::add_contributions_kernel<T, S, L, M, K...>
                    <<<layout::extension::cuda::grid_size(n, x_.block, where), x_.block, 0,
                       x_.stream()>>>(c.view(), owner, item, n, t);
            }(std::make_index_sequence<W::count>{});
            layout::cuda::check_launch(where);
        }
    }
    template <auto Key, auto... Keys, class C>
    void scatter_add(C& c) {
        scatter_add<detail::keys<Key, Keys...>>(c);
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

    /// scatter_add's grouping of the sorted exports by the element they read (once an update):
    /// a stable radix sort of (element, position), into the slots the update's sort left free.
    void group_by_owner() {
        const cudaStream_t s = x_.stream();
        layout::cuda::workspace& ws = x_.workspace();
        const auto n = static_cast<std::uint32_t>(exports_);
        const auto* element = static_cast<const std::uint32_t*>(ws.bytes(slot::indices, 0));
        auto* position = ws.template get<std::uint32_t>(slot::keys, n);
        auto* owner = ws.template get<std::uint32_t>(slot::keys_alt, n);
        auto* item = ws.template get<std::uint32_t>(slot::indices_alt, n);
        if (n != 0) {
            constexpr const char* where = "layout::mpi::device_halo_plan::scatter_add";
            layout::cuda::detail::iota_kernel<<<
                layout::extension::cuda::grid_size(n, x_.block, where), x_.block, 0, s>>>(position,
                                                                                          n);
            layout::cuda::check_launch(where);
            const int end_bit = std::max(1, static_cast<int>(std::bit_width(owned_)));
            layout::cuda::detail::radix_sort_pairs(element, owner,
                                                   static_cast<const std::uint32_t*>(position),
                                                   item, n, 0, end_bit, ws, s);
        }
        owners_version_ = version();
    }

    detail::device_exchange<Transport> x_;
    std::size_t owned_ = 0, ghosts_ = 0, exports_ = 0;
    std::int64_t owners_version_ = -1;
};

} // namespace layout::mpi
