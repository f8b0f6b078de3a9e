/// \file cuda/algorithms.hpp
/// Gather, scatter, permutation and sorting by key on the GPU, over any layout: the device
/// versions of <layout/algorithms.hpp>, with the same names and contracts.
///
///     layout::cuda::soa_vector<Particle> src = host, dst(m);
///     layout::cuda::aos_vector<std::uint32_t> idx = host_indices;      // indices in device memory
///     layout::cuda::gather(src, idx, dst);          // dst[i] = src[idx[i]], one thread per i
///     layout::cuda::scatter(dst, idx, src);         // src[idx[i]] = dst[i]
///     auto perm = layout::cuda::sort_by_key(keys, src);            // CUB radix sort, then gather
///     auto bins = layout::cuda::bin_by_key(cells, n_cells, src);   // + bins.offsets per cell
///
/// Indices and keys live in device memory: a layout::cuda::aos_vector<I>, a view<I, aos> of
/// device memory, a std::span over device memory, or a device pointer and a count.
///
/// Kernels: thread i reads indices[i] once and copies every leaf of element indices[i] to
/// element i (gather), or of element i to element indices[i] (scatter). Each leaf is a separate
/// load and store, so under SoA and AoSoA a warp's writes of one leaf are contiguous (gather)
/// and its reads of one leaf are contiguous (scatter). AoS to AoS, when sizeof(T) is a multiple
/// of 16 (or 8) bytes and both arrays are so aligned, whole elements move in 16- (8-) byte
/// vector accesses instead: per leaf, that is a wider access of the same bytes.
///
/// Streams and synchronization: everything runs on `stream` (default 0) and returns without
/// waiting for the GPU, like a kernel launch; temporaries are stream-ordered (cudaMallocAsync).
/// Exceptions: sort_by_key and bin_by_key allocate their results with layout::cuda containers,
/// whose construction synchronizes the device; and with LAYOUT_CHECK_BOUNDS on, the index
/// checks below read a flag back, which synchronizes `stream` before the copy is launched.
///
/// Errors (the same as on the host, except where said):
///  - Sizes that do not match throw std::length_error ("... size mismatch ..."), before any work.
///  - Overlapping source and destination throw std::invalid_argument.
///  - With LAYOUT_CHECK_BOUNDS on, a validation kernel runs before the copy (it reads the indices
///    once more: 4 or 8 bytes per element, against the 2 * sizeof(T) the copy moves) and an
///    out-of-range index throws std::out_of_range naming its value and its position, the first
///    such position: "layout::cuda::gather: index 12 at position 3 is out of range: the source
///    has 10 elements". Nothing has been written then. permute also throws
///    std::invalid_argument for an index that appears twice; bin_by_key std::out_of_range for a
///    key not below num_bins. The checks also reject indices or views in host memory that the
///    GPU cannot reach (std::invalid_argument), which would otherwise be an illegal address.
///    With the checks off, a bad index is an illegal memory access or silent corruption.
///  - Scatter with repeated indices: the threads that name the same j race. For each leaf
///    separately, the leaf of dst[j] ends up equal to that leaf of one of the colliding source
///    elements (a leaf is one naturally aligned store, never torn), but which one is unspecified
///    and may differ from leaf to leaf: dst[j] as a whole may mix the fields of several sources.
///    (On the host, the last write wins, whole.)
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../algorithms.hpp"
#include "../config.hpp"
#include "../copy.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../vector.hpp"
#include "../view.hpp"
#include "error.hpp"
#include "memory.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace layout::cuda {
namespace detail {

// ---- what the device algorithms accept as indices and keys -------------------------------------

template <class X>
struct device_range_traits {
    static constexpr bool ok = false;
};
template <class E, std::size_t Extent>
struct device_range_traits<std::span<E, Extent>> {
    static constexpr bool ok = true;
    using element = E;
    static std::span<E> span(const std::span<E, Extent>& s) noexcept { return s; }
};
template <class E>
struct device_range_traits<layout::view<E, policy::aos>> {
    static constexpr bool ok = std::is_scalar_v<std::remove_const_t<E>>;
    using element = E;
    static std::span<E> span(const layout::view<E, policy::aos>& v) noexcept {
        return {v.storage().data, v.size()};
    }
};
template <class E, class M>
struct device_range_traits<layout::vector<E, policy::aos, M>> {
    static constexpr bool ok = std::is_scalar_v<E> && M::device_accessible;
    using element = E;
    static std::span<E> span(layout::vector<E, policy::aos, M>& v) noexcept {
        return {v.view().storage().data, v.size()};
    }
};
template <class E, class M>
struct device_range_traits<const layout::vector<E, policy::aos, M>> {
    static constexpr bool ok = std::is_scalar_v<E> && M::device_accessible;
    using element = const E;
    static std::span<const E> span(const layout::vector<E, policy::aos, M>& v) noexcept {
        return {v.view().storage().data, v.size()};
    }
};

/// Containers keep their constness (a const container gives const indices); spans and views
/// carry theirs in the element type.
template <class X>
using device_traits_t =
    device_range_traits<std::conditional_t<layout::detail::is_vector_v<std::remove_cvref_t<X>>,
                                           std::remove_reference_t<X>, std::remove_cvref_t<X>>>;

template <class X>
using device_element_t = typename device_traits_t<X>::element;

/// Indices in device memory: a std::span over it, a view<I, aos> or a layout::cuda::aos_vector<I>
/// (any container of I in AoS in device-reachable memory), I an integer type.
template <class X>
concept device_index_range =
    device_traits_t<X>::ok &&
    std::is_integral_v<std::remove_const_t<device_element_t<X>>> &&
    !std::is_same_v<std::remove_const_t<device_element_t<X>>, bool>;

/// Writable keys in device memory (sort_by_key sorts them in place).
template <class X>
concept device_key_range = device_traits_t<X>::ok &&
                           !std::is_const_v<device_element_t<X>> &&
                           std::is_arithmetic_v<device_element_t<X>> &&
                           !std::is_same_v<device_element_t<X>, bool>;

template <class X>
auto device_span(X& x) noexcept {
    return device_traits_t<X&>::span(x);
}

/// The first byte of a view's data, to ask CUDA where it lives.
template <class V>
const void* first_byte(const V& v) noexcept {
    if constexpr (std::is_same_v<typename V::layout_type, policy::soa>)
        return v.storage().columns[0];
    else
        return v.storage().data;
}

// ---- checks -------------------------------------------------------------------------------------

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
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) ==
            cudaSuccess &&
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

