/// \file memory.hpp
/// Memory spaces: where a container's or a view's elements live. A memory space is a type with
///   static constexpr bool host_accessible, device_accessible;  // who may read it
///   static resource_ref default_resource();    // where containers allocate by default
///   static constexpr bool device_resident;     // optional: elements are best moved by the GPU
///                                              // (default: device_accessible && !host_accessible)
/// (the memory_space concept). Allocation is the business of a memory resource
/// (<layout/memory_resource.hpp>); moving elements between spaces and layouts is
/// layout::transfer's (<layout/transfer.hpp>).
///
///     static_assert(layout::memory_space<layout::host_memory>);
///     layout::view<P, layout::policy::soa, layout::host_memory>   // = layout::view<P, soa>
///
/// host_memory is here; layout::cuda::device_memory, pinned_memory and managed_memory are in
/// <layout/cuda/memory.hpp>.
#pragma once

#include "config.hpp"
#include "memory_resource.hpp"

#include <concepts>
#include <cstddef>
#include <cstring>

namespace layout {

/// What a memory space provides (memory.hpp's \file comment). A user's fourth space that lacks
/// a member fails here, with the member named.
template <class M>
concept memory_space = requires {
    { M::host_accessible } -> std::convertible_to<bool>;
    { M::device_accessible } -> std::convertible_to<bool>;
    { M::default_resource() } -> std::convertible_to<resource_ref>;
};

/// Whether the host may read and write elements in M.
template <memory_space M>
inline constexpr bool host_accessible_v = M::host_accessible;
/// Whether kernels may read and write elements in M.
template <memory_space M>
inline constexpr bool device_accessible_v = M::device_accessible;
/// Whether elements in M are best moved and converted by the GPU (device and managed memory;
/// not pinned memory, which the host reads at full speed).
template <memory_space M>
inline constexpr bool device_resident_v = [] {
    if constexpr (requires { M::device_resident; })
        return bool(M::device_resident);
    else
        return M::device_accessible && !M::host_accessible;
}();

/// Ordinary (pageable) host memory.
struct host_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;
    static constexpr bool device_resident = false;

    static resource_ref default_resource() noexcept {
        static host_resource resource;
        return resource;
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) noexcept {
        if (bytes) std::memcpy(dst, src, bytes);
    }
};

} // namespace layout
