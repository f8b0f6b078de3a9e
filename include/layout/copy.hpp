/// \file copy.hpp
/// Copying elements between views: the same layout moves bytes in bulk (one copy per column,
/// per run of whole blocks), different layouts convert leaf by leaf.
///
///     layout::copy(src_view, dst_view);   // any two layouts of the same T, host memory
///
/// Views in device memory go through layout::cuda::copy (<layout/cuda/memory.hpp>), which uses
/// the same bulk path and converts layouts on the GPU.
#pragma once

#include "config.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "view.hpp"

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace layout {
namespace detail {

/// Calls f(dst_ptr, src_ptr, bytes) for each contiguous run that holds elements [0, n) of two
/// views of the same layout (their capacities may differ: SoA columns are found by pointer).
template <class T, class Layout, class F>
void for_each_run(const view<T, Layout>& dst, const view<const T, Layout>& src, std::size_t n,
                  F&& f) {
    if (n == 0) return;
    if constexpr (std::is_same_v<Layout, policy::aos>) {
        f(static_cast<void*>(dst.storage().data), static_cast<const void*>(src.storage().data),
          n * sizeof(T));
    } else if constexpr (std::is_same_v<Layout, policy::soa>) {
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l)
            f(dst.storage().columns[l], src.storage().columns[l], n * leaf_table<T>[l].size);
    } else {
        using map = mapping<T, Layout>;
        constexpr std::size_t lanes = Layout::lanes;
        const std::size_t full = n / lanes, tail = n % lanes;
        std::byte* d = dst.storage().data;
        const std::byte* s = src.storage().data;
        if (full) f(static_cast<void*>(d), static_cast<const void*>(s), full * map::block_bytes);
        // The last block is partly filled: copy only its live lanes, leaf by leaf, so nothing
        // uninitialized is read.
        if (tail)
            for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
                const std::size_t at = full * map::block_bytes + map::lane_offsets[l];
                f(static_cast<void*>(d + at), static_cast<const void*>(s + at),
                  tail * leaf_table<T>[l].size);
            }
    }
}

template <class T, class Layout>
void copy_same_layout_bytes(const view<T, Layout>& dst, const view<const T, Layout>& src,
                            std::size_t n, void (*copy_bytes)(void*, const void*, std::size_t)) {
    for_each_run(dst, src, n, [&](void* d, const void* s, std::size_t bytes) { copy_bytes(d, s, bytes); });
}

/// dst[i] = src[i] for i in [0, n), leaf-major: one pass per column keeps each SoA column's
/// accesses sequential.
template <class T, class DstLayout, class SrcLayout>
void convert_on_host(const view<T, DstLayout>& dst, const view<const T, SrcLayout>& src,
                     std::size_t n) {
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (
            [&] {
                for (std::size_t i = 0; i < n; ++i)
                    dst.storage().at(i).template leaf<L>() = src.storage().at(i).template leaf<L>();
            }(),
            ...);
    }(std::make_index_sequence<leaf_count_v<T>>{});
}

inline void throw_size_mismatch(const char* what, std::size_t src, std::size_t dst) {
    throw std::length_error(std::string(what) + ": size mismatch (source has " +
                            std::to_string(src) + " elements, destination " +
                            std::to_string(dst) + ")");
}

} // namespace detail

/// Copies every element of src into dst (host memory, any two layouts of the same T).
/// Throws std::length_error, writing nothing, when the sizes differ.
template <class T, class DstLayout, class SrcLayout>
void copy(const view<const T, SrcLayout>& src, const view<T, DstLayout>& dst) {
    if (src.size() != dst.size()) detail::throw_size_mismatch("layout::copy", src.size(), dst.size());
    if constexpr (std::is_same_v<DstLayout, SrcLayout>)
        detail::copy_same_layout_bytes(dst, src, src.size(), &host_memory::copy_bytes);
    else
        detail::convert_on_host(dst, src, src.size());
}
template <class T, class DstLayout, class SrcLayout>
    requires(!std::is_const_v<T>)
void copy(const view<T, SrcLayout>& src, const view<T, DstLayout>& dst) {
    copy(view<const T, SrcLayout>(src), dst);
}

} // namespace layout
