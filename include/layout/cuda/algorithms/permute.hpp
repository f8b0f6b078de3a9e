/// \file cuda/algorithms/permute.hpp
/// layout::cuda::permute and layout::cuda::permute_in_place: a gather whose indices are a
/// permutation of [0, n) (checked with LAYOUT_CHECK_BOUNDS), into another view or in place
/// through a stream-ordered scratch copy (detail::permute_scratch, which sort_by_key and
/// bin_by_key allocate before they change the keys).
///
///     layout::cuda::permute(src, perm, dst);            // dst[i] = src[perm[i]]
///     layout::cuda::permute_in_place(particles, perm);  // the same, through a scratch copy
///
/// The contracts are in <layout/cuda/algorithms.hpp>.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms/permute.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../algorithms/detail/algorithm_checks.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../runs.hpp"
#include "../../scratch.hpp"
#include "../../view.hpp"
#include "../detail/algorithm_checks.hpp"
#include "../detail/device_ranges.hpp"
#include "../detail/launch.hpp"
#include "../error.hpp"
#include "../memory.hpp"
#include "gather_scatter.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace layout::cuda {
namespace detail {

/// A stream-ordered scratch block with room for a copy of v in its own layout, from resource
/// (the container's where there is one). Callers that change data before permuting (sort_by_key
/// sorts the keys) allocate it first, so that an allocation failure throws before anything has
/// changed; and they save() v before they change it, so that keys that are one of v's own
/// columns are gathered from their old order. (A container is reordered through a workspace's
/// second block instead, with one pass less: reorder.hpp.)
///
///     permute_scratch scratch(v, stream, resource);   // allocates: may throw, nothing changed
///     scratch.save(stream);                 // v's bytes into the scratch block
///     ... sort the keys (perhaps a column of v) ...
///     scratch.gather_back(perm, stream, function);   // v[i] = saved v[perm[i]]
template <class T, class L, class M>
class permute_scratch {
public:
    permute_scratch(const layout::view<T, L, M>& v, cudaStream_t stream, resource_ref resource)
        : v_(v), block_(v.size(), resource, stream) {}

    /// Copies v into the scratch block (stream-ordered).
    void save(cudaStream_t stream) const {
        layout::detail::for_each_run(
            copy(), layout::view<const T, L, M>(v_), v_.size(),
            [&](void* d, const void* s, std::size_t bytes) {
                check(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
            });
    }

    /// v[i] = saved v[perm[i]] for every i.
    template <class I>
    void gather_back(const I* perm, cudaStream_t stream, const char* function) const {
        if (v_.size() == 0) return;
        launch_gather(v_, layout::view<const T, L, device_memory>(copy()), perm, v_.size(), stream,
                      function);
    }

    /// v[i] = old v[perm[i]]: save(), then gather_back().
    template <class I>
    void permute(const I* perm, cudaStream_t stream, const char* function) const {
        save(stream);
        gather_back(perm, stream, function);
    }

private:
    layout::view<T, L, device_memory> copy() const noexcept { return block_.view(); }
    layout::view<T, L, M> v_;
    layout::scratch<T, L, device_memory> block_;
};

} // namespace detail

// ---- permute ------------------------------------------------------------------------------------

/// dst[i] = src[perm[i]] with perm a permutation of [0, n) (checked with LAYOUT_CHECK_BOUNDS).
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void permute(Src&& src, const I* perm, std::size_t count, Dst&& dst, stream_ref stream) {
    constexpr const char* function = "layout::cuda::permute";
    const cudaStream_t s = native(stream);
    const auto [sv, dv] =
        detail::check_device_move(function, src, dst, count, layout::detail::per_index::both);
    detail::validate_permutation(function, perm, count, s);
    detail::launch_gather(dv, sv, perm, count, s, function);
}
/// On dst's stream where dst is a container, else src's, else the default stream.
template <layout::detail::viewable Src, class I, layout::detail::viewable Dst>
    requires std::is_integral_v<I>
void permute(Src&& src, const I* perm, std::size_t count, Dst&& dst) {
    cuda::permute(src, perm, count, dst, detail::stream_for(dst, src));
}

template <layout::detail::viewable Src, detail::device_index_range Perm,
          layout::detail::viewable Dst>
void permute(Src&& src, Perm&& perm, Dst&& dst, stream_ref stream) {
    const auto p = detail::device_span(perm);
    cuda::permute(src, p.data(), p.size(), dst, stream);
}
template <layout::detail::viewable Src, detail::device_index_range Perm,
          layout::detail::viewable Dst>
void permute(Src&& src, Perm&& perm, Dst&& dst) {
    cuda::permute(src, perm, dst, detail::stream_for(dst, src));
}

/// x[i] = old x[perm[i]] through a scratch copy of x (same layout, stream-ordered, from x's
/// resource where x is a container), so views of x stay valid. Costs one device copy of x plus
/// one gather.
template <layout::detail::viewable X, class I>
    requires std::is_integral_v<I>
void permute_in_place(X&& x, const I* perm, std::size_t count, stream_ref stream) {
    detail::check_device_container<X>();
    const auto v = layout::detail::as_view(x);
    static_assert(!std::is_const_v<typename decltype(v)::element_type>,
                  "layout::cuda::permute_in_place: the view or container is read-only");
    constexpr const char* function = "layout::cuda::permute_in_place";
    const cudaStream_t s = native(stream);
    if (count != v.size())
        layout::detail::throw_size_mismatch(function, count, "indices", v.size(), "the view");
#if LAYOUT_CHECK_BOUNDS
    detail::check_views_accessible(function, v, v);
#endif
    detail::validate_permutation(function, perm, count, s);
    detail::permute_scratch(v, s, detail::resource_for(x)).permute(perm, s, function);
}
template <layout::detail::viewable X, class I>
    requires std::is_integral_v<I>
void permute_in_place(X&& x, const I* perm, std::size_t count) {
    cuda::permute_in_place(x, perm, count, detail::stream_for(x));
}

template <layout::detail::viewable X, detail::device_index_range Perm>
void permute_in_place(X&& x, Perm&& perm, stream_ref stream) {
    const auto p = detail::device_span(perm);
    cuda::permute_in_place(x, p.data(), p.size(), stream);
}
template <layout::detail::viewable X, detail::device_index_range Perm>
void permute_in_place(X&& x, Perm&& perm) {
    cuda::permute_in_place(x, perm, detail::stream_for(x));
}

} // namespace layout::cuda
