/// \file cuda/workspace.hpp
/// Scratch memory that the device algorithms keep from call to call, so that a time loop's
/// steps allocate nothing once warm, as a hand-written step with preallocated buffers does:
/// CUB's temporary storage, flags, indices, keys, a counter, a copy's stages, and a second block
/// of elements for the algorithms that reorder a container by writing into another block and
/// swapping the two (double buffering: remove_if, sort_by_key, bin_by_key); and two side streams
/// that an operation may fork copies onto and joins back before returning.
///
///     layout::cuda::workspace ws(particles);   // the container's stream and resource
///     for (int step = 0; step < steps; ++step) {
///         layout::cuda::remove_if(particles, left_the_box{}, ws);      // nothing allocated
///         if (step % 10 == 0) layout::cuda::bin_by_key<&P::cell>(particles, cells, ws);
///     }
///     ws.allocations();                        // blocks allocated so far: flat once warm
///
/// Blocks grow to the largest request and come from the workspace's resource (device_memory's
/// default pool unless given), except the element block, which comes from the container's
/// resource and is prepared as the container's own blocks are (padding zeroed): it becomes the
/// container's block. Everything is allocated and freed in the order of the workspace's stream;
/// a workspace serves that one stream, and an algorithm given it on another throws
/// std::invalid_argument before anything runs (its blocks could still be in use there). Results
/// returned as spans into it (bins_view) stay valid until its next use.
/// Not thread-safe, not copyable.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/workspace.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../memory_resource.hpp"
#include "../vector.hpp"
#include "detail/side_stream.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "transfer.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace layout::cuda {

class workspace {
public:
    /// What each block holds; algorithms that run one after the other share them.
    enum class slot : unsigned {
        temp,        // CUB's temporary storage
        flags,       // one byte per element
        indices,     // positions, permutations
        indices_alt, // the other half of a radix sort's double buffer
        keys,        // keys copied out or sorted out of place
        keys_alt,
        offsets,  // bin offsets
        counter,  // counts read back (one 64-bit word)
        outgoing, // messages to other ranks (layout::mpi::device_migration_plan)
        incoming, // messages from other ranks
        table,    // a plan's per-peer table
        stage,    // copies staged on the GPU (layout::cuda::copy through a workspace)
        count_
    };

    workspace() : workspace(stream_ref{}) {}
    explicit workspace(stream_ref stream,
                       resource_ref resource = device_memory::default_resource()) noexcept
        : stream_(stream), resource_(resource) {}
    /// For container c: its stream, and its resource where c is in device memory.
    template <class C>
        requires requires(const C& c) {
            c.stream();
            c.resource();
            typename C::memory_type;
        }
    explicit workspace(const C& c) noexcept
        : workspace(c.stream(), C::memory_type::host_accessible ? device_memory::default_resource()
                                                                : c.resource()) {}
    workspace(const workspace&) = delete;
    workspace& operator=(const workspace&) = delete;
    ~workspace() { release(); }

    stream_ref stream() const noexcept { return stream_; }
    resource_ref resource() const noexcept { return resource_; }

    /// At least n bytes in slot s, 256-byte aligned; kept for the next call (a larger request
    /// frees the block and allocates another, in stream order).
    void* bytes(slot s, std::size_t n) {
        block& b = blocks_[static_cast<unsigned>(s)];
        if (n > b.bytes) {
            if (b.p) resource_.deallocate(b.p, b.bytes, alignment, stream_);
            b = {};
            b.p = resource_.allocate(n, alignment, stream_);
            b.bytes = n;
            ++allocations_;
        }
        return b.p;
    }
    /// Bytes slot s holds now (what bytes(s, n) can give without allocating).
    std::size_t capacity(slot s) const noexcept { return blocks_[static_cast<unsigned>(s)].bytes; }
    /// n elements of E in slot s (uninitialized).
    template <class E>
    E* get(slot s, std::size_t n) {
        return static_cast<E*>(bytes(s, n * sizeof(E)));
    }

