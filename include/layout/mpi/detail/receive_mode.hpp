/// \file mpi/detail/receive_mode.hpp
/// How the messages of a device-planned exchange arrive: where the transport writes each
/// received message where it is told (NCCL), they land in the destination itself, with no
/// unpacking pass: under SoA one message per travelling leaf and peer, straight into the
/// destination's columns; under AoS (every leaf travelling) whole elements into its block.
/// Elsewhere (AoSoA, a split, some leaves of an AoS; the staged and CUDA-aware transports) they
/// arrive in one buffer and a kernel writes them in place. Every rank must receive the same way:
/// with_mode puts the mode in the signature the plans' agreement compares.
#pragma once

#include "../../extension.hpp"
#include "../../view.hpp"
#include "../fields.hpp"

#include <cstdint>
#include <type_traits>

namespace layout::mpi::detail {

/// How the messages of an exchange arrive (the same on every rank: the agreement checks it).
enum class receive_mode : std::int64_t {
    packed = 1,   ///< into the incoming buffer, one message a peer; a kernel writes them in place
    columns = 2,  ///< one message a travelling leaf and peer, into the destination's columns
    elements = 3, ///< whole elements, one message a peer, into the destination's block
};
/// Whether a transport writes each received message where its range says, and nothing else
/// (so that ranges may point into a container).
template <class Transport>
inline constexpr bool receives_in_place_v =
    requires { requires bool(Transport::receives_in_place); };
/// The receive mode of wire_format<T, S> into a container of layout L in memory M.
template <class Transport, class T, class S, class L, class M>
constexpr receive_mode receive_mode_of() {
    if constexpr (!receives_in_place_v<Transport>)
        return receive_mode::packed;
    else if constexpr (layout::extension::contiguous_columns_v<layout::view<const T, L, M>>)
        return receive_mode::columns;
    else if constexpr (std::is_same_v<S, every_leaf> && layout::extension::packed_elements_v<T, L>)
        return receive_mode::elements;
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
