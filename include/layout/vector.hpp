/// \file vector.hpp
/// An owning, std::vector-like container of T in a layout and a memory space.
///
///     layout::soa_vector<Particle> s(n);              // host, SoA
///     layout::aosoa<Particle, 32> chunks = s;         // converting copy to AoSoA<32>
///     layout::cuda::soa_vector<Particle> dev = s;     // device memory (<layout/cuda/vector.hpp>)
///     kernel<<<g, b>>>(dev.view());
///     Particle p = s[7];  s[7] = p;  s.push_back(p);  std::sort(s.begin(), s.end(), by_x);
///
/// Growing operations give the strong guarantee: if allocation fails they throw and the
/// container is as it was. Element access (operator[], iterators, push_back, insert, erase) is
/// for host-accessible memory; device containers are reached through view() in kernels.
///
/// Blocks come from a memory resource (<layout/memory_resource.hpp>; the memory space's default
/// unless one is given) and the container's device work is ordered on its stream (default: the
/// default stream), without synchronizing the device:
///
///     layout::cuda::soa_vector<P> a(n, P{}, stream_a);   // allocated and filled on stream_a
///     a.resize(2 * n);                                    // stream-ordered too
///     layout::cuda::aosoa<P, 32> b(a, stream_b);          // converted on stream_b
///     layout::soa_vector<P> back = a;                     // waits for stream_a only
///
/// Work that reads a container on another stream (b = a with a on stream_a, b on stream_b) is the
/// caller's to order (an event), as with RMM's containers. A copy into a container the host can
/// read (host, pinned, managed memory) returns with the elements there.
#pragma once

#include "config.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"
#include "transfer.hpp"
#include "view.hpp"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace layout {

namespace detail {
struct size_access;
struct block_access;
} // namespace detail

/// Tag for resize(n, for_overwrite): grow without writing the new elements.
struct for_overwrite_t {
    explicit for_overwrite_t() = default;
};
inline constexpr for_overwrite_t for_overwrite{};

template <class T, class Layout, class Memory = host_memory>
class vector {
    static_assert(!std::is_const_v<T>, "layout: a container's element type cannot be const");
    static_assert(assert_reflectable<T>());
    static_assert(memory_space<Memory>,
                  "layout: the container's third parameter is not a memory space (memory.hpp says "
                  "what one is: host_accessible, device_accessible, default_resource())");
    static_assert(layout_policy<Layout, T>,
                  "layout: the container's second parameter is not a layout: it must satisfy "
                  "layout::layout_policy (layouts/concept.hpp lists what a layout provides)");

    template <class, class, class>
    friend class vector;
    friend struct detail::size_access;
    friend struct detail::block_access;

public:
    using value_type = T;
    using layout_type = Layout;
    using memory_type = Memory;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using view_type = layout::view<T, Layout, Memory>;
    using const_view_type = layout::view<const T, Layout, Memory>;
    using reference = typename view_type::reference;
    using const_reference = typename const_view_type::reference;
    using iterator = typename view_type::iterator;
    using const_iterator = typename const_view_type::iterator;

    // ---- construction ---------------------------------------------------------------------

    vector() noexcept = default;

    /// An empty container whose device work will be ordered on stream, allocating from resource.
    explicit vector(stream_ref stream) noexcept : stream_(stream) {}
    template <class Resource>
    vector(stream_ref stream, Resource& resource) noexcept
        : resource_(fitting_resource(resource)), stream_(stream) {}
    /// The same with a resource_ref (throws std::invalid_argument if its accessibility differs
    /// from the memory space's).
    vector(stream_ref stream, resource_ref resource)
        : resource_(fitting_resource(resource)), stream_(stream) {}

    /// n value-initialized elements (T{}).
    // Constructors that allocate delegate to one that allocates nothing first, so that if a later
    // step throws, the destructor runs and frees what was allocated.
    explicit vector(size_type n, stream_ref stream = {}) : vector(n, T{}, stream) {}
    vector(size_type n, const T& value, stream_ref stream = {}) : vector(stream) {
        construct_filled(n, value);
    }
    template <class Resource>
    vector(size_type n, const T& value, stream_ref stream, Resource& resource)
        : vector(stream, resource) {
        construct_filled(n, value);
    }
    vector(std::initializer_list<T> values)
        requires Memory::host_accessible
        : vector(values.begin(), values.end()) {}

