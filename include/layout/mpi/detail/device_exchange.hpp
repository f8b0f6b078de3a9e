/// \file mpi/detail/device_exchange.hpp
/// What the device-planned plans (device_migration.hpp, device_halo.hpp) share: device_exchange,
/// which holds a plan's state and runs its steps (who sends how many to whom:
/// device_counts.hpp; the kernels: device_exchange_kernels.hpp; how messages arrive:
/// receive_mode.hpp):
///
///     sort_by_bucket(n, dest)     kernel: bucket and count per rank; CUB: stable sort by bucket;
///                                 the counts read back (the one host wait)
///     agree_counts(...)           one MPI_Allreduce: the agreement, each rank's room and the
///                                 count matrix (row s: what rank s sends to each rank); with
///                                 neighbours, the agreement, then counts point to point
///     lay_out<T, S>(base)         the messages (one per peer, rank order, 16-byte padded) and
///                                 the pieces: what each kernel thread reads and writes
///     move<T, S>(dst, src, order) pack, transport, the elements that stay (on a forked stream,
///                                 while the messages travel), the arrivals; through a
///                                 transport that reads and writes elements where they are
///                                 (exchange_gathered: IPC), whole AoS elements and the leaves'
///                                 columns are neither packed nor unpacked
///     lay_out_reverse, send_back  a halo's reverse (scatter_add): the ghosts back to their
///                                 owners, packed; the owners add them (device_halo.hpp)
///
/// The order (element positions grouped by destination rank, in source order) comes from the
/// sort for a migration, or from the ghost list for a halo.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/mpi/detail/device_exchange.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../cuda/error.hpp"
#include "../../cuda/memory.hpp"
#include "../../cuda/workspace.hpp"
#include "../../extension.hpp"
#include "../../memory_resource.hpp"
#include "../../view.hpp"
#include "../device_transport.hpp"
#include "../error.hpp"
#include "../fields.hpp"
#include "agreement.hpp"
#include "device_counts.hpp"
#include "device_exchange_kernels.hpp"
#include "receive_mode.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::mpi::detail {

/// A device-planned plan's state and steps (see the file comment).
template <device_transport Transport>
class device_exchange {
public:
    using slot = layout::cuda::workspace::slot;
    static constexpr unsigned block = layout::extension::cuda::block_size;

    /// Collective over comm: the plan's id, agreed. With has_neighbours, the counts travel
    /// only between this rank and its neighbours (symmetric lists, checked here; peer_ranks.hpp),
    /// and only this rank's row and column of the count matrix are known (a halo's needs).
    device_exchange(MPI_Comm comm, Transport transport, layout::stream_ref stream,
                    resource_ref resource, const char* function,
                    std::span<const int> neighbours = {}, bool has_neighbours = false)
        : comm_(comm), transport_(std::move(transport)), ws_(stream, resource),
          function_(function) {
        check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
        local_outcome local;
        local.run([&] {
            if constexpr (requires { transport_.check_ranks(rank_, size_); })
                transport_.check_ranks(rank_, size_);
            local.problem = counts_.set(rank_, size_, neighbours, has_neighbours);
            // Everything kept on the host, so that nothing there grows after an agreement.
            out_.reserve(ranks());
            in_.reserve(ranks());
            gathered_out_.reserve(ranks());
            gathered_in_.reserve(ranks());
            pieces_.reserve(2 * ranks());
            runs_.reserve(ranks());
            ws_.side(); // the stream the elements that stay move on, created before any exchange
        });
        id_ = agree(comm_, rank_, operation::construct, local, next_plan_id(), 0,
                    has_neighbours ? 1 : 0, /*check_plan=*/false);
        next_plan_id() = id_ + 1;
        counts_.connect(comm_);
    }
    device_exchange(const device_exchange&) = delete;
    device_exchange& operator=(const device_exchange&) = delete;

