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
#include "memory_resource.hpp"
#include "view.hpp"

#include <cstddef>

namespace layout {

template <class DstMemory, class SrcMemory>
struct transfer {
    static_assert(DstMemory::host_accessible && SrcMemory::host_accessible,
                  "layout: no transfer between these memory spaces: include "
                  "<layout/cuda/memory.hpp> for device memory");

    /// dst[i] = src[i] for every i (equal sizes), on all cores for large copies.
    template <class T, class DstLayout, class SrcLayout>
    static void copy(const view<const T, SrcLayout>& src, const view<T, DstLayout>& dst,
                     stream_ref /*ignored on the host*/) {
        layout::copy(exec::parallel, src, dst);
    }

    /// Readies a block just allocated (a view of its whole capacity) before anything reads it.
    template <class T, class Layout>
    static void prepare_block(const view<T, Layout>& /*block*/, stream_ref) noexcept {}

    /// v[i] = value for i in [first, last).
    template <class T, class Layout>
    static void fill(const view<T, Layout>& v, std::size_t first, std::size_t last, const T& value,
                     stream_ref /*ignored on the host*/) {
        for (std::size_t i = first; i < last; ++i) v[i] = value;
    }
};

} // namespace layout