    template <std::input_iterator It, std::sentinel_for<It> S>
        requires Memory::host_accessible
    vector(It first, S last) : vector() {
        construct_from_range(first, last);
    }

    /// A copy allocates from the memory space's default resource (as std::pmr's containers do)
    /// and is ordered on other's stream; the forms with a stream and a resource choose both.
    vector(const vector& other) : vector(other, other.stream_) {}
    /// A move takes other's block, resource and stream; other is left empty with its resource
    /// and stream (as std::pmr containers keep their allocator), so reusing it allocates where
    /// it did before.
    vector(vector&& other) noexcept : resource_(other.resource_), stream_(other.stream_) {
        swap(other);
    }

    /// Converting copy from another layout and/or memory space.
    template <class L2, class M2>
    vector(const vector<T, L2, M2>& other) : vector(other, other.stream_) {}
    template <class L2, class M2>
    vector(const vector<T, L2, M2>& other, stream_ref stream) : vector(stream) {
        copy_from(other);
    }
    template <class L2, class M2, class Resource>
    vector(const vector<T, L2, M2>& other, stream_ref stream, Resource& resource)
        : vector(stream, resource) {
        copy_from(other);
    }

    /// The elements of a view of any layout and memory space, in one copy on stream (a view of
    /// host memory into a device container: one transfer, no host container in between).
    template <class L2, class M2>
    explicit vector(const layout::view<const T, L2, M2>& other, stream_ref stream = {})
        : vector(stream) {
        reallocate(other.size());
        detail::transfer_copy(other, view_type(storage(), other.size()), stream_);
        size_ = other.size();
    }
    /// The values of a contiguous host range (a std::vector<T>, an array), in one copy on stream:
    ///     layout::cuda::soa_vector<P> d(std::span<const P>(host_values), stream);
    explicit vector(std::span<const T> values, stream_ref stream = {})
        : vector(layout::view<const T, policy::aos>(values.data(), values.size()), stream) {}

    ~vector() { resource_.deallocate(block_, bytes_, block_alignment, stream_); }

    /// Copy assignment reuses the block when other fits in capacity() (no allocation, as
    /// std::vector does), copying through the same path as construction. The container keeps
    /// its resource and stream (a move takes other's, with its block). When it does not fit,
    /// a new block is allocated and filled first: if that throws, *this is unchanged. A copy
    /// into the reused block that fails part way (a device copy) leaves the size as it was and
    /// the elements valid but unspecified.
    vector& operator=(const vector& other) {
        if (this != &other) assign_elements(other);
        return *this;
    }
    vector& operator=(vector&& other) noexcept {
        vector(std::move(other)).swap(*this);
        return *this;
    }
    /// Converting assignment from another layout and/or memory space (reuses capacity too).
    template <class L2, class M2>
    vector& operator=(const vector<T, L2, M2>& other) {
        assign_elements(other);
        return *this;
    }
    vector& operator=(std::initializer_list<T> values)
        requires Memory::host_accessible
    {
        assign(values);
        return *this;
    }

    // ---- views ----------------------------------------------------------------------------

    view_type view() noexcept { return {storage(), size_}; }
    const_view_type view() const noexcept { return {storage(), size_}; }
    const_view_type cview() const noexcept { return {storage(), size_}; }

    /// view().column<Key, Rest...>(): one leaf of every element (column.hpp), in any memory
    /// space; a const container gives const leaves.
    template <auto Key, auto... Rest>
    auto column() & noexcept {
        return view().template column<Key, Rest...>();
    }
    template <auto Key, auto... Rest>
    auto column() const& noexcept {
        return view().template column<Key, Rest...>();
    }
    // A temporary container's block is freed at the end of the statement and its column would
    // dangle: ill-formed (compilers show the comment on the deleted line). A view is fine.
    template <auto Key, auto... Rest>
    void column() const&& = delete; // layout: would dangle; name the container

