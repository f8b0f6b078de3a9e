/// \file cuda/algorithms/sort_by_key.hpp
/// layout::cuda::sort_by_key: a stable CUB radix sort of keys in device memory that returns the
/// permutation, and optionally reorders every field of a view or container the same way (one
/// gather); detail::sort_pairs is the sort that bin_by_key shares.
///
///     auto perm = layout::cuda::sort_by_key(keys, particles);   // CUB radix sort, then gather
///     layout::cuda::sort_by_key<&P::cell>(particles, ws);       // by the element's own field
///
/// A container is reordered into a second block that becomes its own (reorder.hpp: one pass);
/// a view, which cannot change blocks, through a scratch copy (two passes). Temporaries and
/// results come from the container's resource on its stream, or from the workspace given.
///
/// The contracts are in <layout/cuda/algorithms.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/sort_by_key.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/detail/algorithm_checks.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../vector.hpp"
#include "../detail/algorithm_checks.hpp"
#include "../detail/device_ranges.hpp"
#include "../detail/launch.hpp"
#include "../detail/radix_sort.hpp"
#include "../error.hpp"
#include "../memory.hpp"
#include "../workspace.hpp"
#include "permute.hpp"
#include "reorder.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace layout::cuda {
namespace detail {

/// Where a sort left the keys and the permutation (CUB's double buffers may end in either half).
template <class Index, class U>
struct sorted_pairs {
    const U* keys;
    Index* perm;
};

/// The stable order of n keys on bits [begin_bit, end_bit), with CUB, from the double buffers
/// as the caller filled them: keys (overwritten) and keys_alt, perm (perm[i] = i, written by the
/// caller, often in the pass that wrote the keys) and perm_alt; the result says in which half
/// each ended.
template <class Index, class U>
sorted_pairs<Index, U> sort_prepared_pairs(U* keys, U* keys_alt, Index* perm, Index* perm_alt,
                                           std::size_t n, int begin_bit, int end_bit, workspace& ws,
                                           cudaStream_t stream, const char* function) {
    layout::detail::check_index_type<Index>(function, n);
    if (n == 0) return {keys, perm};
    // n fits in Index (checked above): count in the matching unsigned width, so that CUB uses
    // 32-bit offsets whenever 32-bit indices do.
    using count_type = std::conditional_t<(sizeof(Index) <= 4), std::uint32_t, std::uint64_t>;
    const auto count = static_cast<count_type>(n);
    cub::DoubleBuffer<U> k(keys, keys_alt);
    cub::DoubleBuffer<Index> v(perm, perm_alt);
    radix_sort_pairs(k, v, count, begin_bit, end_bit, ws, stream);
    return {k.Current(), v.Current()};
}

/// The stable order of n keys on bits [begin_bit, end_bit), with CUB: perm[i] = the old
/// position of the i-th key in order. keys_writable: keys may be overwritten (they are the
/// caller's to sort, or a copy); else they stay as they are and the sorted keys go to the
/// workspace. perm goes to perm_out where given (it may end in the workspace: see the result),
/// else to the workspace. Temporaries from ws; nothing is value-initialized.
template <class Index, class U>
sorted_pairs<Index, U> sort_pairs(U* keys, bool keys_writable, std::size_t n, int begin_bit,
                                  int end_bit, Index* perm_out, workspace& ws, cudaStream_t stream,
                                  const char* function) {
    layout::detail::check_index_type<Index>(function, n);
    Index* perm = perm_out ? perm_out : ws.get<Index>(workspace::slot::indices, n);
    Index* perm_alt = ws.get<Index>(workspace::slot::indices_alt, n);
    U* keys_alt = ws.get<U>(workspace::slot::keys_alt, n);
    if (n == 0) return {keys, perm};
    // n fits in Index (checked above): count in the matching unsigned width, so that CUB uses
    // 32-bit offsets whenever 32-bit indices do.
    using count_type = std::conditional_t<(sizeof(Index) <= 4), std::uint32_t, std::uint64_t>;
    const auto count = static_cast<count_type>(n);
    const unsigned grid = grid_size(n, block_size, function);
    if (keys_writable) {
        iota_kernel<<<grid, block_size, 0, stream>>>(perm, n);
        check_launch("layout::cuda::detail::iota_kernel");
        return sort_prepared_pairs(keys, keys_alt, perm, perm_alt, n, begin_bit, end_bit, ws,
                                   stream, function);
    }
    iota_kernel<<<grid, block_size, 0, stream>>>(perm_alt, n);
    check_launch("layout::cuda::detail::iota_kernel");
    radix_sort_pairs(static_cast<const U*>(keys), keys_alt, static_cast<const Index*>(perm_alt),
                     perm, count, begin_bit, end_bit, ws, stream);
    return {keys_alt, perm};
}

/// The same with the keys' double buffer given: keys (overwritten) and keys_alt; the sorted
/// keys end in one of them (the result says which).
template <class Index, class U>
sorted_pairs<Index, U> sort_pairs_in(U* keys, U* keys_alt, std::size_t n, int end_bit,
                                     Index* perm_out, workspace& ws, cudaStream_t stream,
                                     const char* function) {
    layout::detail::check_index_type<Index>(function, n);
    Index* perm = perm_out ? perm_out : ws.get<Index>(workspace::slot::indices, n);
    Index* perm_alt = ws.get<Index>(workspace::slot::indices_alt, n);
    if (n == 0) return {keys, perm};
    iota_kernel<<<grid_size(n, block_size, function), block_size, 0, stream>>>(perm, n);
    check_launch("layout::cuda::detail::iota_kernel");
    return sort_prepared_pairs(keys, keys_alt, perm, perm_alt, n, 0, end_bit, ws, stream, function);
}

/// A permutation vector of n indices from the container's resource on its stream (the default
/// pool for a view), not value-initialized: the sort writes every entry.
template <class Index, class X>
layout::vector<Index, policy::aos, device_memory> permutation_for(const X& x, std::size_t n,
                                                                  stream_ref stream) {
    layout::vector<Index, policy::aos, device_memory> perm(stream, resource_for(x));
    perm.resize(n, layout::for_overwrite);
    return perm;
}

/// Keys sorted in place, perm into perm_out (n entries): the keys-only sort of sort_by_key.
template <class Index, class K>
void sort_keys_in_place(K* keys, std::size_t n, Index* perm_out, workspace& ws, cudaStream_t stream,
                        const char* function) {
    const auto sorted =
        sort_pairs<Index>(keys, true, n, 0, int(sizeof(K) * 8), perm_out, ws, stream, function);
    if (n && sorted.keys != keys)
        check(cudaMemcpyAsync(keys, sorted.keys, n * sizeof(K), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
    if (n && sorted.perm != perm_out)
        check(cudaMemcpyAsync(perm_out, sorted.perm, n * sizeof(Index), cudaMemcpyDefault, stream),
              "cudaMemcpyAsync");
}

} // namespace detail

// ---- sorting by key -----------------------------------------------------------------------------

/// Sorts keys (device memory, arithmetic type) stably in place with CUB's radix sort and returns
/// the permutation: perm[i] = the old position of the element now at i. Index defaults to 32
/// bits (half the bytes of 64-bit indices through the sort); n must fit in Index, else
/// std::length_error. Floating-point keys sort by CUB's order (-0.0 before +0.0; NaNs last).
/// On stream (default: the default stream); temporaries from the device's default pool.
template <class Index = std::uint32_t, detail::device_key_range Keys>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys, stream_ref stream = {}) {
    constexpr const char* function = "layout::cuda::sort_by_key";
    const auto k = detail::device_span(keys);
#if LAYOUT_CHECK_BOUNDS
    if (!k.empty()) detail::check_device_accessible(k.data(), function, "keys");
#endif
    workspace ws(stream);
    auto perm = detail::permutation_for<Index>(keys, k.size(), stream);
    detail::sort_keys_in_place(k.data(), k.size(), perm.view().data(), ws, native(stream),
                               function);
    return perm;
}

/// Sorts keys and reorders every field of x (a device container or a view of device memory, any
/// layout) the same way: a CUB sort of (key, index) pairs, then one gather of x. Returns the
/// permutation (from x's resource, on the stream). The keys may be one of x's own columns
/// (sorting by a field of the element): x is saved before the sort, and the gather writes that
/// column sorted. Keys that overlap x otherwise throw std::invalid_argument, before anything is
/// launched. A container whose keys are separate is reordered through a second block (one pass).
///
///     auto perm = layout::cuda::sort_by_key(cell_of_particle, particles);
///     layout::cuda::sort_by_key(std::span<int>(soa.view().column<&P::cell>().data(), n), soa);
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys, X&& x,
                                                              stream_ref stream) {
    constexpr const char* function = "layout::cuda::sort_by_key";
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::sort_by_key: the view or container is read-only");
    const auto k = detail::device_span(keys);
    if (k.size() != v.size())
        layout::detail::throw_size_mismatch(function, k.size(), "keys", v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, v, v);
#endif
    const cudaStream_t s = native(stream);
    const bool keys_in_x = layout::detail::keys_are_column_of(function, v, k);
    workspace ws(stream, detail::resource_for(x));
    auto perm = detail::permutation_for<Index>(x, k.size(), stream);
    Index* p = perm.view().data();
    constexpr bool container = layout::detail::is_vector_v<std::remove_cvref_t<X>>;
    if constexpr (container) {
        if (!keys_in_x) { // keys apart: sort them, then one gather into a second block
            (void)ws.element_view(x, x.size()); // every allocation before the first write
            detail::sort_keys_in_place(k.data(), k.size(), p, ws, s, function);
            detail::reorder_into(x, p, x.size(), ws, s, function);
            return perm;
        }
    }
    const detail::permute_scratch scratch(v, s, detail::resource_for(x)); // before keys change
    scratch.save(s); // x as it was, with its key column unsorted if the keys are one
    detail::sort_keys_in_place(k.data(), k.size(), p, ws, s, function);
    scratch.gather_back(p, s, function);
    return perm;
}
/// On x's stream where x is a container (else the default stream).
template <class Index = std::uint32_t, detail::device_key_range Keys, layout::detail::viewable X>
layout::vector<Index, policy::aos, device_memory> sort_by_key(Keys&& keys, X&& x) {
    return cuda::sort_by_key<Index>(keys, x, detail::stream_for(x));
}

