/// \file mpi/halo.hpp
/// layout::mpi::halo_plan: copies of owned elements (ghosts) on other ranks, appended after the
/// owned elements; gather refreshes them, scatter_add sends contributions back to the owners.
///
///     // rank 0 owns {a, b}, exports element 1 to rank 1;  rank 1 owns {c}, exports 0 to rank 0
///     layout::mpi::halo_plan halo(MPI_COMM_WORLD, owned, export_indices, export_ranks);
///     halo.gather(particles);       // rank 0: {a, b, c'}   rank 1: {c, b'}   (ghosts last)
///     halo.gather<&P::pos>(particles);             // only positions travel
///     halo.scatter_add<&P::force>(particles);      // b.force += b'.force ...
///
/// Ghosts are ordered by owner rank, then by the owner's export order; an element may be exported
/// to several ranks, or several times to one rank, or to its own rank (periodic images). A
/// scatter_add adds in that same order on the owner, so sums are the same every run. The
/// container holds owned_count() elements, or owned_count() + ghost_count() after a gather (a
/// container is resized to that; a view must have that size); any other size is refused on
/// every rank before anything moves (see error.hpp). So is an exception on one rank while it
/// prepares (its buffers or the container that cannot grow: std::bad_alloc): that rank rethrows
/// it, the others throw layout::mpi::error naming it, and nothing has changed.
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

class halo_plan {
public:
    /// Collective over comm. Export k sends owned element indices[k] to rank ranks[k].
    template <layout::extension::index_range I, layout::extension::index_range R>
    halo_plan(MPI_Comm comm, std::size_t owned_count, I&& indices, R&& ranks)
        : pattern_(comm, {}, false) {
        update(owned_count, indices, ranks);
    }
    /// Collective; counts travel only between this rank and its neighbours (symmetric lists).
    template <layout::extension::index_range I, layout::extension::index_range R,
              layout::extension::index_range N>
    halo_plan(MPI_Comm comm, std::size_t owned_count, I&& indices, R&& ranks, N&& neighbours)
        : pattern_(comm, layout::extension::index_span(neighbours), true) {
        static_assert(std::is_same_v<std::ranges::range_value_t<N>, int>,
                      "layout: mpi: neighbours are ranks: pass a range of int");
        update(owned_count, indices, ranks);
    }

    /// Collective: new exports (the same communicator and neighbours; buffers kept).
    template <layout::extension::index_range I, layout::extension::index_range R>
    void update(std::size_t owned_count, I&& indices, R&& ranks) {
        const auto idx = layout::extension::index_span(indices);
        const auto rk = layout::extension::index_span(ranks);
        detail::local_outcome local;
        local.run([&] {
            if (idx.size() != rk.size())
                local.problem = "layout::mpi::halo_plan: " + std::to_string(idx.size()) +
                                " export indices but " + std::to_string(rk.size()) +
                                " export ranks";
        });
        const std::size_t n = idx.size() < rk.size() ? idx.size() : rk.size();
        pattern_.build(
            n, [rk](std::size_t k) { return rk[k]; }, [idx](std::size_t k) { return idx[k]; },
            owned_count, false, "export", std::move(local));
        owned_ = owned_count;
    }

    std::size_t owned_count() const noexcept { return owned_; }
    std::size_t ghost_count() const noexcept { return pattern_.recv_total(); }
    std::size_t export_count() const noexcept { return pattern_.send_total(); }
    std::size_t buffer_allocations() const noexcept { return pattern_.allocations(); }
    MPI_Comm communicator() const noexcept { return pattern_.communicator(); }

    // ---- gather: owners -> ghosts --------------------------------------------------------------

    /// Collective. Resizes a container to owned + ghosts, packs the exported elements' fields and
    /// sends them. The owned elements may change afterwards; the ghosts may not be read until
    /// finish_gather.
    template <class S = detail::every_leaf, class C>
        requires layout::extension::viewable<C>
    void start_gather(C&& c) {
        constexpr bool container = layout::extension::is_vector_v<std::remove_cvref_t<C>>;
        // A view cannot grow: it must already hold the ghosts' places. A container grows after
        // the agreement, into room reserved before it.
        detail::local_outcome local;
        local.run([&] {
            local.problem = check_size(c.size(), container, "gather");
            if constexpr (container)
                if (local.problem.empty()) c.reserve(owned_ + ghost_count());
        });
        detail::choose_stream<detail::memory_of_t<C>>(pattern_, c);
        const auto v = layout::extension::as_view(c);
        using V = decltype(v);
        detail::start_exchange<S, detail::memory_of_t<C>>(
            pattern_, detail::operation::halo_gather, detail::direction::forward,
            layout::view<const typename V::value_type, typename V::layout_type,
                         typename V::memory_type>(v),
            0, std::move(local));
        if constexpr (container) c.resize(owned_ + ghost_count());
    }
    /// Waits and writes the ghosts' fields, at [owned_count(), owned_count() + ghost_count()).
    template <class S = detail::every_leaf, class C>
        requires layout::extension::viewable<C>
    void finish_gather(C&& c) {
        finish<S>(c, detail::operation::halo_gather, detail::direction::forward);
    }
    template <class S = detail::every_leaf, class C>
    void gather(C&& c) {
        start_gather<S>(c);
        finish_gather<S>(c);
    }

