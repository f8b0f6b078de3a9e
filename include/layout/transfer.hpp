/// \file transfer.hpp
/// How a container's elements move into memory space Dst from space Src, in any two layouts, and
/// how they are filled: the one customization point between containers and memory spaces, in the
/// style of fmt's formatter (a class template that a backend specializes). The host version is
/// here; <layout/cuda/transfer.hpp> specializes it for every pair with a device-resident side.
///
///     layout::transfer<DstMemory, SrcMemory>::copy(src_view, dst_view, stream);
///     layout::transfer<Memory, Memory>::fill(view, first, last, value, stream);
///     layout::transfer<Memory, Memory>::prepare_block(view_of_new_block, stream);
///
/// A transfer may run asynchronously on stream, except that a copy into host-accessible memory
/// returns with the elements there (the caller may read them at once).
#pragma once

#include "config.hpp"
#include "copy.hpp"
#include "execution.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "view.hpp"

#include <cstddef>

namespace layout {

template <class DstMemory, class SrcMemory>
struct transfer {
    static_assert(memory_space<DstMemory> && memory_space<SrcMemory>,
                  "layout: transfer<Dst, Src> takes two memory spaces (memory.hpp)");
    static_assert(DstMemory::host_accessible && SrcMemory::host_accessible,
                  "layout: no transfer between these memory spaces: include "
                  "<layout/cuda/memory.hpp> for device memory");

    /// dst[i] = src[i] for every i (equal sizes), on all cores for large copies.
    template <class T, class DstLayout, class SrcLayout>
    static void copy(const view<const T, SrcLayout, SrcMemory>& src,
                     const view<T, DstLayout, DstMemory>& dst, stream_ref /*ignored on the host*/) {
        layout::copy(exec::parallel, src, dst);
    }

    /// Readies a block just allocated (a view of its whole capacity) before anything reads it.
    template <class T, class Layout>
    static void prepare_block(const view<T, Layout, DstMemory>& /*block*/, stream_ref) noexcept {}

    /// v[i] = value for i in [first, last).
    template <class T, class Layout>
    static void fill(const view<T, Layout, DstMemory>& v, std::size_t first, std::size_t last,
                     const T& value, stream_ref /*ignored on the host*/) {
        for (std::size_t i = first; i < last; ++i) v[i] = value;
    }
};

namespace detail {
/// v as a view of memory space M (the same storage and size).
template <class M, class T, class L, class From>
LAYOUT_HOST_DEVICE view<T, L, M> with_memory(const view<T, L, From>& v) noexcept {
    return {v.storage(), v.size()};
}

/// transfer<Dst, Src>::copy / fill / prepare_block with views of their memory spaces, or, for a
/// user's specialization written before views knew their memory (deprecated: it takes
/// view<T, L> of host memory), with the same views seen as host memory.
template <class Dst, class Src, class T, class SL, class DL>
void transfer_copy(const view<const T, SL, Src>& src, const view<T, DL, Dst>& dst,
                   stream_ref stream) {
    if constexpr (requires { transfer<Dst, Src>::copy(src, dst, stream); })
        transfer<Dst, Src>::copy(src, dst, stream);
    else
        transfer<Dst, Src>::copy(with_memory<host_memory>(src), with_memory<host_memory>(dst),
                                 stream);
}
template <class M, class T, class L>
void transfer_fill(const view<T, L, M>& v, std::size_t first, std::size_t last, const T& value,
                   stream_ref stream) {
    if constexpr (requires { transfer<M, M>::fill(v, first, last, value, stream); })
        transfer<M, M>::fill(v, first, last, value, stream);
    else
        transfer<M, M>::fill(with_memory<host_memory>(v), first, last, value, stream);
}
template <class M, class T, class L>
void transfer_prepare_block(const view<T, L, M>& block, stream_ref stream) {
    if constexpr (requires { transfer<M, M>::prepare_block(block, stream); })
        transfer<M, M>::prepare_block(block, stream);
    else
        transfer<M, M>::prepare_block(with_memory<host_memory>(block), stream);
}
} // namespace detail

} // namespace layout