    std::size_t ranks() const noexcept { return static_cast<std::size_t>(size_); }
    std::size_t me() const noexcept { return static_cast<std::size_t>(rank_); }
    int rank() const noexcept { return rank_; }
    std::int64_t id() const noexcept { return id_; }
    MPI_Comm communicator() const noexcept { return comm_; }
    Transport& transport() noexcept { return transport_; }
    layout::cuda::workspace& workspace() noexcept { return ws_; }
    cudaStream_t stream() const noexcept { return layout::cuda::native(ws_.stream()); }
    std::size_t allocations() const noexcept {
        return ws_.allocations() + counts_.allocations() + transport_.allocations();
    }

    // ---- counting (device_counts.hpp) -----------------------------------------------------------

    /// Who sends how many to whom: after sort_by_bucket, this rank's sorted counts; after
    /// agree_counts, the count matrix (or this rank's row and column, with neighbours).
    const device_counts& counts() const noexcept { return counts_; }
    /// Sorts positions [0, n) by destination (device_counts::sort_by_bucket) in the plan's
    /// workspace; returns the order.
    template <class Destinations>
    const std::uint32_t* sort_by_bucket(std::size_t n, Destinations dest) {
        return counts_.sort_by_bucket(ws_, n, dest, function_);
    }
    /// Grows the outgoing slot for this rank's sorted counts at bytes_per_element: local, before
    /// the agreement (what only this rank's counts decide). None where the transport gathers.
    void reserve_outgoing(std::size_t bytes_per_element) {
        if (gathers()) return;
        std::size_t bytes = 0;
        for (std::size_t r = 0; r < ranks(); ++r)
            if (r != me()) bytes += message_bytes(bytes_per_element, counts_.sorted_count(r));
        ws_.bytes(slot::outgoing, bytes);
    }
    /// Collective: the plan's agreement with the counts (device_counts::agree), this rank's
    /// room for elements (element_room) and for incoming bytes (the workspace's) in it.
    void agree_counts(operation op, const local_outcome& local, std::int64_t signature,
                      std::size_t element_room) {
        counts_.agree(comm_, op, local, id_, version_, signature, element_room,
                      ws_.capacity(slot::incoming));
    }
    /// Bytes of the messages rank r receives into the incoming buffer, at bytes_per_element
    /// (none where they land in the destination itself).
    std::size_t incoming_bytes(std::size_t r, std::size_t bytes_per_element) const noexcept {
        if (mode_ != receive_mode::packed) return 0;
        std::size_t bytes = 0;
        for (std::size_t s = 0; s < ranks(); ++s)
            if (s != r) bytes += message_bytes(bytes_per_element, counts_.count(s, r));
        return bytes;
    }
    /// Whether the ranks must make room and agree again before anything moves: some rank lacks
    /// the room that agree_counts carried for what arrives there, or, with neighbours (each rank
    /// knows only what arrives at itself), always.
    bool must_make_room(std::size_t bytes_per_element) const {
        return !counts_.every_rank_has_room(
            [&](std::size_t r) { return incoming_bytes(r, bytes_per_element); });
    }
    /// The plan's version: a halo update makes a new one, so that a rank whose update failed or
    /// was skipped meets the others' exchanges as a mismatched plan.
    void next_version() noexcept { ++version_; }
    std::int64_t version() const noexcept { return version_; }

    /// How an exchange of wire_format<T, S> into a container of layout L arrives
    /// (receive_mode_of); set by the plans before anything is reserved or agreed.
    template <class T, class S, class L>
    static constexpr receive_mode mode_for = receive_mode_of<Transport, T, S, L>();
    template <class T, class S, class L>
    void use_mode() noexcept {
        mode_ = mode_for<T, S, L>;
    }
    receive_mode mode() const noexcept { return mode_; }
    /// Whether the transport reads and writes this exchange's elements where they are (no send
    /// or receive buffer, no pack or unpack kernel).
    bool gathers() const noexcept { return gathers_v<Transport> && mode_ != receive_mode::packed; }
    /// Bytes a message carries per element: whole elements in receive_mode::elements, else the
    /// travelling leaves' columns.
    template <class T, class S>
    std::size_t wire_bytes() const noexcept {
        return mode_ == receive_mode::elements ? sizeof(T) : wire_format<T, S>::bytes_per_element;
    }

