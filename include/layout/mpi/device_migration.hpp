/// \file mpi/device_migration.hpp
/// layout::mpi::device_migration_plan: moves the elements of a device container between ranks,
/// each to the rank its destination names, with the destinations and all per-element work on the
/// GPU. Only counts cross to the host: one small read-back and one MPI_Allreduce a migration (with
/// neighbours, two small ones and the neighbours' counts point to point).
///
///     layout::mpi::nccl_communicator nccl(MPI_COMM_WORLD);          // one GPU per rank
///     layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, layout::mpi::nccl_transport(nccl),
///                                             stream);
///     for (int step = 0; ...; ++step) {
///         find_destinations<<<grid, block, 0, stream>>>(particles.view(), dest.data());
///         plan.migrate(particles, dest);            // dest: device ints, -1 drops an element
///         // or, with the destination in a field of the element itself:
///         plan.migrate_by<&Particle::rank>(particles);
///     }
///
/// Elements arrive ordered by source rank, then source index, self included: the same result every
/// run and for every layout (a stable radix sort by destination on the GPU). Each migration: a
/// kernel classifies and counts the destinations, CUB sorts the positions by destination (one pass
/// up to 254 ranks), the counts come back to the host (the migration's one host wait), one
/// MPI_Allreduce agrees on the outcome and carries every rank's counts (with neighbours named at
/// construction: the agreement, counts point to point with them, and a second small reduction on
/// the room for what arrives), a kernel packs the leaving elements into one message per peer, the
/// transport moves the messages while the elements that stay move from the old block into the new
/// one (on a second stream forked from and joined back into the plan's, so the two overlap), and a
/// kernel writes the elements that arrived after them; the new block then becomes the container's
/// (double buffering, as a hand-written step does). Everything is ordered on the plan's stream,
/// which must be the container's; scratch and messages stay in the plan's workspace from call to
/// call, so a plan reused with sizes that fit allocates nothing.
///
/// Every leaf travels (a migration in place needs them all); the wire format is that of
/// layout::mpi::migration_plan (one column per leaf, per message), except through NCCL into AoS:
/// whole elements, received straight into the new block, with no pass to unpack them; there
/// every rank's container must be AoS, or none (else every rank throws); through IPC, the leaves
/// are read and written where they are (<layout/mpi/ipc.hpp>). The transport is a type:
/// nccl_transport (<layout/mpi/nccl.hpp>), ipc_transport (<layout/mpi/ipc.hpp>), staged_transport
/// or cuda_aware_transport (<layout/mpi/device_transport.hpp>).
///
/// Errors: a destination out of range (with neighbours: not one of them), a destination count
/// that differs from the container's size, ranks running different plans or element types, or a
/// failure while preparing (a device error, a buffer that cannot grow): every rank throws
/// layout::mpi::error (the rank whose own preparation threw rethrows its exception) before any
/// element moves, and every container is as it was. At most 2^32 - 1 elements per rank and
/// migration.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/device_migration.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../cuda/error.hpp"
#include "../cuda/memory.hpp"
#include "../cuda/workspace.hpp"
#include "../extension.hpp"
#include "../path.hpp"
#include "../policies.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "detail/agreement.hpp"
#include "detail/byte_buffer.hpp"
#include "detail/device_exchange.hpp"
#include "device_transport.hpp"
#include "error.hpp"
#include "fields.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::mpi {

template <device_transport Transport>
class device_migration_plan {
public:
    /// Collective over comm. The plan runs on `stream` (the containers' stream); its scratch and
    /// messages come from `resource` (device memory), the containers' new blocks from theirs.
    device_migration_plan(MPI_Comm comm, Transport transport, layout::stream_ref stream = {},
                          resource_ref resource = layout::cuda::device_memory::default_resource())
        : x_(comm, std::move(transport), stream, resource, function) {}
    /// Collective over comm: elements go only to these ranks (and this one), whose counts alone
    /// travel at each migration, point to point, where the plan without them reduces every
    /// rank's over the communicator; a second small reduction then agrees that every rank has
    /// room for what arrives (each rank knows only its own arrivals). Lists must be symmetric (b
    /// names a where a names b): checked here, every rank throws otherwise.
    device_migration_plan(MPI_Comm comm, Transport transport, std::span<const int> neighbours,
                          layout::stream_ref stream = {},
                          resource_ref resource = layout::cuda::device_memory::default_resource())
        : x_(comm, std::move(transport), stream, resource, function, neighbours, true) {}
    device_migration_plan(const device_migration_plan&) = delete;
    device_migration_plan& operator=(const device_migration_plan&) = delete;

    /// Collective. c: a container in device memory on the plan's stream; destinations: c.size()
    /// ranks in device memory, -1 drops an element. c ends up holding the elements sent here,
    /// ordered by source rank then source index.
    template <class C>
    void migrate(C& c, std::span<const int> destinations) {
        run(c, destinations.size(), detail::destination_array{destinations.data()});
    }
    /// The destinations in a device container of ints (layout::cuda::aos_vector<int>).
    template <class C, class M>
    void migrate(C& c, const layout::vector<int, policy::aos, M>& destinations) {
        static_assert(M::device_accessible, "layout: mpi::device_migration_plan: the "
                                            "destinations must be in device memory");
        migrate(c, std::span<const int>(destinations.data(), destinations.size()));
    }