    /// view().select<Keys...>(): some fields of every element (selection.hpp); ill-formed on a
    /// temporary container, as column is.
    template <auto... Keys>
    auto select() & noexcept {
        return view().template select<Keys...>();
    }
    template <auto... Keys>
    auto select() const& noexcept {
        return view().template select<Keys...>();
    }
    template <auto... Keys>
    void select() const&& = delete; // layout: would dangle; name the container

    // ---- resource and stream ----------------------------------------------------------------

    resource_ref resource() const noexcept { return resource_; }
    stream_ref stream() const noexcept { return stream_; }
    /// Orders the container's later work on stream. Work already queued on the old stream is
    /// the caller's to order before it (an event), as for any two streams.
    void set_stream(stream_ref stream) noexcept { stream_ = stream; }

    // ---- size and capacity ----------------------------------------------------------------

    size_type size() const noexcept { return size_; }
    size_type capacity() const noexcept { return capacity_; }
    bool empty() const noexcept { return size_ == 0; }
    static constexpr size_type max_size() noexcept {
        return std::numeric_limits<std::ptrdiff_t>::max() / (sizeof(T) + 128);
    }

    void reserve(size_type n) {
        if (n > capacity_) reallocate(checked_size(n));
    }
    void shrink_to_fit() {
        if (capacity_ != rounded_capacity(size_)) reallocate(size_);
    }
    void clear() noexcept { size_ = 0; }

    void resize(size_type n) { resize(n, T{}); }
    void resize(size_type n, const T& value) {
        const T copy = value; // value may be an element (v.data()[k]) that reallocation frees
        if (n > capacity_) reallocate(checked_size(n));
        if (n > size_) fill(size_, n, copy);
        size_ = n;
    }
    /// Grows (or shrinks) to n without writing the new elements, for code that writes them
    /// next itself (a kernel filling [old size, n)): no fill kernel, no pass over the memory.
    /// Until written, their bytes are whatever the block held (as make_unique_for_overwrite).
    ///     c.resize(n, layout::for_overwrite);
    void resize(size_type n, for_overwrite_t) {
        if (n > capacity_) reallocate(checked_size(n));
        size_ = n;
    }

    // ---- element access (host-accessible memory) --------------------------------------------

    reference operator[](size_type i) noexcept
        requires Memory::host_accessible
    {
        return view()[i];
    }
    const_reference operator[](size_type i) const noexcept
        requires Memory::host_accessible
    {
        return view()[i];
    }
    reference at(size_type i)
        requires Memory::host_accessible
    {
        return view()[check_index(i)];
    }
    const_reference at(size_type i) const
        requires Memory::host_accessible
    {
        return view()[check_index(i)];
    }
    reference front() noexcept
        requires Memory::host_accessible
    {
        return (*this)[0];
    }
    const_reference front() const noexcept
        requires Memory::host_accessible
    {
        return (*this)[0];
    }
    reference back() noexcept
        requires Memory::host_accessible
    {
        return (*this)[size_ - 1];
    }
    const_reference back() const noexcept
        requires Memory::host_accessible
    {
        return (*this)[size_ - 1];
    }

    // A container's iterators are bounded by its capacity, not its size: std::vector's rules keep
    // an iterator valid past a push_back that does not reallocate (the end moves, the iterator
    // does not), and a debug build still stops a dereference past the block.
    iterator begin() noexcept
        requires Memory::host_accessible
    {
        return {capacity_view(), 0};
    }
    iterator end() noexcept
        requires Memory::host_accessible
    {
        return {capacity_view(), static_cast<difference_type>(size_)};
    }
    const_iterator begin() const noexcept
        requires Memory::host_accessible
    {
        return {const_view_type(capacity_view()), 0};
    }
    const_iterator end() const noexcept
        requires Memory::host_accessible
    {
        return {const_view_type(capacity_view()), static_cast<difference_type>(size_)};
    }
    const_iterator cbegin() const noexcept
        requires Memory::host_accessible
    {
        return begin();
    }
    const_iterator cend() const noexcept
        requires Memory::host_accessible
    {
        return end();
    }
    auto rbegin() noexcept
        requires Memory::host_accessible
    {
        return std::reverse_iterator(end());
    }
    auto rend() noexcept
        requires Memory::host_accessible
    {
        return std::reverse_iterator(begin());
    }
    auto rbegin() const noexcept
        requires Memory::host_accessible
    {
        return std::reverse_iterator(end());
    }
    auto rend() const noexcept
        requires Memory::host_accessible
    {
        return std::reverse_iterator(begin());
    }