/// Blocks of `block` threads for n threads, one per element.
inline unsigned grid_size(std::size_t n, unsigned block, const char* function) {
    const std::size_t blocks = (n + block - 1) / block;
    if (blocks > 0x7fffffffu)
        throw std::length_error(std::string(function) + ": too many elements for one grid");
    return static_cast<unsigned>(blocks);
}

inline constexpr unsigned block_size = 256;

/// Device memory for a temporary, allocated and freed in stream order.
template <class E>
class stream_buffer {
public:
    stream_buffer(std::size_t n, cudaStream_t stream) : stream_(stream) {
        if (n == 0) return;
        void* p = nullptr;
        if (const cudaError_t code = cudaMallocAsync(&p, n * sizeof(E), stream);
            code != cudaSuccess)
            throw_bad_alloc("cudaMallocAsync", n * sizeof(E), code);
        data_ = static_cast<E*>(p);
    }
    stream_buffer(const stream_buffer&) = delete;
    stream_buffer& operator=(const stream_buffer&) = delete;
    ~stream_buffer() {
        if (data_) (void)cudaFreeAsync(data_, stream_);
    }
    E* get() const noexcept { return data_; }

private:
    E* data_ = nullptr;
    cudaStream_t stream_;
};

// ---- kernels ------------------------------------------------------------------------------------

/// dst[i] = src[indices[i]], every leaf; one thread per destination element.
template <class T, class DL, class SL, class I>
__global__ void gather_kernel(layout::view<T, DL> dst, layout::view<const T, SL> src,
                              const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(i), src.storage().at(j),
                                std::make_index_sequence<leaf_count_v<T>>{});
}

