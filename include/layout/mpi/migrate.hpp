/// \file mpi/migrate.hpp
/// layout::mpi::migration_plan: moves elements between ranks, each to the rank it names.
///
///     // rank 0 holds {a, b, c}, destinations {1, 0, -1};  rank 1 holds {d, e}, destinations {0, 0}
///     layout::mpi::migration_plan plan(MPI_COMM_WORLD, destinations);   // collective
///     plan.migrate(particles);      // rank 0: {b, d, e}   rank 1: {a}   (c is dropped)
///
/// Elements arrive ordered by source rank, then source index, self included: the same result
/// every run and for every layout. A plan is reusable: update(destinations) rebuilds the counts
/// and keeps every buffer, which grows and is never reallocated while sizes fit. Each side may
/// use any layout (layout::vector<T, aos / soa / aosoa<N>>), and a selection of fields may travel
/// alone (plan.migrate<&P::x>(src, dst), keys as view.select<...>() takes them). start/finish split a migration so
/// that computation runs while the messages travel:
///
///     plan.start(particles);        // packs (particles may change from here on), sends
///     compute_something_else();
///     plan.finish(particles);       // waits, resizes to destination_size(), unpacks
///
/// With neighbours (plan(comm, destinations, neighbours)), counts travel only between neighbours
/// and elements may only go to them or stay; the lists must be symmetric (checked at
/// construction). Without, one MPI_Alltoall of counts per update.
///
/// Errors: a destination out of range (or not a neighbour), a container whose size differs from
/// the plan's, ranks running different plans or fields: every rank throws layout::mpi::error
/// before any element moves (see error.hpp), and the plan and the containers are as they were.
/// The same for an exception on one rank while it prepares (a buffer or the destination that
/// cannot grow: std::bad_alloc): that rank rethrows it, the others throw layout::mpi::error
/// naming it. Only finish(dst) with a container that must grow grows it after the messages
/// went (see finish).
#pragma once

#include "../extension.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "detail/exchange.hpp"
#include "detail/pattern.hpp"
#include "error.hpp"
#include "fields.hpp"

#include <mpi.h>

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

namespace layout::mpi {

class migration_plan {
public:
    /// Collective over comm. destinations[i] is the rank element i goes to (-1 drops it).
    template <layout::extension::index_range R>
    migration_plan(MPI_Comm comm, R&& destinations) : pattern_(comm, {}, false) {
        update(destinations);
    }

    /// Collective over comm; counts travel only between this rank and neighbours.
    template <layout::extension::index_range R, layout::extension::index_range N>
    migration_plan(MPI_Comm comm, R&& destinations, N&& neighbours)
        : pattern_(comm, as_ints(neighbours), true) {
        update(destinations);
    }

    /// Collective: a new set of destinations for the same communicator and neighbours, one per
    /// element of the container the next migration takes. Buffers are kept.
    template <layout::extension::index_range R>
    void update(R&& destinations) {
        const auto d = layout::extension::index_span(destinations);
        static_assert(std::is_signed_v<typename decltype(d)::value_type>,
                      "layout: mpi::migration_plan: destinations are signed ranks (-1 drops an "
                      "element); pass a range of int");
        pattern_.build(
            d.size(), [d](std::size_t k) { return d[k]; }, [](std::size_t k) { return k; },
            d.size(), true, "destination of element");
    }

    /// Elements the next migration takes from this rank (the destinations' count).
    std::size_t source_size() const noexcept { return pattern_.source_size(); }
    /// Elements this rank holds after the migration.
    std::size_t destination_size() const noexcept { return pattern_.recv_total(); }
    /// Elements that leave this rank for another one, and that arrive from another one.
    std::size_t send_count() const noexcept { return pattern_.send_total() - self_count(true); }
    std::size_t receive_count() const noexcept { return pattern_.recv_total() - self_count(false); }
    /// Buffer allocations so far (a plan reused with sizes that fit allocates nothing).
    std::size_t buffer_allocations() const noexcept { return pattern_.allocations(); }
    MPI_Comm communicator() const noexcept { return pattern_.communicator(); }

    /// Collective. Packs src's travelling fields and sends them; src may change afterwards.
    template <class S = detail::every_leaf, class Src>
        requires layout::extension::viewable<Src>
    void start(const Src& src) {
        start_with<S>(src, {});
    }

    /// Waits and unpacks. A container is resized to destination_size() (leaves that do not
    /// travel keep what dst held at each index, value-initialized where it grew); a view must
    /// have that size already. Local: should growing the container fail (reserve
    /// destination_size() before start, or use migrate(src, dst), which does, to rule that out),
    /// the messages have all arrived, so no rank waits for this one, and this rank throws.
    template <class S = detail::every_leaf, class Dst>
        requires layout::extension::viewable<Dst>
    void finish(Dst&& dst) {
        using T = typename layout::extension::view_of_t<Dst>::value_type;
        if (auto problem = detail::check_finish<S, T>(pattern_, detail::operation::migrate);
            !problem.empty())
            throw error(problem, pattern_.rank());
        if constexpr (layout::extension::is_vector_v<std::remove_cvref_t<Dst>>) {
            if (dst.capacity() < pattern_.recv_total()) {
                pattern_.end_exchange(); // the messages first: growing may throw
                dst.reserve(pattern_.recv_total());
            }
            dst.resize(pattern_.recv_total());
        } else if (dst.size() != pattern_.recv_total()) {
            pattern_.end_exchange();
            throw error("layout::mpi::migration_plan::finish: the view holds " +
                            std::to_string(dst.size()) + " elements, the migration brings " +
                            std::to_string(pattern_.recv_total()) +
                            "; the received elements were discarded",
                        pattern_.rank());
        }
        detail::finish_exchange<S, detail::memory_of_t<Dst>>(pattern_, detail::direction::forward,
                                                             layout::extension::as_view(dst), 0);
    }