    /// The elements as an array of T (AoS only: other layouts have no T objects in memory).
    // A requires-expression, not decltype in the clause: clang 14 reports naming a view::data()
    // whose own constraint fails as an error instead of an unsatisfied constraint.
    T* data() noexcept
        requires requires(const view_type& v) {
            { v.data() } -> std::same_as<T*>;
        }
    {
        return view().data();
    }
    const T* data() const noexcept
        requires requires(const view_type& v) {
            { v.data() } -> std::same_as<T*>;
        }
    {
        return view().data();
    }

    // ---- modifiers (host-accessible memory) -------------------------------------------------

    void push_back(const T& value)
        requires Memory::host_accessible
    {
        // As std::vector allows, value may be one of the elements (AoS: v.data()[k]): copy it
        // before reallocation frees the block it lives in.
        const T copy = value;
        if (size_ == capacity_) reallocate(grown_capacity(size_ + 1));
        view_type(storage(), size_ + 1)[size_] = copy;
        ++size_;
    }
    /// Constructs T from args: the fields (emplace_back(x, y, z, ...)), or one value that
    /// converts to T, such as another element's proxy (emplace_back(v[0])).
    template <class... Args>
    reference emplace_back(Args&&... args)
        requires Memory::host_accessible
    {
        push_back(make_value(std::forward<Args>(args)...));
        return back();
    }
    template <class... Args>
    iterator emplace(const_iterator pos, Args&&... args)
        requires Memory::host_accessible
    {
        return insert(pos, make_value(std::forward<Args>(args)...));
    }

    /// n copies of value; reuses the block when n fits in capacity().
    void assign(size_type n, const T& value) {
        if (n > capacity_) {
            vector fresh(stream_, resource_);
            fresh.construct_filled(n, value);
            swap(fresh);
            return;
        }
        const T copy = value; // value may be one of the elements that fill overwrites
        fill(0, n, copy);
        size_ = n;
    }
    template <std::input_iterator It, std::sentinel_for<It> S>
    void assign(It first, S last)
        requires Memory::host_accessible
    {
        // The range may be this container's own elements: a fresh container reads it whole
        // before anything is overwritten.
        vector fresh(stream_, resource_);
        fresh.construct_from_range(first, last);
        swap(fresh);
    }
    void assign(std::initializer_list<T> values)
        requires Memory::host_accessible
    {
        // The list holds copies, never this container's elements: it can be written in place.
        if (values.size() > capacity_) {
            assign(values.begin(), values.end());
            return;
        }
        const view_type to(storage(), values.size());
        size_type i = 0;
        for (const T& value : values) to[i++] = value;
        size_ = values.size();
    }

    void pop_back() noexcept
        requires Memory::host_accessible
    {
        LAYOUT_BOUNDS_CHECK(0, size_);
        --size_;
    }

    iterator insert(const_iterator pos, const T& value)
        requires Memory::host_accessible
    {
        return insert(pos, size_type{1}, value);
    }
    iterator insert(const_iterator pos, size_type count, const T& value)
        requires Memory::host_accessible
    {
        const size_type at = insertion_point(pos);
        const T copy = value; // value may be an element that opening the gap moves or frees
        open_gap(at, count);
        fill(at, at + count, copy);
        return begin() + static_cast<difference_type>(at);
    }
    template <std::input_iterator It, std::sentinel_for<It> S>
    iterator insert(const_iterator pos, It first, S last)
        requires Memory::host_accessible
    {
        const size_type at = insertion_point(pos);
        // Materialize first: the range may alias this container or throw while being read, and
        // neither may leave a half-done insertion behind.
        vector<T, policy::aos, host_memory> values(first, last);
        open_gap(at, values.size());
        // One view each, not one per element: operator[] rebuilds the view (for SoA, a pointer
        // per column) on every call.
        const view_type to = view();
        const auto from = values.cview();
        for (size_type k = 0; k < from.size(); ++k) to[at + k] = from[k].load();
        return begin() + static_cast<difference_type>(at);
    }
    iterator insert(const_iterator pos, std::initializer_list<T> values)
        requires Memory::host_accessible
    {
        return insert(pos, values.begin(), values.end());
    }