    /// Collective. The destination of each element is its own field Key (a key as
    /// view.select<...>() takes it: a member pointer, a field index, or layout::path<...> to a
    /// nested member), an integer leaf read on the GPU in whatever layout c has.
    template <auto Key, class C>
    void migrate_by(C& c) {
        using T = typename C::value_type;
        using span = layout::detail::key_leaves<T, Key>;
        static_assert(span::count == 1,
                      "layout: mpi::device_migration_plan::migrate_by<Key>: the destination names "
                      "a struct or array; name one integer leaf (layout::path<...> into it)");
        constexpr std::size_t leaf = span::first;
        static_assert(std::is_integral_v<leaf_t<T, leaf>>,
                      "layout: mpi::device_migration_plan::migrate_by<Key>: the destination field "
                      "must be an integer (a rank; -1 drops the element)");
        using V = layout::view<const T, typename C::layout_type, typename C::memory_type>;
        run(c, c.size(), detail::destination_leaf<leaf, V>{V(c.view())});
    }
    /// Deprecated: migrate_by<Key>(c) (a plan's migrate<Keys...> names the fields that travel;
    /// here it named the destination). Key, Rest...: a path, as layout::path<Key, Rest...>.
    template <auto Key, auto... Rest, class C>
    [[deprecated("layout::mpi::device_migration_plan::migrate<Key>(c) is deprecated: the "
                 "destination field is migrate_by<Key>(c) (a nested one: "
                 "migrate_by<layout::path<...>>(c))")]] void
    migrate(C& c) {
        // Through a constant: as a template argument, nvcc's front end writes layout::path<...>
        // back unqualified, and the host compiler then finds layout::mpi::path.
        constexpr auto key = layout::path<Key, Rest...>;
        migrate_by<key>(c);
    }

    /// The last migration: elements sent to other ranks, received from them, kept here.
    std::size_t send_count() const noexcept { return sent_; }
    std::size_t receive_count() const noexcept { return received_; }
    std::size_t destination_size() const noexcept { return kept_ + received_; }
    /// Blocks allocated so far (scratch, messages, new element blocks, staging): constant once
    /// the sizes fit.
    std::size_t allocations() const noexcept { return x_.allocations(); }
    layout::stream_ref stream() const noexcept { return x_.stream(); }
    MPI_Comm communicator() const noexcept { return x_.communicator(); }
    Transport& transport() noexcept { return x_.transport(); }

private:
    static constexpr const char* function = "layout::mpi::device_migration_plan::migrate";

    template <class C, class Destinations>
    void run(C& c, std::size_t n, Destinations dest) {
        using T = typename C::value_type;
        using L = typename C::layout_type;
        using M = typename C::memory_type;
        static_assert(M::device_accessible && !M::host_accessible,
                      "layout: mpi::device_migration_plan moves containers in device memory "
                      "(layout::cuda::soa_vector<T>, ...); host containers: mpi::migration_plan");
        using S = detail::every_leaf;
        using W = detail::wire_format<T, S>;
        layout::cuda::workspace& ws = x_.workspace();
        x_.template use_mode<T, S, L>();
        const std::size_t wire = x_.template wire_bytes<T, S>();
        const std::int64_t signature = detail::with_mode(W::signature, x_.mode());

        // Local: the destinations classified, counted and sorted on the GPU, the counts read
        // back once; what only this rank's counts decide grows now, before the agreement.
        detail::local_outcome local;
        const std::uint32_t* order = nullptr;
        local.run([&] {
            ws.check_stream(c.stream(), function);
            if (n != c.size()) {
                local.problem = "layout::mpi::device_migration_plan: " + std::to_string(n) +
                                " destinations for a container of " + std::to_string(c.size()) +
                                " elements";
                return;
            }
            if (n > std::numeric_limits<std::uint32_t>::max() - 1) {
                local.problem = "layout::mpi::device_migration_plan: more than 2^32 - 2 "
                                "elements on one rank";
                return;
            }
            order = x_.sort_by_bucket(n, dest);
            if (x_.counts().any_bad()) {
                local.problem = "layout::mpi::device_migration_plan: the destination of element " +
                                std::to_string(x_.counts().first_bad_item()) + " is " +
                                std::to_string(x_.counts().first_bad_destination()) +
                                ", out of range for a communicator of " +
                                std::to_string(x_.ranks()) + " ranks (-1 drops an element)";
                return;
            }
            if (const int r = x_.counts().outside_neighbours(); r >= 0) {
                local.problem = "layout::mpi::device_migration_plan: an element's destination is "
                                "rank " +
                                std::to_string(r) + ", which is not one of this rank's neighbours";
                return;
            }
            x_.reserve_outgoing(wire);
        });
        x_.agree_counts(detail::operation::device_migrate, local, signature, ws.element_room(c));
        const std::size_t total = x_.counts().arriving(x_.me());
        // Room on every rank, or the ranks grow and agree again (nothing has moved yet).
        if (x_.must_make_room(wire)) {
            detail::local_outcome grown;
            grown.run([&] {
                ws.element_view(c, total);
                ws.bytes(layout::cuda::workspace::slot::incoming, x_.incoming_bytes(x_.me(), wire));
            });
            detail::agree(x_.communicator(), x_.rank(), detail::operation::device_migrate, grown,
                          x_.id(), 0, signature);
        }
        x_.template lay_out<T, S>(0);
        kept_ = x_.counts().count(x_.me(), x_.me());
        received_ = total - kept_;
        sent_ = 0;
        for (std::size_t r = 0; r < x_.ranks(); ++r)
            if (r != x_.me()) sent_ += x_.counts().count(x_.me(), r);

        const auto dst = ws.element_view(c, total); // fits: nothing allocated here
        x_.template move<T, S>(dst, layout::view<const T, L, M>(c.view()), order);
        ws.adopt_elements(c, total);
    }

    detail::device_exchange<Transport> x_;
    std::size_t sent_ = 0, received_ = 0, kept_ = 0;
};

} // namespace layout::mpi
