/// \file mpi/detail/receive_mode.hpp
/// How the messages of a device-planned exchange arrive: where the transport writes each received
/// message where it is told (NCCL, IPC) and the destination is AoS with every leaf travelling, the
/// messages are whole elements and land in the destination's block itself, with no unpacking pass.
/// Where the transport reads and writes elements where they are (exchange_gathered: IPC), each
/// message's columns go straight from the source's leaves to the destination's, wherever the layout
/// keeps them (SoA's columns, AoSoA's runs of lanes, AoS's leaves, those next to each other in the
/// element as one column: leaf_columns.hpp; an AoS container's messages then differ from other
/// layouts', hence a mode of their own). Elsewhere they arrive packed (one column per leaf) in one
/// buffer and a kernel writes them in place. Every rank must receive the same way: with_mode puts
/// the mode in the signature the plans' agreement compares.
///
/// SoA receiving in place through NCCL (one message per leaf and peer, straight into the
/// columns) was measured and dropped: on 2 H200s it made the SoA migration 1.34x the
/// hand-written one (1.10x packed) and the halo gather 43-48% of NCCL (61-68% packed): NCCL moved
/// the many small, 4-byte-aligned messages far slower than one per peer
/// (bench/results/gpu-2026-11-27-e). Through IPC a message's columns are parts of one copy to
/// one landing block: the columns mode.
#pragma once

#include "../../extension.hpp"
#include "../fields.hpp"
#include "leaf_columns.hpp"

#include <cstdint>
#include <type_traits>

namespace layout::mpi::detail {

/// How the messages of an exchange arrive (the same on every rank: the agreement checks it).
enum class receive_mode : std::int64_t {
    packed = 1,   ///< into the incoming buffer, one message a peer; a kernel writes them in place
    elements = 2, ///< whole elements, one message a peer, into the destination's block
    columns = 3,  ///< the travelling leaves, one message a peer, into the destination's leaves
    element_runs = 4, ///< as columns, leaves next to each other in an AoS element joined
};
/// Whether a transport writes each received message where its range says, and nothing else
/// (so that ranges may point into a container).
template <class Transport>
inline constexpr bool receives_in_place_v =
    requires { requires bool(Transport::receives_in_place); };
/// Whether a transport reads and writes the messages' elements where they are, column by column
/// (exchange_gathered).
template <class Transport>
inline constexpr bool gathers_v = requires { requires bool(Transport::gathers); };
/// The receive mode of wire_format<T, S> into a container of layout L.
template <class Transport, class T, class S, class L>
constexpr receive_mode receive_mode_of() {
    if constexpr (!receives_in_place_v<Transport>)
        return receive_mode::packed;
    else if constexpr (std::is_same_v<S, every_leaf> && layout::extension::packed_elements_v<T, L>)
        return receive_mode::elements;
    else if constexpr (gathers_v<Transport> && strided_elements_v<T, L>)
        return receive_mode::element_runs;
    else if constexpr (gathers_v<Transport> && addressable_leaves_v<T, L>)
        return receive_mode::columns;
    else
        return receive_mode::packed;
}
/// A plan's signature for the agreement, with the receive mode in it.
constexpr std::int64_t with_mode(std::int64_t signature, receive_mode mode) noexcept {
    return mode == receive_mode::packed ? signature
                                        : (signature ^ (static_cast<std::int64_t>(mode) << 56)) &
                                              ((std::int64_t{1} << 62) - 1);
}

} // namespace layout::mpi::detail