    // ---- moving ---------------------------------------------------------------------------------

    /// The messages and pieces of an exchange of wire_format<T, S> after agree_counts: item k of
    /// the order (grouped by destination, counts().sorted_first(r) where r's begin) goes to its
    /// rank; what arrives from rank s (self included) lands at base + (what ranks before s send
    /// here). Gathered (gathers()), a message is its elements' positions in the order and in the
    /// destination (gathered_out_, gathered_in_). Else received in place (receive_mode::elements),
    /// a message is exactly its whole elements and its receive range is where they land in the
    /// destination block (the offsets of in_ count from the block); else it is padded to 16 bytes
    /// and lands in the incoming buffer.
    template <class T, class S>
    void lay_out(std::size_t base) {
        const std::size_t P = ranks(), per_element = wire_bytes<T, S>();
        const bool gathered = gathers(), in_place = mode_ == receive_mode::elements;
        out_.clear();
        in_.clear();
        gathered_out_.clear();
        gathered_in_.clear();
        pieces_.clear();
        std::size_t out_bytes = 0, in_bytes = 0;
        for (std::size_t r = 0; r < P; ++r) {
            const std::size_t k = counts_.count(me(), r);
            if (r == me() || k == 0) continue;
            if (gathered) {
                gathered_out_.push_back({static_cast<int>(r), counts_.sorted_first(r), k});
                continue;
            }
            const std::size_t room = message_bytes(per_element, k);
            out_.push_back({static_cast<int>(r), out_bytes, in_place ? k * per_element : room});
            out_bytes += room;
        }
        for (std::size_t s = 0, at = base; s < P; at += counts_.count(s, me()), ++s) {
            const std::size_t k = counts_.count(s, me());
            if (s == me() || k == 0) continue;
            if (gathered) {
                gathered_in_.push_back({static_cast<int>(s), at, k});
            } else if (in_place) {
                in_.push_back({static_cast<int>(s), at * per_element, k * per_element});
            } else {
                in_.push_back({static_cast<int>(s), in_bytes, message_bytes(per_element, k)});
                in_bytes += in_.back().bytes;
            }
        }
        outgoing_ =
            gathered ? nullptr : static_cast<std::byte*>(ws_.bytes(slot::outgoing, out_bytes));
        incoming_ = static_cast<std::byte*>(ws_.bytes(slot::incoming, in_bytes));
        for (std::size_t m = 0; m < out_.size(); ++m) {
            const auto r = static_cast<std::size_t>(out_[m].rank);
            pieces_.push_back({0, counts_.count(me(), r), counts_.sorted_first(r), nullptr,
                               outgoing_ + out_[m].offset, 0});
        }
        pack_pieces_ = pieces_.size();
        self_ = {};
        for (std::size_t s = 0, m = 0, at = base; s < P; at += counts_.count(s, me()), ++s) {
            const std::size_t k = counts_.count(s, me());
            if (s == me())
                self_ = {at, k, counts_.sorted_first(me()), nullptr, nullptr, 0};
            else if (k != 0 && mode_ == receive_mode::packed) // what the unpacking kernel writes
                pieces_.push_back({at, k, 0, incoming_ + in_[m++].offset, nullptr, 0});
        }
    }

