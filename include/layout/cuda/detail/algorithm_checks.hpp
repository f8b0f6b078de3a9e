/// \file cuda/detail/algorithm_checks.hpp
/// The argument checks of the device algorithms: containers and views in memory the GPU can
/// reach, the checks gather, scatter and permute share (check_device_move), and, with
/// LAYOUT_CHECK_BOUNDS, the validation of indices, keys and permutations by kernels on the
/// device (which read a flag back: they synchronize the stream).
///
///     "layout::cuda::gather: index 12 at position 3 is out of range: the source's size is 10"
///     "layout::cuda::permute: not a permutation: index 4 at position 2 appeared before, at
///      position 0"
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/algorithm_checks.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/detail/algorithm_checks.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../error.hpp"
#include "../memory.hpp"
#include "launch.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace layout::cuda::detail {

// ---- the stream an algorithm runs on -----------------------------------------------------------

/// The stream of the first argument that is a container (its own, x.stream()); the default
/// stream where every argument is a view. What each device algorithm runs on when not told.
template <class X, class... Rest>
stream_ref stream_for(const X& x, const Rest&... rest) noexcept {
    if constexpr (layout::detail::is_vector_v<std::remove_cv_t<X>>)
        return x.stream();
    else if constexpr (sizeof...(Rest) > 0)
        return stream_for(rest...);
    else
        return {};
}

/// The resource temporaries come from: the first container's (as a std::pmr algorithm would
/// use its container's allocator), else the device's default pool.
template <class X, class... Rest>
resource_ref resource_for(const X& x, const Rest&... rest) noexcept {
    // Nested: memory_type exists only where X is a container (keys may be a std::span).
    if constexpr (layout::detail::is_vector_v<std::remove_cv_t<X>>) {
        if constexpr (!std::remove_cv_t<X>::memory_type::host_accessible) return x.resource();
    }
    if constexpr (sizeof...(Rest) > 0)
        return resource_for(rest...);
    else
        return device_memory::default_resource();
}

// ---- memory the GPU can reach -------------------------------------------------------------------

/// The first byte of a view's data, to ask CUDA where it lives.
template <class V>
const void* first_byte(const V& v) noexcept {
    return v.storage().first_byte();
}

/// With LAYOUT_CHECK_BOUNDS: throws std::invalid_argument if p is host memory the GPU cannot
/// reach (pageable memory on a system without HMM/ATS).
inline void check_device_accessible(const void* p, const char* function, const char* what) {
#if LAYOUT_CHECK_BOUNDS
    if (p == nullptr) return;
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return; // cannot tell: let the kernel find out
    }
    if (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged ||
        attributes.devicePointer != nullptr)
        return;
    int device = 0, pageable = 0;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) == cudaSuccess &&
        pageable)
        return;
    (void)cudaGetLastError();
    throw std::invalid_argument(std::string(function) + ": the " + what +
                                " are in host memory, which the GPU cannot reach; pass device "
                                "memory (a layout::cuda container, or memory from cudaMalloc)");
#else
    (void)p, (void)function, (void)what;
#endif
}

/// A container in memory the GPU cannot reach is refused at compile time. A view is taken at
/// its word: given to a layout::cuda:: algorithm, even a view of host memory (the default of a
/// view that does not say, as views spelled before they knew their memory) is used on the GPU,
/// and LAYOUT_CHECK_BOUNDS checks at run time that the GPU reaches it.
template <class X>
constexpr void check_device_container() {
    static_assert(!layout::detail::is_vector_v<std::remove_cvref_t<X>> ||
                      !layout::detail::in_host_only_memory<X>(),
                  "layout::cuda: a container is in host memory that the GPU cannot reach; copy "
                  "it to a layout::cuda container (or use the host version in "
                  "<layout/algorithms.hpp>)");
}

// ---- the checks gather, scatter and permute share ----------------------------------------------

template <class SrcView, class DstView>
void check_views_accessible(const char* function, const SrcView& s, const DstView& d) {
    if (s.size()) check_device_accessible(first_byte(s), function, "source elements");
    if (d.size()) check_device_accessible(first_byte(d), function, "destination elements");
}

/// layout::detail::check_indexed_move (element types, sizes, overlap), the containers in
/// memory the GPU can reach and, with LAYOUT_CHECK_BOUNDS, the views too: the checks gather,
/// scatter and permute make before anything is launched. Returns the views to work on.
///
///     auto [s, d] = check_device_move(function, src, dst, count, per_index::destination);
template <class Src, class Dst>
auto check_device_move(const char* function, Src& src, Dst& dst, std::size_t count,
                       layout::detail::per_index sized) {
    check_device_container<Src>();
    check_device_container<Dst>();
    const auto views = layout::detail::check_indexed_move(function, src, dst, count, sized);
#if LAYOUT_CHECK_BOUNDS
    check_views_accessible(function, views.src, views.dst);
#endif
    return views;
}

