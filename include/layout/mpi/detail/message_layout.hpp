/// \file mpi/detail/message_layout.hpp
/// Where the messages of one exchange of a host-planned plan lie: one message per peer, in the
/// plan's rank order, each a run of the plan's order (a segment) packed as fields.hpp's wire
/// format, padded to 16 bytes so the next one starts aligned. Kept apart from the posting
/// (point_to_point.hpp) because the device path lays out the same messages and hands them to a
/// transport of its own (cuda.hpp).
///
///     out segments {rank 0: 3 elements, rank 1 (self): 2, rank 2: 1}, 12 bytes per element
///     send buffer:  [rank 0: 48 B][self: 32 B][rank 2: 16 B]     (self kept: in-place reads)
///     receive buffer: one message per in segment but self, which is read from the send buffer
#pragma once

#include "../fields.hpp"

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace layout::mpi::detail {

/// Elements of one peer's message: the peer, and [offset, offset + count) in the plan's order.
struct segment {
    int rank;
    std::size_t offset;
    std::size_t count;
};

/// Direction of an exchange: forward sends the plan's segments (migration, halo gather);
/// reverse sends back what arrived (halo scatter_add).
enum class direction { forward, reverse };

/// Messages larger than an int of bytes go as several, in order (MPI keeps the order of
/// messages between two ranks with the same tag and communicator).
inline constexpr std::size_t message_chunk = std::size_t{1} << 30;

/// The MPI messages one message of `bytes` takes (a zero-byte message is still one).
constexpr std::size_t chunks_of(std::size_t bytes) {
    return bytes == 0 ? 1 : (bytes + message_chunk - 1) / message_chunk;
}

class message_layout {
public:
    struct sizes {
        std::size_t send = 0, recv = 0; // buffer bytes
        std::size_t messages = 0;       // MPI messages, sent and received (self excluded)
        std::size_t receives = 0;       // of which received
    };

    /// Lays out out (sent) and in (received) segments of bytes_per_element per element; self:
    /// this rank. Local; the only step that allocates.
    sizes lay_out(std::span<const segment> out, std::span<const segment> in, int self,
                  std::size_t bytes_per_element) {
        out_bytes_.resize(out.size());
        in_bytes_.resize(in.size());
        sizes z;
        for (std::size_t k = 0; k < out.size(); ++k) {
            out_bytes_[k] = z.send;
            z.send += message_bytes(bytes_per_element, out[k].count);
            if (out[k].rank != self)
                z.messages += chunks_of(message_bytes(bytes_per_element, out[k].count));
        }
        for (std::size_t k = 0; k < in.size(); ++k) {
            in_bytes_[k] = z.recv;
            if (in[k].rank == self) continue;
            const std::size_t bytes = message_bytes(bytes_per_element, in[k].count);
            z.recv += bytes;
            z.receives += chunks_of(bytes);
        }
        z.messages += z.receives;
        return z;
    }

    /// Where out segment k starts in the send buffer.
    std::size_t out_offset(std::size_t k) const { return out_bytes_[k]; }

    /// Where in segment k's bytes are: in the receive buffer, or (self) in the send buffer.
    const std::byte* in_message(std::span<const segment> out, std::span<const segment> in, int self,
                                std::size_t k, const std::byte* send_base,
                                const std::byte* recv_base) const {
        if (in[k].rank != self) return recv_base + in_bytes_[k];
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j].rank == self) return send_base + out_bytes_[j];
        return nullptr; // unreachable: self sends exactly what self receives
    }

    /// receive(rank, where, bytes) for each message received, then send(rank, where, bytes) for
    /// each sent, self excluded (it reads its own part from the send buffer), in the plan's order.
    template <class Receive, class Send>
    void for_each_message(std::span<const segment> out, std::span<const segment> in, int self,
                          std::size_t bytes_per_element, const std::byte* send_base,
                          std::byte* recv_base, Receive&& receive, Send&& send) const {
        for (std::size_t k = 0; k < in.size(); ++k)
            if (in[k].rank != self)
                receive(in[k].rank, recv_base + in_bytes_[k],
                        message_bytes(bytes_per_element, in[k].count));
        for (std::size_t k = 0; k < out.size(); ++k)
            if (out[k].rank != self)
                send(out[k].rank, send_base + out_bytes_[k],
                     message_bytes(bytes_per_element, out[k].count));
    }

private:
    std::vector<std::size_t> out_bytes_, in_bytes_;
};

} // namespace layout::mpi::detail
