/// \file cuda/copy.hpp
/// layout::cuda::copy(src, dst, stream): dst[i] = src[i] for views of the same T in any two layouts,
/// asynchronously on stream, source first as in layout::copy. Views the GPU reaches (device,
/// pinned, managed memory) are copied or converted by the GPU and nothing synchronizes; a view
/// of pageable host memory is staged through a stream-ordered device block, and a copy into one
/// waits for its stream before returning (the host reads it next).
///
///     layout::cuda::copy(aos_dev.view(), soa_dev.view(), stream);   // transposed on the GPU
///     layout::cuda::copy(soa_dev.view(), host_aos.view(), stream);  // then host_aos is there
///
/// Throws std::length_error if the sizes differ; the views may overlap (as with memmove).
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/copy.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../memory.hpp"
#include "../view.hpp"
#include "memory.hpp"
#include "transfer.hpp"

#include <cuda_runtime.h>

#include <type_traits>

namespace layout::cuda {

namespace detail {
/// True if the GPU can reach p (device, pinned or managed memory).
inline bool device_reachable(const void* p) {
    if (p == nullptr) return true; // an empty view
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, p), "cudaPointerGetAttributes");
    return attributes.type != cudaMemoryTypeUnregistered;
}
template <class V>
bool device_reachable_view(const V& v) {
    return v.size() == 0 || device_reachable(&v.storage().at(0).template leaf<0>());
}
} // namespace detail

template <class T, class SrcLayout, class DstLayout>
void copy(const layout::view<const T, SrcLayout>& src, const layout::view<T, DstLayout>& dst,
          stream_ref stream = {}) {
    if (src.size() != dst.size())
        layout::detail::throw_copy_size_mismatch("layout::cuda::copy", src.size(), dst.size());
    const bool src_on_gpu = detail::device_reachable_view(src);
    const bool dst_on_gpu = detail::device_reachable_view(dst);
    if (src_on_gpu && dst_on_gpu)
        transfer<device_memory, device_memory>::copy(src, dst, stream);
    else if (dst_on_gpu)
        transfer<device_memory, host_memory>::copy(src, dst, stream);
    else if (src_on_gpu)
        transfer<host_memory, device_memory>::copy(src, dst, stream);
    else
        layout::copy(src, dst);
}
// clang-format off
template <class T, class SrcLayout, class DstLayout>
    requires(!std::is_const_v<T>)
void copy(const layout::view<T, SrcLayout>& src, const layout::view<T, DstLayout>& dst,
          stream_ref stream = {}) {
    cuda::copy(layout::view<const T, SrcLayout>(src), dst, stream);
}
// clang-format on

} // namespace layout::cuda
