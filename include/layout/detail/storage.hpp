/// \file detail/storage.hpp
/// What a view holds for each layout (pointers), and the cursor it hands to an element proxy: the
/// minimum needed to reach every leaf of one element.
#pragma once

#include "../config.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"

#include <cstddef>
#include <type_traits>

namespace layout::detail {

template <class From, class To>
using copy_const_t = std::conditional_t<std::is_const_v<From>, const To, To>;

/// p[i], through a __restrict__ parameter. Passing the address through restrict is what lets
/// nvcc treat a view like a hand-written kernel's restrict pointers: loads of columns that the
/// kernel never writes become read-only-cache loads (ld.global.nc), as in the raw kernel.
/// The contract is the kernel parameter's: within one kernel, memory written through a view is
/// not also accessed through another view or pointer.
template <class Leaf>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE Leaf& restrict_at(Leaf* LAYOUT_RESTRICT p,
                                                        std::size_t i) noexcept {
    return p[i];
}

template <class E, class Layout>
struct storage;

// ---- AoS: a pointer to the first element --------------------------------------------------

template <class E>
struct aos_cursor {
    E* element;
    template <std::size_t L>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE copy_const_t<E, leaf_t<E, L>>& leaf() const noexcept {
        return leaf_ref<L>(*element);
    }
};

template <class E>
struct storage<E, policy::aos> {
    using cursor = aos_cursor<E>;
    E* data;

    static storage from_block(copy_const_t<E, void>* block, std::size_t /*capacity*/) noexcept {
        return {static_cast<E*>(block)};
    }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        return {&restrict_at(data, i)};
    }
    template <class Mutable = E>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator storage<const Mutable, policy::aos>() const noexcept
    {
        return {data};
    }
};

// ---- SoA: one pointer per leaf ------------------------------------------------------------

// The cursor copies the pointers rather than pointing at the view's array, so that a proxy
// outlives the temporary view or iterator it came from; inlined, the copy costs nothing.
template <class E>
struct soa_cursor {
    copy_const_t<E, void>* columns[leaf_count_v<E>];
    std::size_t index;
    template <std::size_t L>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE copy_const_t<E, leaf_t<E, L>>& leaf() const noexcept {
        return restrict_at(static_cast<copy_const_t<E, leaf_t<E, L>>*>(columns[L]), index);
    }
};

template <class E>
struct storage<E, policy::soa> {
    using cursor = soa_cursor<E>;
    using column_pointer = copy_const_t<E, void>*;
    column_pointer columns[leaf_count_v<E>];

    static storage from_block(column_pointer block, std::size_t capacity) noexcept {
        using byte = copy_const_t<E, std::byte>;
        using map = mapping<std::remove_const_t<E>, policy::soa>;
        storage s{};
        s.columns[0] = block;
        for (std::size_t l = 1; l < leaf_count_v<E>; ++l)
            s.columns[l] = static_cast<byte*>(s.columns[l - 1]) + map::column_stride(l - 1, capacity);
        return s;
    }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        cursor c;
        LAYOUT_UNROLL
        for (std::size_t l = 0; l < leaf_count_v<E>; ++l) c.columns[l] = columns[l];
        c.index = i;
        return c;
    }
    template <class Mutable = E>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator storage<const Mutable, policy::soa>() const noexcept
    {
        storage<const E, policy::soa> s{};
        for (std::size_t l = 0; l < leaf_count_v<E>; ++l) s.columns[l] = columns[l];
        return s;
    }
};

// ---- AoSoA: a pointer to the first block ----------------------------------------------------

template <class E, std::size_t Lanes>
struct aosoa_cursor {
    using byte = copy_const_t<E, std::byte>;
    using map = mapping<std::remove_const_t<E>, policy::aosoa<Lanes>>;
    byte* block;
    std::size_t lane;
    template <std::size_t L>
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE copy_const_t<E, leaf_t<E, L>>& leaf() const noexcept {
        using leaf_type = copy_const_t<E, leaf_t<E, L>>;
        return restrict_at(reinterpret_cast<leaf_type*>(block + map::lane_offsets[L]), lane);
    }
};

template <class E, std::size_t Lanes>
struct storage<E, policy::aosoa<Lanes>> {
    using cursor = aosoa_cursor<E, Lanes>;
    using byte = copy_const_t<E, std::byte>;
    byte* data;

    static storage from_block(copy_const_t<E, void>* block, std::size_t /*capacity*/) noexcept {
        return {static_cast<byte*>(block)};
    }
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        return {data + i / Lanes * cursor::map::block_bytes, i % Lanes};
    }
    template <class Mutable = E>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator storage<const Mutable, policy::aosoa<Lanes>>() const noexcept
    {
        return {data};
    }
};

// ---- One AoSoA block, held: what layout::for_each_index hands a functor under aosoa<N> -------

/// The layout tag of a view whose storage holds one AoSoA block and the index of its first
/// element. Elements are indexed as in the whole aosoa<Lanes> view (i, not i % Lanes), so a
/// functor's v[i] keeps its meaning; for an i of the held block the lane is i - first, affine in
/// i, so a loop over the block's lanes vectorizes like a hand-written block/lane loop (i % Lanes
/// and i / Lanes are not affine in i: a loop over v[i] of a whole aosoa view stays scalar).
template <std::size_t Lanes>
struct aosoa_block {
    static constexpr std::size_t lanes = Lanes;
};

template <class E, std::size_t Lanes>
struct storage<E, aosoa_block<Lanes>> {
    using cursor = aosoa_cursor<E, Lanes>;
    using byte = copy_const_t<E, std::byte>;
    byte* block;       ///< the block holding elements [first, first + Lanes)
    std::size_t first; ///< a multiple of Lanes

    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
        const std::size_t lane = i - first; // wraps for i < first: then not < Lanes
        if (lane < Lanes) return {block, lane}; // in for_each_index's lane loop the test folds away
        // Another block (a functor reaching past element i): the whole view's arithmetic.
        byte* data = block - first / Lanes * cursor::map::block_bytes;
        return {data + i / Lanes * cursor::map::block_bytes, i % Lanes};
    }
    template <class Mutable = E>
        requires(!std::is_const_v<Mutable>)
    LAYOUT_HOST_DEVICE operator storage<const Mutable, aosoa_block<Lanes>>() const noexcept
    {
        return {block, first};
    }
};

} // namespace layout::detail