/// dst[indices[i]] = src[i], every leaf; one thread per source element.
template <class T, class DL, class SL, class I>
__global__ void scatter_kernel(layout::view<T, DL> dst, layout::view<const T, SL> src,
                               const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto j = static_cast<std::size_t>(indices[i]);
    layout::detail::copy_leaves(dst.storage().at(j), src.storage().at(i),
                                std::make_index_sequence<leaf_count_v<T>>{});
}

/// AoS to AoS: whole elements in 16- or 8-byte vector accesses (two LDG.128 for a 32-byte
/// Particle instead of eight 4-byte loads, each of which makes a warp touch 32 sectors). Chunk is
/// a vector of Word, Word as wide as the widest leaf: the PTX memory model treats a vector access
/// as one access per Word, and no leaf straddles two Words, so a scatter with repeated indices
/// still never tears a leaf. Padding bytes are copied too.
template <class Chunk, bool Gather, class T, class I>
__global__ void move_chunks_kernel(T* LAYOUT_RESTRICT dst, const T* LAYOUT_RESTRICT src,
                                   const I* LAYOUT_RESTRICT indices, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const auto k = static_cast<std::size_t>(indices[i]);
    const Chunk* s = reinterpret_cast<const Chunk*>(src + (Gather ? k : i));
    Chunk* d = reinterpret_cast<Chunk*>(dst + (Gather ? i : k));
    constexpr std::size_t chunks = sizeof(T) / sizeof(Chunk);
#pragma unroll
    for (std::size_t c = 0; c < chunks; ++c) d[c] = s[c];
}

/// The widest leaf of T, in bytes.
template <class T>
constexpr std::size_t widest_leaf() {
    std::size_t w = 0;
    for (const auto& leaf : layout::detail::leaf_table<T>) w = leaf.size > w ? leaf.size : w;
    return w;
}

/// Launches move_chunks_kernel if both sides are AoS and T splits into aligned 16- or 8-byte
/// chunks of Words at least as wide as its widest leaf; returns false (nothing launched) if not.
template <bool Gather, class T, class DL, class SL, class I>
bool launch_chunks(const layout::view<T, DL>& dst, const layout::view<const T, SL>& src,
                   const I* indices, std::size_t n, unsigned grid, cudaStream_t stream) {
    if constexpr (std::is_same_v<DL, policy::aos> && std::is_same_v<SL, policy::aos> &&
                  widest_leaf<T>() <= 8) {
        const auto address = reinterpret_cast<std::uintptr_t>(dst.storage().data) |
                             reinterpret_cast<std::uintptr_t>(src.storage().data);
        using word16 = std::conditional_t<(widest_leaf<T>() <= 4), uint4, ulonglong2>;
        using word8 = std::conditional_t<(widest_leaf<T>() <= 4), uint2, unsigned long long>;
        if constexpr (sizeof(T) % 16 == 0) {
            if (address % 16 == 0) {
                move_chunks_kernel<word16, Gather><<<grid, block_size, 0, stream>>>(
                    dst.storage().data, src.storage().data, indices, n);
                return true;
            }
        }
        if constexpr (sizeof(T) % 8 == 0) {
            if (address % 8 == 0) {
                move_chunks_kernel<word8, Gather><<<grid, block_size, 0, stream>>>(
                    dst.storage().data, src.storage().data, indices, n);
                return true;
            }
        }
    }
    (void)dst, (void)src, (void)indices, (void)n, (void)grid, (void)stream;
    return false;
}

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

template <class Index>
__global__ void iota_kernel(Index* out, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<Index>(i);
}

