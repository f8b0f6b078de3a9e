/// \file mpi/detail/exchange.hpp
/// Packing and unpacking messages in host memory, and the start/finish steps that migration
/// and halo plans share. Device containers go through transport<device_memory>, which
/// <layout/mpi/cuda.hpp> defines.
///
///     forward (migrate, halo gather):  out message k, element i  <-  src[order[out_k.offset + i]]
///                                      in message k, element i   ->  dst[base + in_k.offset + i]
///     reverse (halo scatter_add):      out message k, element i  <-  src[base + out_k.offset + i]
///                                      in message k, element i   +=> dst[order[in_k.offset + i]]
///
/// A message is a SoA block of its n elements' travelling leaves (see fields.hpp), so packing is
/// the library's per-leaf gather (layout::extension::copy_leaf_column, copy_leaves) from the
/// container into a SoA storage whose columns point into the message.
#pragma once

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/gather_scatter.hpp"
#include "../../extension.hpp"
#include "../../memory.hpp"
#include "../../policies.hpp"
#include "../../view.hpp"
#include "../fields.hpp"
#include "pattern.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::mpi {
namespace detail {

using layout::extension::copy_const_t;

/// The columns of a message of n elements as a SoA storage of E (T or const T): travelling
/// leaves point into the message, the others are null and never touched.
template <class E, class S>
layout::extension::storage<E, policy::soa> wire_storage(copy_const_t<E, std::byte>* base,
                                                        std::size_t n) {
    using W = wire_format<std::remove_const_t<E>, S>;
    layout::extension::storage<E, policy::soa> w{};
    for (std::size_t k = 0; k < W::count; ++k) w.columns[W::leaves[k]] = base + n * W::prefix[k];
    return w;
}

/// d[to(i)] = s[from(i)] for the travelling leaves: one leaf at a time when the random side is
/// SoA (one random stream per pass), else element by element, as layout::gather does.
template <class T, class S, bool PerLeaf, class DS, class SS, class To, class From>
void move_travelling(const DS& d, const SS& s, std::size_t n, To to, From from) {
    using W = wire_format<T, S>;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        if constexpr (PerLeaf) {
            (layout::extension::copy_leaf_column<W::leaves[K]>(d, s, n, to, from), ...);
        } else {
            for (std::size_t i = 0; i < n; ++i)
                layout::extension::copy_leaves(d.at(to(i)), s.at(from(i)),
                                               std::index_sequence<W::leaves[K]...>{});
        }
    }(std::make_index_sequence<W::count>{});
}

/// dst[first + i] = message[i] for i in [0, n), the travelling leaves. Under SoA and AoSoA a
/// leaf's run of consecutive elements is contiguous (the whole run, or up to a block's end), so
/// each run is one memcpy: 2x faster than element by element for a SoA migration.
template <class T, class S, class L, class DS, class WS>
void unpack_contiguous(const DS& d, const WS& w, std::size_t first, std::size_t n) {
    using W = wire_format<T, S>;
    constexpr std::size_t lanes = mapping<T, L>::leaf_run;
    if constexpr (lanes == 1) {
        move_travelling<T, S, false>(
            d, w, n, [first](std::size_t i) { return first + i; }, [](std::size_t i) { return i; });
    } else {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            auto leaf = [&]<std::size_t Leaf>(std::integral_constant<std::size_t, Leaf>) {
                using E = leaf_t<T, Leaf>;
                const auto* from = static_cast<const E*>(w.columns[Leaf]);
                for (std::size_t i = 0; i < n;) {
                    const std::size_t at = first + i;
                    std::size_t run = n - i;
                    if constexpr (lanes != layout::extension::whole_column) {
                        run = std::min(run, lanes - at % lanes);
                        if (run == lanes) { // a whole block's lanes: a fixed-size copy, inlined
                            std::memcpy(&d.at(at).template leaf<Leaf>(), from + i,
                                        lanes * sizeof(E));
                            i += run;
                            continue;
                        }
                    }
                    std::memcpy(&d.at(at).template leaf<Leaf>(), from + i, run * sizeof(E));
                    i += run;
                }
            };
            (leaf(std::integral_constant<std::size_t, W::leaves[K]>{}), ...);
        }(std::make_index_sequence<W::count>{});
    }
}