/// Sorts a device container stably by one of its own fields, in every layout (the key is named
/// as column<...>() names it: &P::cell, or a path), on the container's stream, with the
/// workspace's memory: once the workspace is warm, nothing is allocated. The keys are the
/// column itself where it is contiguous (SoA), else a copy in the workspace; the elements are
/// gathered once into the workspace's second block, which becomes the container's. Returns the
/// permutation (perm[i] = the old position of the element now at i), a span into the workspace,
/// valid until its next use. Throws std::invalid_argument if ws serves another stream.
///
///     layout::cuda::workspace ws(particles.stream());
///     layout::cuda::sort_by_key<&Particle::cell>(particles, ws);
template <auto Key, auto... Rest, class Index = std::uint32_t, class C>
    requires layout::detail::is_vector_v<C>
std::span<const Index> sort_by_key(C& c, workspace& ws) {
    constexpr const char* function = "layout::cuda::sort_by_key";
    detail::check_device_container<C>();
    ws.check_stream(c.stream(), function);
    using T = typename C::value_type;
    constexpr std::size_t leaf = layout::detail::leaf_of_path<T, Key, Rest...>();
    using K = leaf_t<T, leaf>;
    static_assert(std::is_arithmetic_v<K> && !std::is_same_v<K, bool>,
                  "layout::cuda::sort_by_key: the key field must be arithmetic");
    const cudaStream_t s = native(c.stream());
    const std::size_t n = c.size();
    const auto to = ws.element_view(c, n); // every allocation before the first write
    constexpr bool own_column = decltype(c.view().template leaf_column<leaf>())::is_contiguous;
    if constexpr (own_column) {
        // The key column is the sort's double buffer with the new block's column, as in a
        // hand-written step: the sorted keys land there, and the gather skips that leaf.
        K* old_keys = c.view().template leaf_column<leaf>().data();
        K* new_keys = to.template leaf_column<leaf>().data();
        const auto sorted = detail::sort_pairs_in(old_keys, new_keys, n, int(sizeof(K) * 8),
                                                  static_cast<Index*>(nullptr), ws, s, function);
        if (n && sorted.keys != new_keys)
            check(cudaMemcpyAsync(new_keys, sorted.keys, n * sizeof(K), cudaMemcpyDefault, s),
                  "cudaMemcpyAsync");
        detail::reorder_into_but<leaf>(c, to, sorted.perm, n, ws, s, function);
        return {sorted.perm, n};
    } else {
        // The keys and the first permutation in one pass, into the workspace, sorted there;
        // the gather then takes the key leaf from the sorted keys.
        const auto b = detail::copy_keys_and_positions<leaf, K, Index>(c.view(), ws, s, function);
        const auto sorted = detail::sort_prepared_pairs(b.keys, b.keys_alt, b.perm, b.perm_alt, n,
                                                        0, int(sizeof(K) * 8), ws, s, function);
        detail::reorder_into_with_keys<leaf>(c, sorted.perm, sorted.keys, n, ws, s, function);
        return {sorted.perm, n};
    }
}

} // namespace layout::cuda