/// offsets[b] = the first position whose key is >= b, for b in [0, num_bins] (sorted keys).
template <class K, class Index>
__global__ void bin_offsets_kernel(const K* sorted, std::size_t n, std::size_t num_bins,
                                   Index* offsets) {
    const std::size_t b = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (b > num_bins) return;
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (static_cast<std::size_t>(sorted[mid]) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    offsets[b] = static_cast<Index>(lo);
}

// ---- validation on the device (LAYOUT_CHECK_BOUNDS) --------------------------------------------

template <class E>
E read_one(const E* p, cudaStream_t stream) {
    E value{};
    check(cudaMemcpyAsync(&value, p, sizeof(E), cudaMemcpyDefault, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return value;
}

template <class I>
std::string index_text(I value) {
    if constexpr (sizeof(I) == 1)
        return std::to_string(static_cast<int>(value));
    else
        return std::to_string(value);
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
    throw std::out_of_range(std::string(function) + ": " + noun + " " + index_text(value) +
                            " at position " + std::to_string(at) + " is out of range: " +
                            bound_what + " " + std::to_string(bound));
#else
    (void)function, (void)noun, (void)indices, (void)n, (void)bound, (void)bound_what,
        (void)stream;
#endif
}

/// Throws unless perm is a permutation of [0, n): std::out_of_range for an index out of range,
/// std::invalid_argument for one that appeared at an earlier position.
template <class I>
void validate_permutation(const char* function, const I* perm, std::size_t n,
                          cudaStream_t stream) {
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
        throw std::out_of_range(std::string(function) + ": index " + index_text(value) +
                                " at position " + std::to_string(at) +
                                " is out of range: the permutation has " + std::to_string(n) +
                                " elements");
    const unsigned long long before = read_one(first_at.get() + static_cast<std::size_t>(value),
                                               stream);
    throw std::invalid_argument(std::string(function) + ": not a permutation: index " +
                                index_text(value) + " at position " + std::to_string(at) +
                                " appeared before, at position " + std::to_string(before));
#else
    (void)function, (void)perm, (void)n, (void)stream;
#endif
}

template <class SrcView, class DstView>
void check_views_accessible(const char* function, const SrcView& s, const DstView& d) {
    if (s.size()) check_device_accessible(first_byte(s), function, "source elements");
    if (d.size()) check_device_accessible(first_byte(d), function, "destination elements");
}

// ---- the launches ---------------------------------------------------------------------------------

template <class T, class DL, class SL, class I>
void launch_gather(const layout::view<T, DL>& dst, const layout::view<const T, SL>& src,
                   const I* indices, std::size_t n, cudaStream_t stream, const char* function) {
    if (n == 0) return;
    const unsigned grid = grid_size(n, block_size, function);
    if (!launch_chunks<true>(dst, src, indices, n, grid, stream))
        gather_kernel<<<grid, block_size, 0, stream>>>(dst, src, indices, n);
    check_launch(function);
}

template <class T, class DL, class SL, class I>
void launch_scatter(const layout::view<T, DL>& dst, const layout::view<const T, SL>& src,
                    const I* indices, std::size_t n, cudaStream_t stream, const char* function) {
    if (n == 0) return;
    const unsigned grid = grid_size(n, block_size, function);
    if (!launch_chunks<false>(dst, src, indices, n, grid, stream))
        scatter_kernel<<<grid, block_size, 0, stream>>>(dst, src, indices, n);
    check_launch(function);
}

/// A stream-ordered scratch block with room for a copy of v in its own layout. Callers that
/// change data before permuting (sort_by_key sorts the keys) allocate it first, so that an
/// allocation failure throws before anything has changed.
template <class T, class L>
class permute_scratch {
public:
    permute_scratch(const layout::view<T, L>& v, cudaStream_t stream)
        : v_(v), block_(mapping<T, L>::bytes(rounded(v.size())), stream) {}

    /// v[i] = old v[perm[i]]: copies v into the scratch block, then gathers back from it.
    template <class I>
    void permute(const I* perm, cudaStream_t stream, const char* function) const {
        const std::size_t n = v_.size();
        if (n == 0) return;
        const layout::view<T, L> copy(
            layout::view<T, L>::storage_type::from_block(block_.get(), rounded(n)), n);
        layout::detail::for_each_run(copy, layout::view<const T, L>(v_), n,
                                     [&](void* d, const void* s, std::size_t bytes) {
                                         check(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDefault,
                                                               stream),
                                               "cudaMemcpyAsync");
                                     });
        launch_gather(v_, layout::view<const T, L>(copy), perm, n, stream, function);
    }

private:
    static std::size_t rounded(std::size_t n) { // AoSoA blocks are whole
        if constexpr (requires { L::lanes; }) return (n + L::lanes - 1) / L::lanes * L::lanes;
        return n;
    }
    layout::view<T, L> v_;
    stream_buffer<std::byte> block_;
};

/// Sorts keys (in place) stably on bits [begin_bit, end_bit) with CUB and returns the
/// permutation. U is the key type CUB sees.
template <class Index, class U>
layout::vector<Index, policy::aos, device_memory> sort_permutation(U* keys, std::size_t n,
                                                                    int begin_bit, int end_bit,
                                                                    cudaStream_t stream,
                                                                    const char* function) {
    layout::detail::check_index_type<Index>(function, n);
    layout::vector<Index, policy::aos, device_memory> perm(n);
    if (n == 0) return perm;
    Index* p = perm.view().storage().data;
    iota_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(p, n);
    check_launch("layout::cuda::detail::iota_kernel");

    stream_buffer<U> keys_alt(n, stream);
    stream_buffer<Index> perm_alt(n, stream);
    cub::DoubleBuffer<U> k(keys, keys_alt.get());
    cub::DoubleBuffer<Index> v(p, perm_alt.get());
    // n fits in Index (checked above): count in the matching unsigned width, so that CUB uses
    // 32-bit offsets whenever 32-bit indices do.
    using count_type = std::conditional_t<(sizeof(Index) <= 4), std::uint32_t, std::uint64_t>;
    const auto count = static_cast<count_type>(n);
    std::size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, count, begin_bit, end_bit,
                                          stream),
          "cub::DeviceRadixSort::SortPairs");
    stream_buffer<std::byte> temp(temp_bytes, stream);
    check(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, count, begin_bit, end_bit,
                                          stream),
          "cub::DeviceRadixSort::SortPairs");
    if (k.Current() != keys)
        check(cudaMemcpyAsync(keys, k.Current(), n * sizeof(U), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    if (v.Current() != p)
        check(cudaMemcpyAsync(p, v.Current(), n * sizeof(Index), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    return perm;
}

template <class X>
constexpr void check_device_container() {
    static_assert(!layout::detail::in_host_only_memory<X>(),
                  "layout::cuda: a container is in host memory that the GPU cannot reach; copy "
                  "it to a layout::cuda container (or use the host version in "
                  "<layout/algorithms.hpp>)");
}

} // namespace detail

// ---- gather / scatter / permute -------------------------------------------------------------------

/// dst[i] = src[indices[i]] for i in [0, count): indices is a device pointer. Asynchronous on
/// stream. Throws std::length_error if dst.size() != count.
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void gather(Src&& src, const I* indices, std::size_t count, Dst&& dst, cudaStream_t stream = 0) {
    detail::check_device_container<Src>();
    detail::check_device_container<Dst>();
    const auto s = layout::detail::as_view(src);
    const auto d = layout::detail::as_view(dst);
    layout::detail::check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    constexpr const char* function = "layout::cuda::gather";
    if (count != d.size())
        layout::detail::throw_size_mismatch(function, count, "indices", d.size(),
                                            "the destination");
    layout::detail::check_no_overlap(function, layout::detail::views_overlap(s, d));
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, s, d);
#endif
    detail::validate_indices(function, "index", indices, count, s.size(),
                             "the source's size is", stream);
    detail::launch_gather(d, layout::view<const T, typename decltype(s)::layout_type>(s), indices,
                          count, stream, function);
}

/// dst[i] = src[indices[i]]; indices: a layout::cuda::aos_vector<I>, a view<I, aos> or a
/// std::span over device memory.
template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void gather(Src&& src, Indices&& indices, Dst&& dst, cudaStream_t stream = 0) {
    const auto idx = detail::device_span(indices);
    cuda::gather(src, idx.data(), idx.size(), dst, stream);
}

/// dst[indices[i]] = src[i] for i in [0, count). Throws std::length_error if src.size() !=
/// count. Repeated indices: see the file comment (per leaf, one of the colliding values).
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void scatter(Src&& src, const I* indices, std::size_t count, Dst&& dst, cudaStream_t stream = 0) {
    detail::check_device_container<Src>();
    detail::check_device_container<Dst>();
    const auto s = layout::detail::as_view(src);
    const auto d = layout::detail::as_view(dst);
    layout::detail::check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    constexpr const char* function = "layout::cuda::scatter";
    if (count != s.size())
        layout::detail::throw_size_mismatch(function, count, "indices", s.size(), "the source");
    layout::detail::check_no_overlap(function, layout::detail::views_overlap(s, d));
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, s, d);
#endif
    detail::validate_indices(function, "index", indices, count, d.size(),
                             "the destination's size is", stream);
    detail::launch_scatter(d, layout::view<const T, typename decltype(s)::layout_type>(s),
                           indices, count, stream, function);
}