    /// After lay_out<T, S>: packs the leaving elements of src (through order), moves the
    /// messages, writes the elements that stay and those that arrive into dst.
    template <class T, class S, class L, class M>
    void move(const layout::view<T, L, M>& dst, const layout::view<const T, L, M>& src,
              const std::uint32_t* order) {
        constexpr receive_mode mode = mode_for<T, S, L>;
        const cudaStream_t s = stream();
        const piece* pack = pieces_.data();
        const piece* arrivals = pack + pack_pieces_;
        const piece* end = pack + pieces_.size();
        constexpr bool queues_on_stream = requires { requires bool(Transport::queues_on_stream); };
        // A transport that reads and writes the elements where they are: nothing to pack.
        constexpr bool gathers = gathers_v<Transport> && mode != receive_mode::packed;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            if constexpr (!gathers)
                for_each_launch(pack, arrivals, [&](const pieces& t, unsigned grid) {
                    if constexpr (mode == receive_mode::elements)
                        pack_elements_kernel<T, L, M><<<grid, block, 0, s>>>(src, order, t);
                    else
                        pack_kernel<T, S, L, M, K...><<<grid, block, 0, s>>>(src, order, t);
                });
            // The elements that stay move on a second stream while the messages travel, and
            // the stream joins it again before anything else runs there. A transport that
            // queues its messages on the stream (NCCL) goes first, so that its kernel has the
            // SMs it needs before the copy takes the rest.
            const bool fork = self_.count != 0;
            layout::cuda::detail::side_stream& side = ws_.side();
            auto stay = [&](cudaStream_t on) {
                for_each_launch(&self_, &self_ + 1, [&](const pieces& t, unsigned grid) {
                    assemble_kernel<T, S, L, M, K...><<<grid, block, 0, on>>>(dst, src, order, t);
                });
            };
            if (fork) side.fork(s);
            if (fork && !queues_on_stream) stay(side.side());
            if constexpr (gathers && mode == receive_mode::elements) {
                const gathered_column column{as_bytes(src.storage().data),
                                             as_bytes(dst.storage().data), sizeof(T), 0, 0};
                transport_.exchange_gathered(std::span(&column, 1), order, gathered_out_,
                                             gathered_in_, s);
            } else if constexpr (gathers) { // columns, element_runs: the leaves where they are
                const auto columns = gathered_columns<gathered_column, wire_format<T, S>>(src, dst);
                transport_.exchange_gathered(std::span(columns), order, gathered_out_, gathered_in_,
                                             s);
            } else if constexpr (mode == receive_mode::elements) {
                // Received in place: the ranges of in_ count from dst's block.
                transport_.exchange(outgoing_, out_, as_bytes(dst.storage().data), in_, s);
            } else {
                transport_.exchange(outgoing_, out_, incoming_, in_, s);
            }
            if (fork && queues_on_stream) stay(side.side());
            if constexpr (mode == receive_mode::packed)
                for_each_launch(arrivals, end, [&](const pieces& t, unsigned grid) {
                    assemble_kernel<T, S, L, M, K...><<<grid, block, 0, s>>>(dst, src, order, t);
                });
            if (fork) side.join(s);
        }(std::make_index_sequence<wire_format<T, S>::count>{});
    }

    // ---- the reverse of a halo's gather (scatter_add) ----------------------------------------

    /// Bytes of the reverse exchange's outgoing and incoming messages at bytes_per_element: each
    /// rank sends back what it received (count(s, me) to s) and receives what it sent.
    std::pair<std::size_t, std::size_t> reverse_bytes(std::size_t bytes_per_element) const {
        std::size_t out = 0, in = 0;
        for (std::size_t r = 0; r < ranks(); ++r)
            if (r != me()) {
                out += message_bytes(bytes_per_element, counts_.count(r, me()));
                in += message_bytes(bytes_per_element, counts_.count(me(), r));
            }
        return {out, in};
    }
    /// The reverse exchange of wire_format<T, S> after a halo's counts: the ghosts received from
    /// rank s (from element base on, senders in rank order) go back to s packed, one message a
    /// peer; the contributions to this rank's exports to rank r arrive packed in the incoming
    /// buffer, and runs() says where each rank's are (its own ghosts' in the container itself).
    template <class T, class S>
    void lay_out_reverse(std::size_t base) {
        const std::size_t P = ranks(), per_element = wire_format<T, S>::bytes_per_element;
        const auto [out_bytes, in_bytes] = reverse_bytes(per_element);
        outgoing_ = static_cast<std::byte*>(ws_.bytes(slot::outgoing, out_bytes));
        incoming_ = static_cast<std::byte*>(ws_.bytes(slot::incoming, in_bytes));
        out_.clear();
        in_.clear();
        pieces_.clear();
        runs_.clear();
        std::size_t out_at = 0, in_at = 0;
        for (std::size_t s = 0, at = base; s < P; at += counts_.count(s, me()), ++s) {
            const std::size_t k = counts_.count(s, me());
            if (k == 0) continue;
            if (s == me()) {
                self_ghosts_ = at;
                continue;
            }
            out_.push_back({static_cast<int>(s), out_at, message_bytes(per_element, k)});
            pieces_.push_back({0, k, at, nullptr, outgoing_ + out_at, 0});
            out_at += out_.back().bytes;
        }
        for (std::size_t r = 0; r < P; ++r) {
            const std::size_t k = counts_.count(me(), r);
            if (k == 0) continue;
            const std::byte* message = nullptr;
            if (r != me()) {
                in_.push_back({static_cast<int>(r), in_at, message_bytes(per_element, k)});
                message = incoming_ + in_at;
                in_at += in_.back().bytes;
            }
            runs_.push_back({static_cast<std::uint32_t>(counts_.sorted_first(r)),
                             static_cast<std::uint32_t>(k), message});
        }
    }
    /// After lay_out_reverse<T, S>: packs the ghosts of src and moves the messages; the
    /// contributions are in the incoming buffer once work queued after it on the stream runs.
    template <class T, class S, class L, class M>
    void send_back(const layout::view<const T, L, M>& src) {
        const cudaStream_t s = stream();
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            for_each_launch(pieces_.data(), pieces_.data() + pieces_.size(),
                            [&](const pieces& t, unsigned grid) {
                                pack_kernel<T, S, L, M, K...>
                                    <<<grid, block, 0, s>>>(src, nullptr, t);
                            });
        }(std::make_index_sequence<wire_format<T, S>::count>{});
        transport_.exchange(outgoing_, out_, incoming_, in_, s);
    }
    /// The contributions to this rank's exports, by the rank they went to (lay_out_reverse).
    std::span<const contribution_run> runs() const noexcept { return runs_; }
    /// Where this rank's ghosts of its own elements begin in the container (lay_out_reverse).
    std::size_t self_ghosts() const noexcept { return self_ghosts_; }