    iterator erase(const_iterator pos)
        requires Memory::host_accessible
    {
        return erase(pos, pos + 1);
    }
    iterator erase(const_iterator first, const_iterator last)
        requires Memory::host_accessible
    {
        const size_type from = static_cast<size_type>(first.index());
        const size_type to = static_cast<size_type>(last.index());
        if (from > to || to > size_) detail::fail("erase: range out of bounds", to, size_);
        move_elements(to, from, size_ - to);
        size_ -= to - from;
        return begin() + static_cast<difference_type>(from);
    }

    void swap(vector& other) noexcept {
        std::swap(block_, other.block_);
        std::swap(bytes_, other.bytes_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
        std::swap(storage_, other.storage_);
        std::swap(resource_, other.resource_);
        std::swap(stream_, other.stream_);
    }
    friend void swap(vector& a, vector& b) noexcept { a.swap(b); }

    /// Equal sizes and every leaf equal (host-accessible memory, any two layouts).
    template <class L2, class M2>
        requires(Memory::host_accessible && M2::host_accessible)
    friend bool operator==(const vector& a, const vector<T, L2, M2>& b) noexcept {
        if (a.size() != b.size()) return false;
        const auto va = a.cview();
        const auto vb = b.cview();
        for (size_type i = 0; i < va.size(); ++i)
            if (!(va[i] == vb[i])) return false;
        return true;
    }

private:
    /// The constructors' copy: a block of other.size() elements, then the elements.
    template <class L2, class M2>
    void copy_from(const vector<T, L2, M2>& other) {
        reallocate(other.size_);
        detail::transfer_copy(other.cview(), view_type(storage(), other.size_),
                              transfer_stream(other));
        size_ = other.size_;
    }

    /// The stream a copy from other runs on: this container's, or other's where this one is in
    /// pageable host memory (which has no stream of its own: the source's work is what to wait
    /// for).
    template <class L2, class M2>
    stream_ref transfer_stream(const vector<T, L2, M2>& other) const noexcept {
        return Memory::device_accessible ? stream_ : other.stream_;
    }

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

    template <class It, class S>
    void construct_from_range(It first, S last) {
        if constexpr (std::forward_iterator<It>) {
            reallocate(checked_size(static_cast<size_type>(std::ranges::distance(first, last))));
            for (; first != last; ++first, ++size_)
                view_type(storage(), size_ + 1)[size_] = T(*first);
        } else {
            for (; first != last; ++first) push_back(T(*first));
        }
    }

    void construct_filled(size_type n, const T& value) {
        reallocate(checked_size(n));
        fill(0, n, value);
        size_ = n;
    }

    /// *this = other: into the current block when other fits, else into a new one (allocated
    /// and filled before the old one is let go: strong guarantee). Storage that overlaps
    /// other's (only self-assignment does, as each container owns its block) is never written
    /// while it is read: it goes through a fresh block.
    template <class L2, class M2>
    void assign_elements(const vector<T, L2, M2>& other) {
        const size_type n = other.size_;
        if (n > capacity_ || detail::views_overlap(view_type(storage(), n), other.cview())) {
            vector fresh(stream_, resource_);
            fresh.copy_from(other);
            swap(fresh);
            return;
        }
        detail::transfer_copy(other.cview(), view_type(storage(), n), transfer_stream(other));
        size_ = n;
    }

    /// T{args...}, or T(arg) for one argument that converts to T: T{proxy} would try to
    /// initialize T's first member from the proxy.
    template <class... Args>
    static T make_value(Args&&... args) {
        if constexpr (sizeof...(Args) == 1 && (std::is_convertible_v<Args&&, const T&> && ...))
            return static_cast<T>((std::forward<Args>(args), ...));
        else
            return T{std::forward<Args>(args)...};
    }

    using storage_type = typename view_type::storage_type;

    view_type capacity_view() const noexcept { return {storage(), capacity_}; }

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
        const view_type fresh(view_type::storage_type::from_block(block, capacity), size_);
        try {
            // A device space's copy can fail (a launch): the new block is ours to free.
            detail::transfer_prepare_block(view_type(fresh.storage(), capacity), stream_);
            if (size_) detail::transfer_copy(cview(), fresh, stream_);
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

    void fill(size_type first, size_type last, const T& value) {
        if (first < last)
            detail::transfer_fill(view_type(storage(), last), first, last, value, stream_);
    }

    /// Moves count elements from index from to index to (ranges may overlap): one memmove per
    /// run where the layout's elements can start anywhere and its runs move independently
    /// (AoS, SoA), else element by element.
    void move_elements(size_type from, size_type to, size_type count) noexcept {
        if (count == 0 || from == to) return;
        const view_type v(storage(), capacity_);
        if constexpr (requires { v.storage().advanced(from); }) {
            const view_type d(v.storage().advanced(to), count);
            const const_view_type s(v.storage().advanced(from), count);
            if (detail::runs_move_independently(d, s, count)) {
                detail::for_each_run(d, s, count, [](void* dp, const void* sp, std::size_t bytes) {
                    std::memmove(dp, sp, bytes);
                });
                return;
            }
        }
        if (to < from) {
            for (size_type k = 0; k < count; ++k) v[to + k] = v[from + k].load();
        } else {
            for (size_type k = count; k-- > 0;) v[to + k] = v[from + k].load();
        }
    }

    /// Makes room for count elements at index at; may reallocate (strong guarantee).
    void open_gap(size_type at, size_type count) {
        if (count == 0) return;
        if (count > max_size() - size_)
            throw std::length_error("layout::vector::insert: " + std::to_string(count) +
                                    " more elements exceed max_size()");
        if (size_ + count > capacity_) reallocate(grown_capacity(size_ + count));
        move_elements(at, at + count, size_ - at);
        size_ += count;
    }

    size_type insertion_point(const const_iterator& pos) const {
        const auto at = pos.index();
        if (at < 0 || static_cast<size_type>(at) > size_)
            detail::fail("insert: position out of bounds", static_cast<size_type>(at), size_);
        return static_cast<size_type>(at);
    }

    size_type check_index(size_type i) const {
        if (i >= size_)
            throw std::out_of_range("layout::vector::at: index " + std::to_string(i) +
                                    " is out of range for size " + std::to_string(size_));
        return i;
    }

    void* block_ = nullptr;
    // Always storage_type::from_block(block_, capacity_); set with them (reallocate, swap).
    storage_type storage_{};
    size_type bytes_ = 0;
    size_type size_ = 0;
    size_type capacity_ = 0;
    resource_ref resource_ = Memory::default_resource();
    stream_ref stream_{};
};

namespace detail {
/// A container's block, exchanged with another of the same resource and alignment: for
/// algorithms that write the reordered elements into a second block and keep it (double
/// buffering, cuda/workspace.hpp), the old block going where the new one came from.
struct block_access {
    template <class V>
    static void exchange(V& v, void*& block, std::size_t& bytes, std::size_t& capacity) noexcept {
        std::swap(v.block_, block);
        std::swap(v.bytes_, bytes);
        std::swap(v.capacity_, capacity);
        v.storage_ = V::storage_type::from_block(v.block_, v.capacity_);
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
/// written elements [size(), n) itself, such as a kernel appending (cuda/append.hpp).
struct size_access {
    template <class V>
    static void set(V& v, std::size_t n) noexcept {
        LAYOUT_BOUNDS_CHECK(n, v.capacity_ + 1);
        v.size_ = n;
    }
};
} // namespace detail

/// The three layouts by name; Memory defaults to the host.
template <class T, class Memory = host_memory>
using aos_vector = vector<T, policy::aos, Memory>;
template <class T, class Memory = host_memory>
using soa_vector = vector<T, policy::soa, Memory>;
template <class T, std::size_t Lanes, class Memory = host_memory>
using aosoa = vector<T, policy::aosoa<Lanes>, Memory>;

} // namespace layout