template <layout::detail::viewable Src, detail::device_index_range Indices,
          layout::detail::viewable Dst>
void scatter(Src&& src, Indices&& indices, Dst&& dst, cudaStream_t stream = 0) {
    const auto idx = detail::device_span(indices);
    cuda::scatter(src, idx.data(), idx.size(), dst, stream);
}

/// dst[i] = src[perm[i]] with perm a permutation of [0, n) (checked with LAYOUT_CHECK_BOUNDS).
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void permute(Src&& src, const I* perm, std::size_t count, Dst&& dst, cudaStream_t stream = 0) {
    detail::check_device_container<Src>();
    detail::check_device_container<Dst>();
    const auto s = layout::detail::as_view(src);
    const auto d = layout::detail::as_view(dst);
    layout::detail::check_element_types<decltype(s), decltype(d)>();
    using T = typename decltype(d)::value_type;
    constexpr const char* function = "layout::cuda::permute";
    if (count != s.size())
        layout::detail::throw_size_mismatch(function, count, "indices", s.size(), "the source");
    if (count != d.size())
        layout::detail::throw_size_mismatch(function, count, "indices", d.size(),
                                            "the destination");
    layout::detail::check_no_overlap(function, layout::detail::views_overlap(s, d));
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, s, d);
#endif
    detail::validate_permutation(function, perm, count, stream);
    detail::launch_gather(d, layout::view<const T, typename decltype(s)::layout_type>(s), perm,
                          count, stream, function);
}

