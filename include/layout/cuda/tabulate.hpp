/// \file cuda/tabulate.hpp
/// Writes new elements on the GPU: v[i] = f(i) for every i of [first, last) (thrust::tabulate's
/// contract), in any layout, with every store coalesced.
///
///     c.resize(n, layout::for_overwrite);                       // room for the newcomers
///     layout::cuda::tabulate(c, kept, n, new_particle{...});    // c[i] = f(i), on c.stream()
///     layout::cuda::tabulate(view, first, last, f, stream);     // a view: the stream is given
///
/// One thread makes one element, as a hand-written kernel does. Where the layout keeps whole
/// elements together (AoS, or a split's AoS part: x, y, z of 24 bytes), a thread's stores
/// would be sizeof-apart pieces that fill each sector only together with the neighbours'
/// stores; the kernel instead puts each element into shared memory and the block writes its
/// elements out as consecutive 16-, 8- or 4-byte units, a warp writing whole sectors per
/// instruction. Columns (SoA, AoSoA, a split's SoA part) are written by each thread directly:
/// already coalesced. Nothing is read, so the elements may be uninitialized
/// (resize(n, for_overwrite)). Parts whose elements are not a multiple of 4 bytes, larger than
/// 128 bytes or not 4-byte aligned are written directly too.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/tabulate.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../config.hpp"
#include "../memory_resource.hpp"
#include "../reflect.hpp"
#include "../view.hpp"
#include "detail/launch.hpp"
#include "error.hpp"
#include "for_each_element.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

/// Which part of a view's storage tabulate stages: the part's element type, whether leaf L of T
/// lies in it and where, and the part's pointer. None (part = void) where no part keeps whole
/// elements behind one pointer.
template <class T, class Layout>
struct staged_part {
    using part = void;
};
template <class T, class Layout>
    requires stages_elements_v<T, Layout>
struct staged_part<T, Layout> {
    using part = T;
    static constexpr bool holds(std::size_t) { return true; }
    static constexpr std::size_t index(std::size_t leaf) { return leaf; }
    template <class S>
    static T* pointer(const S& s) {
        return s.split([](T* p) { return p; });
    }
};
/// A split: its first part where that part keeps whole elements, else its second.
template <class T, class Layout>
    requires(!stages_elements_v<T, Layout>) && requires {
        typename Layout::first_layout;
        typename Layout::template mapping<T>::parts;
    }
struct staged_part<T, Layout> {
    using parts = typename Layout::template mapping<T>::parts;
    static constexpr bool first =
        stages_elements_v<typename parts::first_type, typename Layout::first_layout>;
    static constexpr bool second =
        stages_elements_v<typename parts::second_type, typename Layout::second_layout>;
    using part = std::conditional_t<first, typename parts::first_type,
                                    std::conditional_t<second, typename parts::second_type, void>>;
    static constexpr bool holds(std::size_t leaf) { return parts::in_first[leaf] == first; }
    static constexpr std::size_t index(std::size_t leaf) { return parts::index[leaf]; }
    template <class S>
    static part* pointer(const S& s) {
        if constexpr (first)
            return s.first.split([](part* p) { return p; });
        else
            return s.second.split([](part* p) { return p; });
    }
};

/// v[i] = f(i) for i in [first, last), one thread an element, stored leaf by leaf.
LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class M, class F>
__global__ void __launch_bounds__(block_size)
    tabulate_kernel(view<T, Layout, M> v, F f, std::size_t first, std::size_t last) {
    const std::size_t i = first + std::size_t{blockIdx.x} * block_size + threadIdx.x;
    if (i < last) v[i] = f(i);
}