/// d[to(i)] += s[i] for the travelling leaves, i in order (so the sums are the same every run).
template <class T, class S, class DS, class SS, class To>
void add_travelling(const DS& d, const SS& s, std::size_t n, To to) {
    using W = wire_format<T, S>;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        static_assert((std::is_arithmetic_v<leaf_t<T, W::leaves[K]>> && ...),
                      "layout: mpi::halo_plan::scatter_add adds the travelling leaves; select only "
                      "arithmetic ones (e.g. scatter_add<&Particle::force>)");
        for (std::size_t i = 0; i < n; ++i) {
            const auto to_cursor = d.at(to(i));
            const auto from_cursor = s.at(i);
            ((to_cursor.template leaf<W::leaves[K]>() += from_cursor.template leaf<W::leaves[K]>()),
             ...);
        }
    }(std::make_index_sequence<W::count>{});
}

/// How messages reach memory of a space: host_accessible spaces here; device memory in
/// <layout/mpi/cuda.hpp>.
template <class Memory, class Enable = void>
struct transport {
    static_assert(Memory::host_accessible,
                  "layout: mpi: this container is in device memory; include "
                  "<layout/mpi/cuda.hpp> (compiled by nvcc) for device containers");

    /// Lays out and packs the messages of an exchange from src; returns the send and receive
    /// buffers for pattern::post. Local (before the agreement): src does not change.
    /// keep_self: an in-place migration whose elements that stay are moved inside the container
    /// by receive (see move_stayers), so they are not packed.
    template <class S, class T, class L, class M>
    static std::pair<const std::byte*, std::byte*> pack(pattern& p, direction d,
                                                        const view<const T, L, M>& src,
                                                        std::size_t base, bool keep_self) {
        using W = wire_format<T, S>;
        const auto [send_bytes, recv_bytes] = p.layout_messages(d, W::bytes_per_element);
        std::byte* send = p.host_send().reserve(send_bytes);
        std::byte* recv = p.host_recv().reserve(recv_bytes);
        const auto& out = p.out_segments(d);
        const auto s = src.storage();
        const std::size_t* order = p.order().data();
        for (std::size_t k = 0; k < out.size(); ++k) {
            const segment seg = out[k];
            if (keep_self && seg.rank == p.rank()) continue;
            const auto w = wire_storage<T, S>(send + p.out_byte_offset(k), seg.count);
            auto to = [](std::size_t i) { return i; };
            if (d == direction::forward)
                move_travelling<T, S, layout::extension::contiguous_columns_v<view<const T, L, M>>>(
                    w, s, seg.count, to, [=](std::size_t i) { return order[seg.offset + i]; });
            else
                move_travelling<T, S, layout::extension::contiguous_columns_v<view<const T, L, M>>>(
                    w, s, seg.count, to, [=](std::size_t i) { return base + seg.offset + i; });
        }
        return {send, recv};
    }

    /// After the agreement: MPI point-to-point between the host buffers.
    static void post(pattern& p, direction d, std::size_t bytes_per_element, const std::byte* send,
                     std::byte* recv) {
        p.post(d, bytes_per_element, send, recv);
    }

    /// Waits for the messages and unpacks them into dst.
    template <class S, class T, class L, class M>
    static void receive(pattern& p, direction d, const view<T, L, M>& dst, std::size_t base,
                        bool keep_self = false) {
        p.wait();
        const auto& in = p.in_segments(d);
        const auto t = dst.storage();
        const std::size_t* order = p.order().data();
        if (keep_self) move_stayers<T, S>(p, t);
        for (std::size_t k = 0; k < in.size(); ++k) {
            const segment seg = in[k];
            if (keep_self && seg.rank == p.rank()) continue;
            const std::byte* message =
                p.in_message(d, k, p.host_send().data(), p.host_recv().data());
            const auto w = wire_storage<const T, S>(message, seg.count);
            if (d == direction::forward)
                unpack_contiguous<T, S, L>(t, w, base + seg.offset, seg.count);
            else
                add_travelling<T, S>(t, w, seg.count,
                                     [=](std::size_t i) { return order[seg.offset + i]; });
        }
    }
};