    /// A view of n elements in a block that can become container c's (c's resource, layout and
    /// alignment, room for c.capacity() elements at least, so that c keeps its capacity).
    /// Write the elements there, then adopt_elements(c, n) swaps the blocks.
    template <class C>
    auto element_view(const C& c, std::size_t n) {
        using storage = typename C::view_type::storage_type;
        const std::size_t room = n > c.capacity() ? n : c.capacity();
        const std::size_t capacity = layout::detail::block_access::rounded<C>(room);
        const std::size_t need = layout::detail::block_access::bytes_for<C>(room);
        if (!elements_.resource || !(*elements_.resource == c.resource()) ||
            need > elements_.bytes) {
            free_elements();
            void* const p = c.resource().allocate(need, block_alignment, stream_);
            try {
                // Prepared as a block the container allocates itself (padding zeroed): copies
                // of whole runs read it, and the block becomes the container's.
                layout::detail::transfer_prepare_block(
                    typename C::view_type(storage::from_block(p, capacity), capacity), stream_);
            } catch (...) {
                c.resource().deallocate(p, need, block_alignment, stream_);
                throw;
            }
            elements_.p = p;
            elements_.bytes = need;
            elements_.capacity = capacity;
            elements_.resource = c.resource();
            ++allocations_;
        }
        return typename C::view_type(storage::from_block(elements_.p, elements_.capacity), n);
    }
    /// Elements that element_view(c, n) can hold without allocating (0 if it would allocate
    /// whatever n is).
    template <class C>
    std::size_t element_room(const C& c) const noexcept {
        if (!elements_.resource || !(*elements_.resource == c.resource()) ||
            layout::detail::block_access::bytes_for<C>(c.capacity()) > elements_.bytes)
            return 0;
        return elements_.capacity;
    }
    /// c takes the element block (its first new_size elements written through element_view),
    /// and the workspace keeps c's old block for next time.
    template <class C>
    void adopt_elements(C& c, std::size_t new_size) {
        layout::detail::block_access::exchange(c, elements_.p, elements_.bytes, elements_.capacity);
        layout::detail::size_access::set(c, new_size);
        if (!elements_.p) elements_.resource.reset(); // c had no block: nothing kept
    }

    /// Second streams (k = 0 or 1) that an operation forks work onto from the workspace's
    /// stream and joins back into before it returns (copies beside kernels); created on first
    /// use and kept.
    detail::side_stream& side(unsigned k = 0) {
        std::optional<detail::side_stream>& s = sides_.at(k);
        if (!s) s.emplace();
        return *s;
    }

    /// Throws std::invalid_argument unless s is this workspace's stream.
    void check_stream(stream_ref s, const char* function) const {
        if (s != stream_)
            throw std::invalid_argument(std::string(function) +
                                        ": the workspace serves another stream than the one this "
                                        "call runs on (its blocks may still be in use there); "
                                        "give each stream its own workspace");
    }

    /// Blocks allocated over the workspace's life: constant across steps once warm.
    std::size_t allocations() const noexcept { return allocations_; }

    /// Frees every block (in stream order); the next use allocates again.
    void release() noexcept {
        for (block& b : blocks_) {
            if (b.p) resource_.deallocate(b.p, b.bytes, alignment, stream_);
            b = {};
        }
        free_elements();
    }

private:
    static constexpr std::size_t alignment = 256;

    struct block {
        void* p = nullptr;
        std::size_t bytes = 0;
    };
    struct element_block {
        void* p = nullptr;
        std::size_t bytes = 0, capacity = 0;
        std::optional<resource_ref> resource;
    };

    void free_elements() noexcept {
        if (elements_.p)
            elements_.resource->deallocate(elements_.p, elements_.bytes, block_alignment, stream_);
        elements_ = {};
    }

    stream_ref stream_;
    resource_ref resource_;
    std::array<block, static_cast<unsigned>(slot::count_)> blocks_{};
    element_block elements_;
    std::array<std::optional<detail::side_stream>, 2> sides_;
    std::size_t allocations_ = 0;
};

} // namespace layout::cuda
