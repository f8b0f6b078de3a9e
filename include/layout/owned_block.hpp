/// \file owned_block.hpp
/// The lifetime half of layout::vector (vector.hpp is the std::vector interface over it): one
/// block from a memory resource, holding capacity() elements of T in a layout, of which the first
/// size() are live; the stream its work is ordered on; growth and copies that give the strong
/// guarantee. Everything that reaches the memory goes through the memory space's transfer
/// (<layout/transfer.hpp>), so all of it serves device containers too.
///
///     layout::cuda::soa_vector<P> a(3, P{}, s);   // a block for 3 from the device resource,
///                                                 // filled by a kernel on s
///     a.reserve(100);       // a new block for 100: the 3 elements copied on s, the old block
///                           // freed on s (if the allocation throws, a is as it was)
///
/// A vector derives from it privately and adds no state, so its size and layout are the block's.
#pragma once

#include "config.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"
#include "runs.hpp"
#include "transfer.hpp"
#include "view.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace layout::detail {

template <class T, class Layout, class Memory>
class owned_block {
protected:
    using size_type = std::size_t;
    using view_type = layout::view<T, Layout, Memory>;
    using const_view_type = layout::view<const T, Layout, Memory>;
    // The view's storage, named without instantiating the view: the vector checks its
    // parameters first (vector.hpp), and a bad one should fail there, with its layout: message.
    using storage_type = detail::storage<T, Layout>;

    owned_block() noexcept = default;
    explicit owned_block(stream_ref stream) noexcept : stream_(stream) {}
    template <class Resource>
    owned_block(stream_ref stream, Resource& resource) noexcept
        : resource_(fitting_resource(resource)), stream_(stream) {}
    owned_block(stream_ref stream, resource_ref resource)
        : resource_(fitting_resource(resource)), stream_(stream) {}
    owned_block(owned_block&& other) noexcept : resource_(other.resource_), stream_(other.stream_) {
        swap(other);
    }
    ~owned_block() { resource_.deallocate(block_, bytes_, block_alignment, stream_); }