    // ---- scatter_add: ghosts -> owners ---------------------------------------------------------

    /// Collective. Packs the ghosts' fields and sends them to their owners; the ghosts may
    /// change afterwards. The container must hold owned + ghosts elements.
    template <class S = detail::every_leaf, class C>
        requires layout::extension::viewable<C>
    void start_scatter_add(C&& c) {
        detail::local_outcome local;
        local.run([&] { local.problem = check_size(c.size(), false, "scatter_add"); });
        detail::choose_stream<detail::memory_of_t<C>>(pattern_, c);
        const auto v = layout::extension::as_view(c);
        using V = decltype(v);
        detail::start_exchange<S, detail::memory_of_t<C>>(
            pattern_, detail::operation::halo_scatter_add, detail::direction::reverse,
            layout::view<const typename V::value_type, typename V::layout_type,
                         typename V::memory_type>(v),
            owned_, std::move(local));
    }
    /// Waits and adds each ghost's fields to its owned element, in ghost order.
    template <class S = detail::every_leaf, class C>
        requires layout::extension::viewable<C>
    void finish_scatter_add(C&& c) {
        finish<S>(c, detail::operation::halo_scatter_add, detail::direction::reverse);
    }
    template <class S = detail::every_leaf, class C>
    void scatter_add(C&& c) {
        start_scatter_add<S>(c);
        finish_scatter_add<S>(c);
    }

    // ---- the same, with the fields named by the core's keys -------------------------------------

    /// The travelling fields named as view.select<Keys...>() names them (member pointers, field
    /// indices, layout::path<...>): halo.gather<&P::pos>(c), halo.scatter_add<&P::force>(c).
    template <auto Key, auto... Keys, class C>
        requires layout::extension::viewable<C>
    void start_gather(C&& c) {
        start_gather<detail::keys<Key, Keys...>>(c);
    }
    template <auto Key, auto... Keys, class C>
        requires layout::extension::viewable<C>
    void finish_gather(C&& c) {
        finish_gather<detail::keys<Key, Keys...>>(c);
    }
    template <auto Key, auto... Keys, class C>
    void gather(C&& c) {
        gather<detail::keys<Key, Keys...>>(c);
    }
    template <auto Key, auto... Keys, class C>
        requires layout::extension::viewable<C>
    void start_scatter_add(C&& c) {
        start_scatter_add<detail::keys<Key, Keys...>>(c);
    }
    template <auto Key, auto... Keys, class C>
        requires layout::extension::viewable<C>
    void finish_scatter_add(C&& c) {
        finish_scatter_add<detail::keys<Key, Keys...>>(c);
    }
    template <auto Key, auto... Keys, class C>
    void scatter_add(C&& c) {
        scatter_add<detail::keys<Key, Keys...>>(c);
    }

    detail::pattern& pattern() noexcept { return pattern_; }

private:
    std::string check_size(std::size_t size, bool owned_allowed, const char* what) const {
        const std::size_t full = owned_ + ghost_count();
        if (size == full || (owned_allowed && size == owned_)) return {};
        return "layout::mpi::halo_plan::" + std::string(what) + ": the container holds " +
               std::to_string(size) + " elements; the plan expects " +
               (owned_allowed ? std::to_string(owned_) + " (owned) or " : std::string()) +
               std::to_string(full) + " (owned + ghosts) (resized since update? rebuild the plan)";
    }

    template <class S, class C>
    void finish(C& c, detail::operation op, detail::direction d) {
        using T = typename layout::extension::view_of_t<C>::value_type;
        if (auto problem = detail::check_finish<S, T>(pattern_, op); !problem.empty())
            throw error(problem, pattern_.rank());
        if (c.size() != owned_ + ghost_count()) {
            pattern_.end_exchange(); // the exchange is over: the plan stays usable
            throw error("layout::mpi::halo_plan: the container was resized between start and "
                        "finish; the received elements were discarded",
                        pattern_.rank());
        }
        detail::finish_exchange<S, detail::memory_of_t<C>>(
            pattern_, d, layout::extension::as_view(c),
            d == detail::direction::forward ? owned_ : 0);
    }

    detail::pattern pattern_;
    std::size_t owned_ = 0;
};

} // namespace layout::mpi