template <layout::detail::viewable Src, detail::device_index_range Perm,
          layout::detail::viewable Dst>
void permute(Src&& src, Perm&& perm, Dst&& dst, cudaStream_t stream = 0) {
    const auto p = detail::device_span(perm);
    cuda::permute(src, p.data(), p.size(), dst, stream);
}

/// x[i] = old x[perm[i]] through a scratch copy of x (same layout, stream-ordered), so views of
/// x stay valid. Costs one device copy of x plus one gather.
template <layout::detail::viewable X, class I>
    requires std::is_integral_v<I>
void permute_in_place(X&& x, const I* perm, std::size_t count, cudaStream_t stream = 0) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::permute_in_place: the view or container is read-only");
    constexpr const char* function = "layout::cuda::permute_in_place";
    if (count != v.size())
        layout::detail::throw_size_mismatch(function, count, "indices", v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, v, v);
#endif
    detail::validate_permutation(function, perm, count, stream);
    detail::permute_scratch(v, stream).permute(perm, stream, function);
}

template <layout::detail::viewable X, detail::device_index_range Perm>
void permute_in_place(X&& x, Perm&& perm, cudaStream_t stream = 0) {
    const auto p = detail::device_span(perm);
    cuda::permute_in_place(x, p.data(), p.size(), stream);
}

// ---- sorting by key -----------------------------------------------------------------------------

/// Sorts keys (device memory, arithmetic type) stably in place with CUB's radix sort and returns
/// the permutation: perm[i] = the old position of the element now at i. Index defaults to 32
/// bits (half the bytes of 64-bit indices through the sort); n must fit in Index, else
/// std::length_error. Floating-point keys sort by CUB's order (-0.0 before +0.0; NaNs last).
template <class Index = std::uint32_t, detail::device_key_range Keys>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys,
                                                              cudaStream_t stream = 0) {
    const auto k = detail::device_span(keys);
#if LAYOUT_CHECK_BOUNDS
    if (!k.empty()) detail::check_device_accessible(k.data(), "layout::cuda::sort_by_key", "keys");
#endif
    using K = typename decltype(k)::value_type;
    return detail::sort_permutation<Index>(k.data(), k.size(), 0, int(sizeof(K) * 8), stream,
                                           "layout::cuda::sort_by_key");
}

