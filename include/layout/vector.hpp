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
///
/// The block, its resource and stream, growth and copies are the base's (owned_block.hpp); this
/// header is the std::vector interface over them.
#pragma once

#include "config.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "owned_block.hpp"
#include "policies.hpp"
#include "runs.hpp"
#include "view.hpp"

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace layout {

/// Tag for resize(n, for_overwrite): grow without writing the new elements.
struct for_overwrite_t {
    explicit for_overwrite_t() = default;
};
inline constexpr for_overwrite_t for_overwrite{};

template <class T, class Layout, class Memory = host_memory>
class vector : private detail::owned_block<T, Layout, Memory> {
    static_assert(!std::is_const_v<T>, "layout: a container's element type cannot be const");
    static_assert(assert_reflectable<T>());
    static_assert(memory_space<Memory>,
                  "layout: the container's third parameter is not a memory space (memory.hpp says "
                  "what one is: host_accessible, device_accessible, default_resource())");
    static_assert(layout_policy<Layout, T>,
                  "layout: the container's second parameter is not a layout: it must satisfy "
                  "layout::layout_policy (layouts/concept.hpp lists what a layout provides)");

    using block = detail::owned_block<T, Layout, Memory>;
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
    explicit vector(stream_ref stream) noexcept : block(stream) {}
    template <class Resource>
    vector(stream_ref stream, Resource& resource) noexcept : block(stream, resource) {}
    /// The same with a resource_ref (throws std::invalid_argument if its accessibility differs
    /// from the memory space's).
    vector(stream_ref stream, resource_ref resource) : block(stream, resource) {}

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
    vector(const vector& other) : vector(other, other.stream()) {}
    /// A move takes other's block, resource and stream; other is left empty with its resource
    /// and stream (as std::pmr containers keep their allocator), so reusing it allocates where
    /// it did before.
    vector(vector&& other) noexcept = default;

    /// Converting copy from another layout and/or memory space.
    template <class L2, class M2>
    vector(const vector<T, L2, M2>& other) : vector(other, other.stream()) {}
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
        copy_from(other);
    }
    /// The values of a contiguous host range (a std::vector<T>, an array), in one copy on stream:
    ///     layout::cuda::soa_vector<P> d(std::span<const P>(host_values), stream);
    explicit vector(std::span<const T> values, stream_ref stream = {})
        : vector(layout::view<const T, policy::aos>(values.data(), values.size()), stream) {}

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
    using block::max_size;

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

    void swap(vector& other) noexcept { block::swap(other); }
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
    // What the element interface uses of the block (owned_block.hpp).
    using block::assign_elements;
    using block::capacity_;
    using block::checked_size;
    using block::construct_filled;
    using block::copy_from;
    using block::fill;
    using block::grown_capacity;
    using block::reallocate;
    using block::resource_;
    using block::rounded_capacity;
    using block::size_;
    using block::storage;
    using block::stream_;

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

    /// T{args...}, or T(arg) for one argument that converts to T: T{proxy} would try to
    /// initialize T's first member from the proxy.
    template <class... Args>
    static T make_value(Args&&... args) {
        if constexpr (sizeof...(Args) == 1 && (std::is_convertible_v<Args&&, const T&> && ...))
            return static_cast<T>((std::forward<Args>(args), ...));
        else
            return T{std::forward<Args>(args)...};
    }

    view_type capacity_view() const noexcept { return {storage(), capacity_}; }

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
};

/// The three layouts by name; Memory defaults to the host.
template <class T, class Memory = host_memory>
using aos_vector = vector<T, policy::aos, Memory>;
template <class T, class Memory = host_memory>
using soa_vector = vector<T, policy::soa, Memory>;
template <class T, std::size_t Lanes, class Memory = host_memory>
using aosoa = vector<T, policy::aosoa<Lanes>, Memory>;

} // namespace layout
