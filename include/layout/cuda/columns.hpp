/// \file cuda/columns.hpp
/// column::mdspan(): any layout's column as a libcu++ cuda::std::mdspan of rank 1, for kernels and
/// libraries that take one (column.hpp has the column itself; <layout/layout.hpp> includes this
/// header when compiled by nvcc).
///
///     layout::cuda::aos_vector<Particle> dev = host;
///     auto m = dev.column<&Particle::mass>().mdspan();   // trivially copyable, device-usable
///     kernel<<<g, b>>>(m);                               // m(i) is element i's mass
///
/// What each layout gives for one column (E is the leaf type, n the view's size):
///
///     soa        cuda::std::mdspan<E, dextents<size_t, 1>>                     (layout_right)
///     aos        cuda::std::mdspan<E, dextents<size_t, 1>, layout_stride>,
///                stride sizeof(T) / sizeof(E): Particle's x -> 0, 8, 16, ...
///     aosoa<N>   cuda::std::mdspan<E, dextents<size_t, 1>, layout::cuda::layout_aosoa<N, B>>,
///                B = block bytes / sizeof(E): i -> (i / N) * B + i % N
///
/// The mdspan points where the view points (any memory); nothing is read to build it.
///
/// Not provided: one mdspan of rank 2 (element, leaf) over a whole view. SoA columns are
/// separate allocations as far as a view knows (one pointer each), and AoS leaves differ in
/// type; a kernel wanting several columns takes several mdspans.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/columns.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../column.hpp"
#include "../config.hpp"
#include "../policies.hpp"

#include <cuda/std/array>
#include <cuda/std/mdspan>

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
    static_assert(
        Lanes >= 1 && BlockStride >= Lanes,
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
        LAYOUT_HOST_DEVICE constexpr explicit mapping(const extents_type& e) noexcept
            : extents_(e) {}

        LAYOUT_HOST_DEVICE constexpr const extents_type& extents() const noexcept {
            return extents_;
        }

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
        LAYOUT_HOST_DEVICE friend constexpr bool
        operator==(const mapping& a, const mapping<OtherExtents>& b) noexcept {
            return a.extents() == b.extents();
        }

    private:
        extents_type extents_{};
    };
};

} // namespace layout::cuda

namespace layout::detail {

/// column::mdspan() (found through prefer's namespace; column.hpp's prefer<0> overload says
/// which header is missing).
template <class View, std::size_t Leaf>
LAYOUT_HOST_DEVICE auto mdspan_of(const layout::column<View, Leaf>& c, prefer<1>) noexcept {
    using C = layout::column<View, Leaf>;
    using E = typename C::element_type;
    using ext = ::cuda::std::dextents<std::size_t, 1>;
    if constexpr (C::is_contiguous) {
        return ::cuda::std::mdspan<E, ext>(c.data(), c.size());
    } else if constexpr (C::is_strided) {
        using mapping = ::cuda::std::layout_stride::mapping<ext>;
        const ::cuda::std::array<std::size_t, 1> strides{c.stride()};
        return ::cuda::std::mdspan<E, ext, ::cuda::std::layout_stride>(
            c.data(), mapping(ext(c.size()), strides));
    } else {
        // A blocked layout: leaf_run lanes of each leaf together in blocks of block_bytes.
        using map = layout::mapping<typename View::value_type, typename View::layout_type>;
        constexpr std::size_t offset = map::lane_offsets[Leaf];
        static_assert(map::block_bytes % sizeof(E) == 0 && offset % sizeof(E) == 0,
                      "layout: column::mdspan(): this AoSoA block is not a whole number of this "
                      "leaf's values (index the column instead)");
        using aosoa_layout =
            layout::cuda::layout_aosoa<map::leaf_run, map::block_bytes / sizeof(E)>;
        using mapping = typename aosoa_layout::template mapping<ext>;
        using byte = copy_const_t<E, std::byte>;
        byte* base = c.view().data();
        E* first = base ? reinterpret_cast<E*>(base + offset) : nullptr;
        return ::cuda::std::mdspan<E, ext, aosoa_layout>(first, mapping(ext(c.size())));
    }
}

} // namespace layout::detail
