/// \file cuda/interop.hpp
/// Columns as libcu++ spans and mdspans, for kernels and libraries that take them, and raw
/// column pointers for thrust and CUB.
///
///     layout::cuda::soa_vector<Particle> dev = host;
///     cuda::std::span<float> x = layout::cuda::column_span<&Particle::x>(dev.view());
///     auto m = layout::cuda::column_mdspan<&Particle::mass>(dev.view());   // any layout
///     kernel<<<g, b>>>(x, m);                   // both are trivially copyable, device-usable
///     thrust::transform(thrust::device, x.data(), x.data() + x.size(), x.data(), op);
///
/// What each layout gives for one column (E is the leaf type, n the view's size):
///
///     soa        column_span:   cuda::std::span<E>{column, n}
///                column_mdspan: cuda::std::mdspan<E, dextents<size_t, 1>>            (layout_right)
///     aos        column_mdspan: cuda::std::mdspan<E, dextents<size_t, 1>, layout_stride>,
///                               stride sizeof(T) / sizeof(E): Particle's x -> 0, 8, 16, ...
///     aosoa<N>   column_mdspan: cuda::std::mdspan<E, dextents<size_t, 1>,
///                                                 layout::cuda::layout_aosoa<N, B>>,
///                               B = block bytes / sizeof(E): i -> (i / N) * B + i % N
///
/// AoS and AoSoA columns are not contiguous, so they have no span. Each function takes a view,
/// in any memory (the result points where the view points; host-device), or a named container
/// (its view(); a const container gives const leaves; host only; a temporary container is
/// refused, as its block is freed at the end of the statement). Columns are named as in
/// view::column: column_mdspan<&Body::pos, &Vec3::y>(v). The host-side std::span and
/// strided_span are in <layout/span.hpp>.
///
/// Not provided: one mdspan of rank 2 (element, leaf) over a whole view. SoA columns are
/// separate allocations as far as a view knows (one pointer each), and AoS leaves differ in
/// type; a kernel wanting several columns takes several mdspans.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/interop.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../vector.hpp"
#include "../view.hpp"

#include <cuda/std/array>
#include <cuda/std/mdspan>
#include <cuda/std/span>

#include <cstddef>
#include <type_traits>

namespace layout::cuda {

/// mdspan layout of one AoSoA column: Lanes consecutive values, then a jump to the next block,
/// BlockStride values of the leaf type after the start of this one. Rank 1.
///
///     layout_aosoa<32, 256>::mapping<dextents<size_t, 1>> m(dextents<size_t, 1>(70));
///     m(0) == 0, m(31) == 31, m(32) == 256, m(69) == 2 * 256 + 5, m.required_span_size() == 518
template <std::size_t Lanes, std::size_t BlockStride>
struct layout_aosoa {
    static_assert(Lanes >= 1 && BlockStride >= Lanes,
                  "layout: layout_aosoa needs at least one lane and a block of at least Lanes values");

    template <class Extents>
    class mapping {
        static_assert(Extents::rank() == 1, "layout: layout_aosoa maps one column: rank 1 only");

    public:
        using extents_type = Extents;
        using index_type = typename Extents::index_type;
        using size_type = typename Extents::size_type;
        using rank_type = typename Extents::rank_type;
        using layout_type = layout_aosoa;

        mapping() = default;
        LAYOUT_HOST_DEVICE constexpr explicit mapping(const extents_type& e) noexcept : extents_(e) {}

        LAYOUT_HOST_DEVICE constexpr const extents_type& extents() const noexcept { return extents_; }

        LAYOUT_HOST_DEVICE constexpr index_type operator()(index_type i) const noexcept {
            return i / index_type(Lanes) * index_type(BlockStride) + i % index_type(Lanes);
        }
        /// One past the largest offset: what the memory behind the data handle must hold.
        LAYOUT_HOST_DEVICE constexpr index_type required_span_size() const noexcept {
            const index_type n = extents_.extent(0);
            return n == 0 ? 0 : (*this)(n - 1) + 1;
        }

        LAYOUT_HOST_DEVICE static constexpr bool is_always_unique() noexcept { return true; }
        LAYOUT_HOST_DEVICE static constexpr bool is_always_exhaustive() noexcept {
            return Lanes == BlockStride;
        }
        LAYOUT_HOST_DEVICE static constexpr bool is_always_strided() noexcept {
            return Lanes == BlockStride;
        }
        LAYOUT_HOST_DEVICE static constexpr bool is_unique() noexcept { return true; }
        LAYOUT_HOST_DEVICE constexpr bool is_exhaustive() const noexcept {
            return Lanes == BlockStride || extents_.extent(0) <= index_type(Lanes);
        }
        LAYOUT_HOST_DEVICE constexpr bool is_strided() const noexcept {
            return Lanes == BlockStride || extents_.extent(0) <= index_type(Lanes);
        }
        /// Only meaningful where is_strided(): then consecutive values are adjacent.
        LAYOUT_HOST_DEVICE constexpr index_type stride(rank_type) const noexcept { return 1; }

        template <class OtherExtents>
        LAYOUT_HOST_DEVICE friend constexpr bool operator==(const mapping& a,
                                                           const mapping<OtherExtents>& b) noexcept {
            return a.extents() == b.extents();
        }