/// Sorts keys and reorders every field of x (a device container or a view of device memory, any
/// layout) the same way: a CUB sort of (key, index) pairs, then one gather of x. Returns the
/// permutation.
///
///     auto perm = layout::cuda::sort_by_key(cell_of_particle, particles);
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys, X&& x,
                                                              cudaStream_t stream = 0) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::sort_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    if (k.size() != v.size())
        layout::detail::throw_size_mismatch("layout::cuda::sort_by_key", k.size(), "keys",
                                            v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible("layout::cuda::sort_by_key", v, v);
#endif
    const detail::permute_scratch scratch(v, stream); // allocated before the keys change
    auto perm = cuda::sort_by_key<Index>(k, stream);
    scratch.permute(perm.view().storage().data, stream, "layout::cuda::sort_by_key");
    return perm;
}

/// The result of bin_by_key in device memory: bin b holds positions [offsets[b], offsets[b+1]).
template <class Index = std::uint32_t>
struct bins {
    layout::vector<Index, policy::aos, device_memory> permutation;
    layout::vector<Index, policy::aos, device_memory> offsets; // num_bins + 1 entries
};

/// Groups by an integer key in [0, num_bins): a stable CUB radix sort on only the bits that
/// num_bins needs (18 bits for 64^3 cells: 3 passes instead of 4), keys sorted in place, then
/// the bin offsets by binary search. An out-of-range key throws std::out_of_range with
/// LAYOUT_CHECK_BOUNDS on and gives wrong bins otherwise.
template <class Index = std::uint32_t, detail::device_key_range Keys>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, cudaStream_t stream = 0) {
    const auto k = detail::device_span(keys);
    using K = typename decltype(k)::value_type;
    static_assert(std::is_integral_v<K>, "layout::cuda::bin_by_key: keys must be integers");
    constexpr const char* function = "layout::cuda::bin_by_key";
    const std::size_t n = k.size();
    layout::detail::check_index_type<Index>(function, n);
    detail::validate_indices(function, "key", k.data(), n, num_bins, "the number of bins is",
                             stream);
    // Keys in [0, num_bins) are non-negative: sort them as unsigned, on the low bits only.
    using U = std::make_unsigned_t<K>;
    const int end_bit =
        num_bins <= 1 ? 1 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(num_bins - 1)));
    // The offsets are allocated before the sort changes the keys: a failed allocation throws
    // with nothing changed.
    layout::vector<Index, policy::aos, device_memory> offsets(num_bins + 1);
    bins<Index> result{detail::sort_permutation<Index>(reinterpret_cast<U*>(k.data()), n, 0,
                                                       end_bit, stream, function),
                       std::move(offsets)};
    detail::bin_offsets_kernel<<<detail::grid_size(num_bins + 1, detail::block_size, function),
                                 detail::block_size, 0, stream>>>(
        reinterpret_cast<const U*>(k.data()), n, num_bins,
        result.offsets.view().storage().data);
    check_launch("layout::cuda::detail::bin_offsets_kernel");
    return result;
}

/// bin_by_key, and every field of x reordered the same way: after it, bin b's elements are
/// x[offsets[b]] .. x[offsets[b + 1] - 1], in their old relative order.
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
bins<Index> bin_by_key(Keys&& keys, std::size_t num_bins, X&& x, cudaStream_t stream = 0) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::bin_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    if (k.size() != v.size())
        layout::detail::throw_size_mismatch("layout::cuda::bin_by_key", k.size(), "keys",
                                            v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible("layout::cuda::bin_by_key", v, v);
#endif
    const detail::permute_scratch scratch(v, stream); // allocated before the keys change
    bins<Index> result = cuda::bin_by_key<Index>(k, num_bins, stream);
    scratch.permute(result.permutation.view().storage().data, stream, "layout::cuda::bin_by_key");
    return result;
}

} // namespace layout::cuda