/// An in-place migration's elements that stay on this rank, moved inside the container from
/// their old places (order[self.offset + j], increasing in j) to their new ones (r + j, where r
/// is where this rank's own segment starts among the received), before anything is unpacked
/// into the places they leave. The shift r + j - order[...] never grows with j, so the elements
/// that move up come first: they go last to first, the ones that move down first to last, and
/// neither group writes where the other still has to read. Skipped: those that stay in place
/// (all of them, on a rank that receives nothing from lower ranks until its first leaver). The
/// container must already hold max(old size, new size) elements.
template <class T, class S, class St>
void move_stayers(const pattern& p, const St& t) {
    const auto& out = p.out_segments(direction::forward);
    const auto& in = p.in_segments(direction::forward);
    std::size_t from = 0, to = 0, n = 0;
    for (const auto& seg : out)
        if (seg.rank == p.rank()) from = seg.offset, n = seg.count;
    for (const auto& seg : in)
        if (seg.rank == p.rank()) to = seg.offset;
    const std::size_t* old_place = p.order().data() + from;
    using leaves = decltype([]<std::size_t... K>(std::index_sequence<K...>) {
        return std::index_sequence<wire_format<T, S>::leaves[K]...>{};
    }(std::make_index_sequence<wire_format<T, S>::count>{}));
    std::size_t up = 0; // stayers [0, up) move up (or stay), [up, n) move down
    while (up < n && to + up >= old_place[up]) ++up;
    for (std::size_t j = up; j-- > 0;)
        if (to + j != old_place[j])
            layout::extension::copy_leaves(t.at(to + j), t.at(old_place[j]), leaves{});
    for (std::size_t j = up; j < n; ++j)
        layout::extension::copy_leaves(t.at(to + j), t.at(old_place[j]), leaves{});
}

/// The memory space of a container or view (views know theirs).
template <class X>
using memory_of_t = typename std::remove_cvref_t<X>::memory_type;

/// Before an exchange of a container or view: transports of memory with streams (device
/// memory) fix the stream it runs on (transport::choose_stream).
template <class Memory, class C>
void choose_stream(pattern& p, const C& c) {
    if constexpr (requires { transport<Memory>::choose_stream(p, c); })
        transport<Memory>::choose_stream(p, c);
}

/// First half of an exchange: pack (local: the buffers grow, the messages are written), agree
/// (every rank, before anything moves: any rank's refusal or exception stops them all), post.
/// local: what the caller found or prepared before; keep_self as transport::pack.
template <class S, class Memory, class T, class L, class M>
void start_exchange(pattern& p, operation op, direction d, const view<const T, L, M>& src,
                    std::size_t base, local_outcome local, bool keep_self = false) {
    local.run([&] {
        if (p.in_flight())
            local.problem = "layout::mpi: an exchange of this plan is already in flight (call "
                            "finish first)";
    });
    std::pair<const std::byte*, std::byte*> buffers{};
    local.run([&] { buffers = transport<Memory>::template pack<S>(p, d, src, base, keep_self); });
    p.agree(op, local, p.id(), wire_format<T, S>::signature);
    transport<Memory>::post(p, d, wire_format<T, S>::bytes_per_element, buffers.first,
                            buffers.second);
    p.started(op, wire_format<T, S>::signature);
}

/// Refuses to finish an exchange that was not started, or started with other fields; local
/// (the messages are already on their way), so it only throws after they have all arrived.
template <class S, class T>
std::string check_finish(pattern& p, operation op) {
    if (!p.in_flight())
        return "layout::mpi: finish without start: no exchange of this plan is in flight";
    if (p.pending_operation() != static_cast<std::int64_t>(op) ||
        p.pending_signature() != wire_format<T, S>::signature) {
        p.end_exchange();
        return "layout::mpi: finish does not match start (another operation, element type or "
               "field selection); the received elements were discarded";
    }
    return {};
}

template <class S, class Memory, class T, class L, class M>
void finish_exchange(pattern& p, direction d, const view<T, L, M>& dst, std::size_t base) {
    p.finished();
    transport<Memory>::template receive<S>(p, d, dst, base);
}

} // namespace detail
} // namespace layout::mpi
