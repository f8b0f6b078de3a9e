/// \file cuda/append.hpp
/// Appending to a container from kernels: any thread may add elements, into the capacity
/// reserved beforehand, in any layout.
///
///     particles.reserve(particles.size() + max_births);    // the room appends may fill
///     layout::cuda::appender births(particles);            // nothing appended yet
///     spawn<<<blocks, 256, 0, births.stream()>>>(births.view(), ...);
///     //   in the kernel: bool fitted = out.push_back(child);   // false: no room, dropped
///     auto [appended, dropped] = births.finish();          // particles.size() grew by appended
///
/// Each push_back claims the next free slot of [size(), capacity()) with one atomic add per
/// warp (the threads of a warp that append together share one), and writes the element there
/// only if the slot is inside the capacity; elements that do not fit are counted, never written.
/// Slots go out in the order the atomics happen: the order of the appended elements is not
/// specified, but they are contiguous: elements [old size, old size + appended) are exactly
/// the ones written.
///
/// Streams: the counter is allocated and zeroed on the container's stream (stream()); launch
/// the kernels that append there, or order them after it. finish() reads the counter back on
/// that stream and waits for it (the host needs the new size: this is the one synchronization),
/// then sets the container's size; it may be called again after more kernels appended (it
/// reports the totals since the appender was made). Between making the appender and its last
/// finish(), the container must not be resized, reallocated or moved: finish() throws
/// std::logic_error if its size, capacity or block changed. Without finish(), the container
/// keeps its old size. One appender per container at a time.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/append.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "error.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "workspace.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace layout::cuda {

/// What a kernel appends through: trivially copyable, passed by value.
template <class T, class L, class M = device_memory>
class append_view {
public:
    using value_type = T;

    append_view(const layout::view<T, L, M>& whole, std::size_t size,
                unsigned long long* claimed) noexcept
        : whole_(whole), size_(size), claimed_(claimed) {}

    /// Appends value if there is room; returns whether it did. Call it from any thread, any
    /// number of times.
    __device__ bool push_back(const T& value) const {
        const unsigned long long slot = claim();
        if (slot >= whole_.size() - size_) return false;
        whole_[size_ + static_cast<std::size_t>(slot)] = value;
        return true;
    }
    /// Appends T{args...} (the fields, in order) if there is room; returns whether it did.
    template <class... Args>
    __device__ bool emplace_back(Args&&... args) const {
        return push_back(T{std::forward<Args>(args)...});
    }

    /// The container's capacity: no element is written at or past it.
    LAYOUT_HOST_DEVICE std::size_t capacity() const noexcept { return whole_.size(); }

private:
    /// The next free slot, counted from the old size. The threads of the warp that got here
    /// together claim their slots with one atomic: the first of them adds their number, and
    /// each takes the slot of its rank among them.
    __device__ unsigned long long claim() const {
        const auto group = cooperative_groups::coalesced_threads();
        unsigned long long first = 0;
        if (group.thread_rank() == 0) first = atomicAdd(claimed_, group.size());
        return group.shfl(first, 0) + group.thread_rank();
    }

    layout::view<T, L, M> whole_; // elements [0, capacity)
    std::size_t size_;            // the container's size when the appender was made
    unsigned long long* claimed_;
};

/// What finish() reports: elements appended, and elements that found no room.
struct append_result {
    std::size_t appended;
    std::size_t dropped;
};

/// Appending to a container the GPU can write (device, pinned or managed memory) from kernels.
template <class T, class L, class M>
class appender {
    static_assert(M::device_accessible,
                  "layout::cuda::appender: the container is in host memory that the GPU cannot "
                  "write; use a layout::cuda container (device, pinned or managed memory)");
    static_assert(std::is_trivially_copyable_v<append_view<T, L, M>>);

public:
    /// Zeroes the counter on c's stream; c must outlive the appender. The counter comes from
    /// c's resource, on c's stream.
    explicit appender(layout::vector<T, L, M>& c)
        : c_(&c), size_(c.size()), capacity_(c.capacity()), block_(first_byte(c)),
          owned_(1, native(c.stream()), counter_resource(c)), claimed_(owned_.get()) {
        zero_counter();
    }
    /// The same with the counter in the workspace (ws must serve c's stream, else
    /// std::invalid_argument): nothing is allocated once the workspace is warm.
    appender(layout::vector<T, L, M>& c, workspace& ws)
        : c_(&c), size_(c.size()), capacity_(c.capacity()), block_(first_byte(c)),
          owned_(0, native(c.stream())), claimed_(counter_in(ws, c)) {
        zero_counter();
    }
    appender(const appender&) = delete;
    appender& operator=(const appender&) = delete;

    /// What kernels append through: slots [size(), capacity()) of the container.
    append_view<T, L, M> view() const noexcept {
        return {layout::view<T, L, M>(c_->view().storage(), capacity_), size_, claimed_};
    }
    /// The container's stream, on which the counter lives: launch the appending kernels here.
    cudaStream_t stream() const noexcept { return native(c_->stream()); }

    /// Waits for the container's stream, sets the container's size to the old size plus the
    /// elements appended, and reports them and the ones dropped for want of room.
    append_result finish() {
        if (c_->size() != size_ + finished_ || c_->capacity() != capacity_ ||
            first_byte(*c_) != block_)
            throw std::logic_error("layout::cuda::appender::finish: the container was resized, "
                                   "reallocated or moved while appending");
        unsigned long long claimed = 0;
        check(cudaMemcpyAsync(&claimed, claimed_, sizeof claimed, cudaMemcpyDeviceToHost, stream()),
              "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
        const std::size_t room = capacity_ - size_;
        finished_ = claimed < room ? static_cast<std::size_t>(claimed) : room;
        layout::detail::size_access::set(*c_, size_ + finished_);
        return {finished_, static_cast<std::size_t>(claimed) - finished_};
    }

private:
    static const void* first_byte(const layout::vector<T, L, M>& c) noexcept {
        return c.view().storage().first_byte();
    }

    /// Device-only containers' resource serves the counter; pinned and managed ones' memory
    /// the device pool (a host resource may not order frees on the stream).
    static resource_ref counter_resource(const layout::vector<T, L, M>& c) noexcept {
        if constexpr (!M::host_accessible)
            return c.resource();
        else
            return device_memory::default_resource();
    }
    static unsigned long long* counter_in(workspace& ws, const layout::vector<T, L, M>& c) {
        ws.check_stream(c.stream(), "layout::cuda::appender");
        return ws.get<unsigned long long>(workspace::slot::counter, 1);
    }
    void zero_counter() {
        check(cudaMemsetAsync(claimed_, 0, sizeof(unsigned long long), stream()),
              "cudaMemsetAsync");
    }

    layout::vector<T, L, M>* c_;
    std::size_t size_, capacity_;
    const void* block_;
    std::size_t finished_ = 0;                        // appended, as of the last finish()
    detail::stream_buffer<unsigned long long> owned_; // the counter, unless in a workspace
    unsigned long long* claimed_;
};

} // namespace layout::cuda