    /// start then finish; src and dst may be the same container. A dst container grows before
    /// the agreement, so that every rank goes on or every rank throws. Device containers: the
    /// exchange runs on src's stream (or set_stream's); a dst on another stream must wait for it.
    template <class S = detail::every_leaf, class Src, class Dst>
    void migrate(const Src& src, Dst&& dst) {
        detail::local_outcome local;
        if constexpr (layout::extension::is_vector_v<std::remove_cvref_t<Dst>>)
            local.run([&] { dst.reserve(pattern_.recv_total()); });
        start_with<S>(src, std::move(local));
        finish<S>(dst);
    }
    /// In place: the container ends up holding the elements that arrive here. In host memory,
    /// the elements that stay move inside the container rather than through the send buffer.
    template <class S = detail::every_leaf, class C>
    void migrate(C& c) {
        if constexpr (layout::extension::is_vector_v<C> && C::memory_type::host_accessible) {
            using T = typename C::value_type;
            using L = typename C::layout_type;
            const std::size_t total = pattern_.recv_total();
            detail::local_outcome local;
            local.run([&] {
                local.problem = size_problem(c.size());
                if (local.problem.empty()) c.reserve(total); // then growing allocates nothing
            });
            detail::start_exchange<S, typename C::memory_type>(
                pattern_, detail::operation::migrate, detail::direction::forward,
                layout::view<const T, L, typename C::memory_type>(c.view()), 0, std::move(local),
                true);
            pattern_.finished();
            if (total > c.size()) c.resize(total);
            detail::transport<typename C::memory_type>::template receive<S>(
                pattern_, detail::direction::forward, c.view(), 0, true);
            c.resize(total);
        } else {
            start<S>(c);
            finish<S>(c);
        }
    }

    /// The same, with the travelling fields named as view.select<Keys...>() names them (member
    /// pointers, field indices, layout::path<...>): plan.migrate<&P::pos, &P::id>(c).
    template <auto Key, auto... Keys, class Src>
        requires layout::extension::viewable<Src>
    void start(const Src& src) {
        start<detail::keys<Key, Keys...>>(src);
    }
    template <auto Key, auto... Keys, class Dst>
        requires layout::extension::viewable<Dst>
    void finish(Dst&& dst) {
        finish<detail::keys<Key, Keys...>>(dst);
    }
    template <auto Key, auto... Keys, class Src, class Dst>
    void migrate(const Src& src, Dst&& dst) {
        migrate<detail::keys<Key, Keys...>>(src, dst);
    }
    template <auto Key, auto... Keys, class C>
    void migrate(C& c) {
        migrate<detail::keys<Key, Keys...>>(c);
    }

    /// The shared pattern (for <layout/mpi/cuda.hpp> and the tests).
    detail::pattern& pattern() noexcept { return pattern_; }

private:
    std::string size_problem(std::size_t size) const {
        if (size == pattern_.source_size()) return {};
        return "layout::mpi::migration_plan: the container holds " + std::to_string(size) +
               " elements but the plan was built for " + std::to_string(pattern_.source_size()) +
               " (resized since update? rebuild the plan)";
    }

    template <class S, class Src>
    void start_with(const Src& src, detail::local_outcome local) {
        const auto v = layout::extension::as_view(src);
        using T = typename decltype(v)::value_type;
        local.run([&] { local.problem = size_problem(v.size()); });
        detail::choose_stream<detail::memory_of_t<Src>>(pattern_, src);
        detail::start_exchange<S, detail::memory_of_t<Src>>(
            pattern_, detail::operation::migrate, detail::direction::forward,
            layout::view<const T, typename decltype(v)::layout_type,
                         typename decltype(v)::memory_type>(v),
            0, std::move(local));
    }

    template <class N>
    static std::span<const int> as_ints(N&& neighbours) {
        const auto n = layout::extension::index_span(neighbours);
        static_assert(std::is_same_v<typename decltype(n)::value_type, int>,
                      "layout: mpi: neighbours are ranks: pass a range of int");
        return n;
    }
    std::size_t self_count(bool sent) const noexcept {
        for (const auto& s : sent ? pattern_.out_segments(detail::direction::forward)
                                  : pattern_.in_segments(detail::direction::forward))
            if (s.rank == pattern_.rank()) return s.count;
        return 0;
    }

    detail::pattern pattern_;
};

} // namespace layout::mpi