private:
    template <class P>
    static auto as_bytes(P* p) noexcept {
        return reinterpret_cast<layout::extension::copy_const_t<P, std::byte>*>(p);
    }

    /// launch(table, grid) for the pieces in [first, last), at most pieces::capacity a launch.
    template <class Launch>
    void for_each_launch(const piece* first, const piece* last, Launch launch) const {
        while (first != last) {
            pieces t{};
            t.count =
                static_cast<unsigned>(std::min<std::ptrdiff_t>(pieces::capacity, last - first));
            for (unsigned k = 0; k < t.count; ++k, ++first) {
                t.p[k] = *first;
                t.p[k].thread = t.threads;
                t.threads += first->count;
            }
            launch(t, layout::extension::cuda::grid_size(t.threads, block, function_));
            layout::cuda::check_launch(function_);
        }
    }

    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    std::int64_t id_ = 0, version_ = 0;
    Transport transport_;
    layout::cuda::workspace ws_;
    const char* function_;
    device_counts counts_;
    std::vector<message_range> out_, in_;
    std::vector<gathered_message> gathered_out_, gathered_in_;
    std::vector<piece> pieces_;
    std::vector<contribution_run> runs_;
    std::size_t pack_pieces_ = 0, self_ghosts_ = 0;
    piece self_{};
    receive_mode mode_ = receive_mode::packed;
    std::byte *outgoing_ = nullptr, *incoming_ = nullptr;
};

} // namespace layout::mpi::detail
