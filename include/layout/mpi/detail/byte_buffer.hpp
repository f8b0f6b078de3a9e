/// \file mpi/detail/byte_buffer.hpp
/// The message buffers of every plan, host-planned (pattern.hpp) and device-planned
/// (device_exchange.hpp, device_transport.hpp's staging): raw bytes in a memory space that only
/// grow, and count their allocations.
#pragma once

#include "../../memory.hpp"
#include "../../policies.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace layout::mpi::detail {

/// A byte buffer that only ever grows, by at least a quarter so that slowly growing exchanges
/// reallocate rarely, and counts its allocations (tests check that a reused plan allocates
/// nothing). Memory is a layout memory space (host, pinned or device).
template <class Memory>
class byte_buffer {
public:
    byte_buffer() = default;
    byte_buffer(const byte_buffer&) = delete;
    byte_buffer& operator=(const byte_buffer&) = delete;
    byte_buffer(byte_buffer&& other) noexcept { swap(other); }
    byte_buffer& operator=(byte_buffer&& other) noexcept {
        byte_buffer(std::move(other)).swap(*this);
        return *this;
    }
    ~byte_buffer() { Memory::default_resource().deallocate(data_, capacity_, block_alignment); }

    /// At least bytes of storage; the contents are not kept.
    std::byte* reserve(std::size_t bytes) {
        if (bytes > capacity_) {
            const std::size_t grown = std::max(bytes, capacity_ + capacity_ / 4);
            const resource_ref resource = Memory::default_resource();
            void* fresh = resource.allocate(grown, block_alignment);
            resource.deallocate(data_, capacity_, block_alignment);
            data_ = static_cast<std::byte*>(fresh);
            capacity_ = grown;
            ++allocations_;
        }
        return data_;
    }
    std::byte* data() const noexcept { return data_; }
    std::size_t capacity() const noexcept { return capacity_; }
    std::size_t allocations() const noexcept { return allocations_; }
    void swap(byte_buffer& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(capacity_, other.capacity_);
        std::swap(allocations_, other.allocations_);
    }

private:
    std::byte* data_ = nullptr;
    std::size_t capacity_ = 0;
    std::size_t allocations_ = 0;
};

} // namespace layout::mpi::detail