    private:
        extents_type extents_{};
    };
};

namespace detail {

/// Leaf L of the first element of a block-based view (AoS: the first element; AoSoA: the first
/// block), computed from the byte offset alone: nothing is dereferenced, so this is fine on the
/// host for a view of device memory.
template <std::size_t Offset, class E, class Byte>
LAYOUT_HOST_DEVICE E* leaf_at(Byte* base) noexcept {
    return base ? reinterpret_cast<E*>(base + Offset) : nullptr;
}

template <class View, std::size_t Leaf>
using column_element_t = typename layout::column<View, Leaf>::element_type;

template <class View, std::size_t Leaf>
LAYOUT_HOST_DEVICE auto column_mdspan_of(const View& v) noexcept {
    using T = typename View::value_type;
    using L = typename View::layout_type;
    using E = column_element_t<View, Leaf>;
    using byte = layout::detail::copy_const_t<E, std::byte>;
    using ext = ::cuda::std::dextents<std::size_t, 1>;
    using map = layout::mapping<T, L>;
    if constexpr (layout::detail::contiguous_columns_v<View>) {
        return ::cuda::std::mdspan<E, ext>(layout::column<View, Leaf>(v).data(), v.size());
    } else if constexpr (requires { map::element_stride; }) {
        static_assert(map::element_stride % sizeof(E) == 0,
                      "layout: column_mdspan: sizeof(T) is not a multiple of this leaf's size, so "
                      "an AoS column has no stride in whole leaves (index view.column<...>() "
                      "instead)");
        constexpr std::size_t offset = layout::detail::leaf_table<T>[Leaf].offset;
        using mapping = ::cuda::std::layout_stride::mapping<ext>;
        const ::cuda::std::array<std::size_t, 1> strides{map::element_stride / sizeof(E)};
        E* first = leaf_at<offset, E>(reinterpret_cast<byte*>(v.data()));
        return ::cuda::std::mdspan<E, ext, ::cuda::std::layout_stride>(first,
                                                                     mapping(ext(v.size()), strides));
    } else {
        // A blocked layout: leaf_run lanes of each leaf together in blocks of block_bytes.
        constexpr std::size_t offset = map::lane_offsets[Leaf];
        static_assert(map::block_bytes % sizeof(E) == 0 && offset % sizeof(E) == 0,
                      "layout: column_mdspan: this AoSoA block is not a whole number of this "
                      "leaf's values (index view.column<...>() instead)");
        using aosoa_layout = layout_aosoa<map::leaf_run, map::block_bytes / sizeof(E)>;
        using mapping = typename aosoa_layout::template mapping<ext>;
        E* first = leaf_at<offset, E>(v.data());
        return ::cuda::std::mdspan<E, ext, aosoa_layout>(first, mapping(ext(v.size())));
    }
}

} // namespace detail

/// A SoA column (view.column<&P::x>()) as a cuda::std::span.
template <class View, std::size_t Leaf>
    requires layout::detail::contiguous_columns_v<View>
LAYOUT_HOST_DEVICE auto as_span(const layout::column<View, Leaf>& c) noexcept {
    return ::cuda::std::span<detail::column_element_t<View, Leaf>>(c.data(), c.size());
}

/// One leaf of every element of a SoA view as a cuda::std::span.
///
///     layout::cuda::soa_vector<Particle> dev(n);
///     cuda::std::span<float> vx = layout::cuda::column_span<&Particle::vx>(dev.view());
template <auto Key, auto... Rest, class T, class L>
LAYOUT_HOST_DEVICE auto column_span(const layout::view<T, L>& v) noexcept {
    static_assert(layout::detail::contiguous_columns_v<layout::view<T, L>>,
                  "layout: column_span needs a SoA view or container (other layouts' columns are "
                  "not contiguous): use column_mdspan, which serves every layout");
    return as_span(v.template column<Key, Rest...>());
}
/// The same for a container (any memory space): the span points into its block.
template <auto Key, auto... Rest, class T, class L, class M>
auto column_span(layout::vector<T, L, M>& c) noexcept {
    return column_span<Key, Rest...>(c.view());
}
template <auto Key, auto... Rest, class T, class L, class M>
auto column_span(const layout::vector<T, L, M>& c) noexcept {
    return column_span<Key, Rest...>(c.view());
}
// A span of a temporary container (column_span<&P::x>(make_device_soa())) would point into a
// block freed at the end of the statement: ill-formed (compilers show the comment on the
// deleted line). A view is fine.
template <auto Key, auto... Rest, class T, class L, class M>
void column_span(vector<T, L, M>&&) = delete; // layout: would dangle; name the container
template <auto Key, auto... Rest, class T, class L, class M>
void column_span(const vector<T, L, M>&&) = delete; // layout: would dangle; name the container

/// One leaf of every element of a view of any layout as a cuda::std::mdspan of rank 1: m(i) is
/// element i's leaf, m.extent(0) the view's size.
///
///     auto x = layout::cuda::column_mdspan<&Particle::x>(aos_dev.view());  // layout_stride, 8
///     x(3) = 1.f;                                                          // in a kernel
template <auto Key, auto... Rest, class T, class L>
LAYOUT_HOST_DEVICE auto column_mdspan(const layout::view<T, L>& v) noexcept {
    using V = layout::view<T, L>;
    return detail::column_mdspan_of<V, layout::detail::leaf_of_path<std::remove_const_t<T>, Key,
                                                                    Rest...>()>(v);
}
/// The same for a container (any memory space).
template <auto Key, auto... Rest, class T, class L, class M>
auto column_mdspan(layout::vector<T, L, M>& c) noexcept {
    return column_mdspan<Key, Rest...>(c.view());
}
template <auto Key, auto... Rest, class T, class L, class M>
auto column_mdspan(const layout::vector<T, L, M>& c) noexcept {
    return column_mdspan<Key, Rest...>(c.view());
}
// The same for an mdspan of a temporary container.
template <auto Key, auto... Rest, class T, class L, class M>
void column_mdspan(vector<T, L, M>&&) = delete; // layout: would dangle; name the container
template <auto Key, auto... Rest, class T, class L, class M>
void column_mdspan(const vector<T, L, M>&&) = delete; // layout: would dangle; name the container

} // namespace layout::cuda
