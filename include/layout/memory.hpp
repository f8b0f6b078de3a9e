/// \file memory.hpp
/// Memory spaces: where a container's block lives and how bytes move there. A memory space is a
/// type with
///   static constexpr bool host_accessible, device_accessible;
///   static resource_ref default_resource();               // where containers allocate by default
///   static void copy_bytes(void* dst, const void* src, std::size_t bytes); // either side may be it
/// Allocation is the business of a memory resource (<layout/memory_resource.hpp>); moving elements
/// between spaces and layouts is layout::transfer's (<layout/transfer.hpp>).
/// host_memory is here; layout::cuda::device_memory, pinned_memory and managed_memory are in
/// <layout/cuda/memory.hpp>.
#pragma once

#include "config.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"

#include <cstddef>
#include <cstring>

namespace layout {

/// Ordinary (pageable) host memory.
struct host_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;

    static resource_ref default_resource() noexcept {
        static host_resource resource;
        return resource;
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) noexcept {
        if (bytes) std::memcpy(dst, src, bytes);
    }
};

} // namespace layout