// ---- validation on the device (LAYOUT_CHECK_BOUNDS) --------------------------------------------

/// *first = the smallest i with indices[i] not in [0, bound) (unchanged if none).
template <class I>
__global__ void find_out_of_range(const I* indices, std::size_t n, std::size_t bound,
                                  unsigned long long* first) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n && !layout::detail::index_in_range(indices[i], bound))
        atomicMin(first, static_cast<unsigned long long>(i));
}

/// first_at[p] = the smallest i with perm[i] == p; out-of-range entries go to *bad.
template <class I>
__global__ void first_occurrences(const I* perm, std::size_t n, unsigned long long* first_at,
                                  unsigned long long* bad) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const I p = perm[i];
    if (layout::detail::index_in_range(p, n))
        atomicMin(&first_at[static_cast<std::size_t>(p)], static_cast<unsigned long long>(i));
    else
        atomicMin(bad, static_cast<unsigned long long>(i));
}

/// *bad = the smallest i whose index appeared at an earlier position.
template <class I>
__global__ void find_repeats(const I* perm, std::size_t n, const unsigned long long* first_at,
                             unsigned long long* bad) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const I p = perm[i];
    if (layout::detail::index_in_range(p, n) && first_at[static_cast<std::size_t>(p)] != i)
        atomicMin(bad, static_cast<unsigned long long>(i));
}

template <class E>
E read_one(const E* p, cudaStream_t stream) {
    E value{};
    check(cudaMemcpyAsync(&value, p, sizeof(E), cudaMemcpyDefault, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return value;
}

/// Throws std::out_of_range naming the first index (or key) not below bound:
/// "<function>: index 12 at position 3 is out of range: the source's size is 10".
template <class I>
void validate_indices(const char* function, const char* noun, const I* indices, std::size_t n,
                      std::size_t bound, const char* bound_what, cudaStream_t stream) {
#if LAYOUT_CHECK_BOUNDS
    if (n == 0) return;
    check_device_accessible(indices, function, std::string(noun) == "key" ? "keys" : "indices");
    stream_buffer<unsigned long long> first(1, stream);
    check(cudaMemsetAsync(first.get(), 0xff, sizeof(unsigned long long), stream),
          "cudaMemsetAsync");
    find_out_of_range<<<grid_size(n, block_size, function), block_size, 0, stream>>>(
        indices, n, bound, first.get());
    check_launch("layout::cuda::detail::find_out_of_range");
    const unsigned long long at = read_one(first.get(), stream);
    if (at == ~0ull) return;
    const I value = read_one(indices + at, stream);
    layout::detail::throw_out_of_range(function, noun, layout::detail::index_text(value), at,
                                       bound_what, bound);
#else
    (void)function, (void)noun, (void)indices, (void)n, (void)bound, (void)bound_what, (void)stream;
#endif
}

/// Throws unless perm is a permutation of [0, n): std::out_of_range for an index out of range,
/// std::invalid_argument for one that appeared at an earlier position.
template <class I>
void validate_permutation(const char* function, const I* perm, std::size_t n, cudaStream_t stream) {
#if LAYOUT_CHECK_BOUNDS
    if (n == 0) return;
    check_device_accessible(perm, function, "indices");
    stream_buffer<unsigned long long> first_at(n, stream), bad(1, stream);
    check(cudaMemsetAsync(first_at.get(), 0xff, n * sizeof(unsigned long long), stream),
          "cudaMemsetAsync");
    check(cudaMemsetAsync(bad.get(), 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync");
    const unsigned grid = grid_size(n, block_size, function);
    first_occurrences<<<grid, block_size, 0, stream>>>(perm, n, first_at.get(), bad.get());
    check_launch("layout::cuda::detail::first_occurrences");
    find_repeats<<<grid, block_size, 0, stream>>>(perm, n, first_at.get(), bad.get());
    check_launch("layout::cuda::detail::find_repeats");
    const unsigned long long at = read_one(bad.get(), stream);
    if (at == ~0ull) return;
    const I value = read_one(perm + at, stream);
    if (!layout::detail::index_in_range(value, n))
        layout::detail::throw_out_of_range(function, "index", layout::detail::index_text(value), at,
                                           "the permutation's size is", n);
    const unsigned long long before =
        read_one(first_at.get() + static_cast<std::size_t>(value), stream);
    layout::detail::throw_repeated_index(function, layout::detail::index_text(value), at, before);
#else
    (void)function, (void)perm, (void)n, (void)stream;
#endif
}

} // namespace layout::cuda::detail