    void swap(owned_block& other) noexcept {
        std::swap(block_, other.block_);
        std::swap(bytes_, other.bytes_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
        std::swap(storage_, other.storage_);
        std::swap(resource_, other.resource_);
        std::swap(stream_, other.stream_);
    }

    static constexpr size_type max_size() noexcept {
        return std::numeric_limits<std::ptrdiff_t>::max() / (sizeof(T) + 128);
    }

    /// The view's pointers into the current block, a copy of storage_: recomputing them from
    /// block_ (from_block: a column offset per leaf under SoA) in every c[i] made a SoA drift
    /// loop 42 instructions an element against 15 (g++ -O2). SoA copies pointer by pointer:
    /// clang 14 copies a struct of pointers as bytes, untyped, so that any float store of the
    /// loop might have changed them, and reloaded every column pointer per element.
    storage_type storage() const noexcept {
        if constexpr (requires { storage_.copy(); })
            return storage_.copy();
        else
            return storage_;
    }

    /// Allocation rounds AoSoA capacities up to whole blocks: the last block is paid for anyway.
    static size_type rounded_capacity(size_type n) noexcept {
        return mapping<T, Layout>::rounded_capacity(n);
    }

    static size_type checked_size(size_type n) {
        if (n > max_size())
            throw std::length_error("layout::vector: " + std::to_string(n) +
                                    " elements exceed max_size()");
        return n;
    }

    size_type grown_capacity(size_type needed) const {
        return checked_size(std::max(needed, capacity_ < max_size() / 2 ? 2 * capacity_ : needed));
    }

    /// Moves the elements to a new block of at least n elements. Allocates first: if that
    /// throws, nothing has changed.
    void reallocate(size_type n) {
        const size_type capacity = rounded_capacity(n);
        const size_type bytes = mapping<T, Layout>::bytes(capacity);
        void* block = resource_.allocate(bytes, block_alignment, stream_);
        const view_type fresh(storage_type::from_block(block, capacity), size_);
        try {
            // A device space's copy can fail (a launch): the new block is ours to free.
            detail::transfer_prepare_block(view_type(fresh.storage(), capacity), stream_);
            if (size_) detail::transfer_copy(const_view_type(storage(), size_), fresh, stream_);
        } catch (...) {
            resource_.deallocate(block, bytes, block_alignment, stream_);
            throw;
        }
        resource_.deallocate(block_, bytes_, block_alignment, stream_);
        block_ = block;
        storage_ = fresh.storage();
        bytes_ = bytes;
        capacity_ = capacity;
    }

    /// Takes another block of the same resource and alignment and gives this one back in its
    /// place (block_access).
    void exchange(void*& block, size_type& bytes, size_type& capacity) noexcept {
        std::swap(block_, block);
        std::swap(bytes_, bytes);
        std::swap(capacity_, capacity);
        storage_ = storage_type::from_block(block_, capacity_);
    }

    void fill(size_type first, size_type last, const T& value) {
        if (first < last)
            detail::transfer_fill(view_type(storage(), last), first, last, value, stream_);
    }

    void construct_filled(size_type n, const T& value) {
        reallocate(checked_size(n));
        fill(0, n, value);
        size_ = n;
    }

    /// The constructors' copies: a block of other.size() elements, then the elements. other is
    /// a container of any layout and memory space, or a view (copied on this block's stream).
    template <class Container>
    void copy_from(const Container& other) {
        reallocate(other.size());
        detail::transfer_copy(other.cview(), view_type(storage(), other.size()),
                              transfer_stream(other.stream()));
        size_ = other.size();
    }
    template <class L2, class M2>
    void copy_from(const layout::view<const T, L2, M2>& other) {
        reallocate(other.size());
        detail::transfer_copy(other, view_type(storage(), other.size()), stream_);
        size_ = other.size();
    }

    /// *this = other (a container of any layout and memory space): into the current block when
    /// other fits, else into a new one (allocated and filled before the old one is let go: strong
    /// guarantee). Storage that overlaps other's (only self-assignment does, as each container
    /// owns its block) is never written while it is read: it goes through a fresh block.
    template <class Container>
    void assign_elements(const Container& other) {
        const size_type n = other.size();
        if (n > capacity_ || detail::views_overlap(view_type(storage(), n), other.cview())) {
            owned_block fresh(stream_, resource_);
            fresh.copy_from(other);
            swap(fresh);
            return;
        }
        detail::transfer_copy(other.cview(), view_type(storage(), n),
                              transfer_stream(other.stream()));
        size_ = n;
    }

private:
    template <class Resource>
    static resource_ref fitting_resource(Resource& resource) noexcept {
        detail::check_resource_fits<Memory, Resource>();
        if constexpr (memory_resource<Resource>)
            return resource;
        else
            return Memory::default_resource(); // not reached: the check refused the type
    }
    static resource_ref fitting_resource(resource_ref resource) {
        if (resource.host_accessible() != Memory::host_accessible ||
            resource.device_accessible() != Memory::device_accessible)
            throw std::invalid_argument("layout::vector: the resource's memory is not reachable "
                                        "where the container's memory space says");
        return resource;
    }

    /// The stream a copy from another container runs on: this one's, or the source's where this
    /// one is in pageable host memory (which has no stream of its own: the source's work is what
    /// to wait for).
    stream_ref transfer_stream(stream_ref from_stream) const noexcept {
        return Memory::device_accessible ? stream_ : from_stream;
    }

    void* block_ = nullptr;
    // Always storage_type::from_block(block_, capacity_); set with them (reallocate, exchange,
    // swap).
    storage_type storage_{};
    size_type bytes_ = 0;

protected:
    /// Elements [0, size_) are live: the vector moves size_ as it writes and drops elements. It
    /// only reads the others; the functions above change them.
    size_type size_ = 0;
    size_type capacity_ = 0;
    resource_ref resource_ = Memory::default_resource();
    stream_ref stream_{};
};

/// A container's block, exchanged with another of the same resource and alignment: for
/// algorithms that write the reordered elements into a second block and keep it (double
/// buffering, cuda/workspace.hpp), the old block going where the new one came from. The vector
/// makes it a friend.
struct block_access {
    template <class V>
    static void exchange(V& v, void*& block, std::size_t& bytes, std::size_t& capacity) noexcept {
        v.exchange(block, bytes, capacity);
    }
    /// The bytes a block of capacity elements of V takes (what the container would allocate).
    template <class V>
    static std::size_t bytes_for(std::size_t capacity) noexcept {
        return mapping<typename V::value_type, typename V::layout_type>::bytes(
            V::rounded_capacity(capacity));
    }
    template <class V>
    static std::size_t rounded(std::size_t capacity) noexcept {
        return V::rounded_capacity(capacity);
    }
};

/// Sets a container's size to n <= capacity() without writing an element: for code that has
/// written elements [size(), n) itself, such as a kernel appending (cuda/append.hpp). The vector
/// makes it a friend.
struct size_access {
    template <class V>
    static void set(V& v, std::size_t n) noexcept {
        LAYOUT_BOUNDS_CHECK(n, v.capacity_ + 1);
        v.size_ = n;
    }
};

} // namespace layout::detail
