/// \file memory.hpp
/// Memory spaces: where a container's block lives, how it is allocated and how bytes move.
///
/// A memory space is a type with
///   static void* allocate(std::size_t bytes);             // block_alignment-aligned; throws
///   static void  deallocate(void* p, std::size_t bytes) noexcept;
///   static void  copy_bytes(void* dst, const void* src, std::size_t bytes); // either side may be it
///   static constexpr bool host_accessible, device_accessible;
/// host_memory is here; layout::cuda::device_memory and pinned_memory are in <layout/cuda/memory.hpp>.
#pragma once

#include "config.hpp"
#include "policies.hpp"

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

namespace layout {

/// Ordinary host memory from aligned operator new.
struct host_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;

    static void* allocate(std::size_t bytes) {
        return bytes == 0 ? nullptr : ::operator new(bytes, std::align_val_t{block_alignment});
    }
    static void deallocate(void* p, std::size_t /*bytes*/) noexcept {
        if (p) ::operator delete(p, std::align_val_t{block_alignment});
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) noexcept {
        if (bytes) std::memcpy(dst, src, bytes);
    }
};

namespace detail {
/// The space that knows how to move bytes between Dst and Src: a device space if either is one
/// (its copy understands both directions), else plain memcpy.
template <class DstMemory, class SrcMemory>
using copier_t = std::conditional_t<
    !DstMemory::host_accessible, DstMemory,
    std::conditional_t<!SrcMemory::host_accessible, SrcMemory, host_memory>>;
} // namespace detail

} // namespace layout