/// The same, with the staged part's leaves going through shared memory: each thread puts its
/// element's part there, then the block writes the parts of its elements as Units (the unit
/// u + k * block_size by thread u: a warp's instruction covers consecutive units).
LAYOUT_EXEC_CHECK_DISABLE
template <class T, class Layout, class M, class F, class Unit>
__global__ void __launch_bounds__(block_size)
    tabulate_staged_kernel(view<T, Layout, M> v, F f, std::size_t first, std::size_t last,
                           typename staged_part<T, Layout>::part* LAYOUT_RESTRICT part_data) {
    using stage = staged_part<T, Layout>;
    using part = typename stage::part;
    constexpr unsigned units_per_element = sizeof(part) / sizeof(Unit);
    __shared__ Unit tile[block_size * units_per_element];
    // 16-byte units take the bank-spreading slot for_each_element uses; narrower units at a
    // stride of whole elements already spread over the banks.
    const auto slot = [](unsigned u) { return sizeof(Unit) == 16 ? staged_slot(u) : u; };

    const std::size_t block_first = first + std::size_t{blockIdx.x} * block_size;
    const unsigned count =
        last - block_first < block_size ? static_cast<unsigned>(last - block_first) : block_size;
    if (threadIdx.x < count) {
        const std::size_t i = block_first + threadIdx.x;
        const T value = f(i);
        const auto to = v.storage().at(i);
        part staged{};
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            (
                [&] {
                    if constexpr (stage::holds(L))
                        layout::detail::leaf_ref<stage::index(L)>(staged) =
                            layout::detail::leaf_ref<L>(value);
                    else
                        to.template leaf<L>() = layout::detail::leaf_ref<L>(value);
                }(),
                ...);
        }(std::make_index_sequence<leaf_count_v<T>>{});
        Unit units[units_per_element];
        std::memcpy(units, &staged, sizeof(part));
        LAYOUT_UNROLL
        for (unsigned c = 0; c < units_per_element; ++c)
            tile[slot(threadIdx.x * units_per_element + c)] = units[c];
    }
    __syncthreads();
    Unit* const out = reinterpret_cast<Unit*>(part_data + block_first);
    LAYOUT_UNROLL
    for (unsigned k = 0; k < units_per_element; ++k) {
        const unsigned u = threadIdx.x + k * block_size;
        if (u < count * units_per_element) out[u] = tile[slot(u)];
    }
}

} // namespace detail

/// v[i] = f(i) for every i in [first, last), on stream; f is a device functor of the index that
/// returns a T. Returns without waiting for the GPU. std::out_of_range where the range is not
/// inside v.
template <class T, class Layout, class M, class F>
void tabulate(const view<T, Layout, M>& v, std::size_t first, std::size_t last, const F& f,
              stream_ref stream = {}) {
    static_assert(!std::is_const_v<T>,
                  "layout: cuda::tabulate writes the view: pass a mutable one");
    static_assert(M::device_accessible,
                  "layout: cuda::tabulate runs on the GPU: pass a view of memory it can reach");
    if (first > last || last > v.size())
        throw std::out_of_range("layout::cuda::tabulate: elements [" + std::to_string(first) +
                                ", " + std::to_string(last) + ") of a view of " +
                                std::to_string(v.size()));
    if (first == last) return;
    constexpr const char* function = "layout::cuda::tabulate";
    const unsigned grid = detail::grid_size(last - first, detail::block_size, function);
    const cudaStream_t s = native(stream);
    using stage = detail::staged_part<T, Layout>;
    if constexpr (!std::is_void_v<typename stage::part>) {
        using part = typename stage::part;
        part* const data = stage::pointer(v.storage());
        // Every block starts block_size elements on, which keeps the first's alignment.
        const auto address = reinterpret_cast<std::uintptr_t>(data + first);
        auto launch = [&]<class Unit>(std::type_identity<Unit>) {
            detail::tabulate_staged_kernel<T, Layout, M, F, Unit>
                <<<grid, detail::block_size, 0, s>>>(v, f, first, last, data);
            check_launch(function);
        };
        if constexpr (sizeof(part) % 16 == 0)
            if (address % 16 == 0) return launch(std::type_identity<uint4>{});
        if constexpr (sizeof(part) % 8 == 0)
            if (address % 8 == 0) return launch(std::type_identity<uint2>{});
        if (address % 4 == 0) return launch(std::type_identity<unsigned>{});
    }
    detail::tabulate_kernel<<<grid, detail::block_size, 0, s>>>(v, f, first, last);
    check_launch(function);
}

/// Every element of v.
template <class T, class Layout, class M, class F>
void tabulate(const view<T, Layout, M>& v, const F& f, stream_ref stream = {}) {
    tabulate(v, 0, v.size(), f, stream);
}

/// A container's elements [first, last), on its stream.
template <class C, class F>
    requires requires(C& c) {
        c.view();
        c.stream();
    }
void tabulate(C& c, std::size_t first, std::size_t last, const F& f) {
    tabulate(c.view(), first, last, f, c.stream());
}
template <class C, class F>
    requires requires(C& c) {
        c.view();
        c.stream();
    }
void tabulate(C& c, const F& f) {
    tabulate(c.view(), 0, c.size(), f, c.stream());
}

} // namespace layout::cuda
