/// \file memory_resource.hpp
/// Memory resources: objects that hand out and take back blocks, in the convention of CCCL's
/// cuda::mr and RMM. A container holds a reference to one (it must outlive the container, as
/// with std::pmr) and the stream its work is ordered on.
///
///     struct counting {                                    // any type with these members
///         static constexpr bool host_accessible = true, device_accessible = false;
///         void* allocate(std::size_t bytes, std::size_t alignment);
///         void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept;
///         bool operator==(const counting&) const = default;
///     };
///     counting mine;
///     layout::soa_vector<P> v(1000, P{}, layout::stream_ref{}, mine);   // blocks come from mine
///
/// A resource may add allocate_async / deallocate_async(p, bytes, alignment, stream_ref): device
/// resources do (cudaMallocAsync); containers then allocate and free in the order of their
/// stream, without synchronizing. Resources without them are called synchronously.
#pragma once

#include "config.hpp"

#include <concepts>
#include <cstddef>
#include <new>
#include <type_traits>

namespace layout {

/// A CUDA stream as host-only code sees it: cudaStream_t is a pointer, and a null one is the
/// default stream. Host memory ignores it. Converts from cudaStream_t (any object pointer).
class stream_ref {
public:
    constexpr stream_ref() noexcept = default;
    constexpr stream_ref(std::nullptr_t) noexcept {}
    template <class Handle>
    constexpr stream_ref(Handle* handle) noexcept : handle_(handle) {}

    /// The handle; layout::cuda code casts it back to cudaStream_t.
    constexpr void* get() const noexcept { return handle_; }
    friend constexpr bool operator==(stream_ref, stream_ref) noexcept = default;

private:
    void* handle_ = nullptr;
};

/// What a container needs from its allocator.
template <class R>
concept memory_resource = requires(R& r, void* p, std::size_t bytes, std::size_t alignment) {
    { r.allocate(bytes, alignment) } -> std::same_as<void*>;
    { r.deallocate(p, bytes, alignment) } noexcept;
    { R::host_accessible } -> std::convertible_to<bool>;
    { R::device_accessible } -> std::convertible_to<bool>;
} && std::equality_comparable<R>;

/// A resource that also allocates and frees in stream order.
template <class R>
concept async_memory_resource =
    memory_resource<R> &&
    requires(R& r, void* p, std::size_t bytes, std::size_t alignment, stream_ref s) {
        { r.allocate_async(bytes, alignment, s) } -> std::same_as<void*>;
        { r.deallocate_async(p, bytes, alignment, s) } noexcept;
    };

/// A non-owning, type-erased reference to a memory resource (two pointers). Equal when it refers
/// to resources that compare equal: a block from one may be freed by the other.
class resource_ref {
public:
    template <memory_resource R>
    resource_ref(R& resource) noexcept : resource_(&resource), calls_(&calls_for<R>) {}

    /// A block of bytes (nullptr for 0 bytes), ordered on stream where the resource can be.
    void* allocate(std::size_t bytes, std::size_t alignment, stream_ref stream = {}) const {
        return bytes == 0 ? nullptr : calls_->allocate(resource_, bytes, alignment, stream);
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment,
                    stream_ref stream = {}) const noexcept {
        if (p) calls_->deallocate(resource_, p, bytes, alignment, stream);
    }
    bool host_accessible() const noexcept { return calls_->host_accessible; }
    bool device_accessible() const noexcept { return calls_->device_accessible; }

    friend bool operator==(const resource_ref& a, const resource_ref& b) noexcept {
        return a.resource_ == b.resource_ ||
               (a.calls_ == b.calls_ && a.calls_->equal(a.resource_, b.resource_));
    }

private:
    struct calls {
        void* (*allocate)(void*, std::size_t, std::size_t, stream_ref);
        void (*deallocate)(void*, void*, std::size_t, std::size_t, stream_ref) noexcept;
        bool (*equal)(const void*, const void*) noexcept;
        bool host_accessible, device_accessible;
    };
    template <class R>
    static constexpr calls calls_for = {
        [](void* r, std::size_t bytes, std::size_t alignment, stream_ref s) -> void* {
            if constexpr (async_memory_resource<R>)
                return static_cast<R*>(r)->allocate_async(bytes, alignment, s);
            else
                return static_cast<R*>(r)->allocate(bytes, alignment);
        },
        [](void* r, void* p, std::size_t bytes, std::size_t alignment, stream_ref s) noexcept {
            if constexpr (async_memory_resource<R>)
                static_cast<R*>(r)->deallocate_async(p, bytes, alignment, s);
            else
                static_cast<R*>(r)->deallocate(p, bytes, alignment);
        },
        [](const void* a, const void* b) noexcept {
            return *static_cast<const R*>(a) == *static_cast<const R*>(b);
        },
        R::host_accessible,
        R::device_accessible,
    };

    void* resource_;
    const calls* calls_;
};

/// Ordinary host memory: aligned operator new and delete. Stateless: all instances are equal.
struct host_resource {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;

    void* allocate(std::size_t bytes, std::size_t alignment) {
        return ::operator new(bytes, std::align_val_t{alignment});
    }
    void deallocate(void* p, std::size_t /*bytes*/, std::size_t alignment) noexcept {
        ::operator delete(p, std::align_val_t{alignment});
    }
    friend constexpr bool operator==(const host_resource&, const host_resource&) noexcept {
        return true;
    }
};

namespace detail {
/// Refuses, with a message, a resource whose accessibility differs from the memory space's.
template <class Memory, class R>
constexpr void check_resource_fits() {
    static_assert(memory_resource<R>,
                  "layout: a container's resource needs allocate(bytes, alignment), "
                  "deallocate(p, bytes, alignment) noexcept, operator== and static constexpr "
                  "bool host_accessible, device_accessible (see <layout/memory_resource.hpp>)");
    if constexpr (memory_resource<R>)
        static_assert(R::host_accessible == Memory::host_accessible &&
                          R::device_accessible == Memory::device_accessible,
                      "layout: this resource's memory is not reachable where the container's "
                      "memory space says (host_accessible / device_accessible differ)");
}
} // namespace detail

} // namespace layout
