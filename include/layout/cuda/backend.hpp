/// \file cuda/backend.hpp
/// The CUDA backend of the one-name algorithms (<layout/backend.hpp>): layout::copy, gather,
/// scatter, permute, permute_in_place, remove_if, stable_partition and for_each_index given a
/// view or container of device memory come here, to their layout::cuda versions, on the
/// container's stream (a view: the default stream; call layout::cuda::... to pass one).
///
///     layout::cuda::soa_vector<P> dev = host;
///     layout::gather(dev, device_indices, dev_out);   // = layout::cuda::gather(...), on the GPU
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/backend.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../backend.hpp"
#include "algorithms/compact.hpp"
#include "algorithms/gather_scatter.hpp"
#include "algorithms/permute.hpp"
#include "copy.hpp"
#include "for_each.hpp"
#include "memory.hpp"

#include <utility>

template <>
struct layout::device_backend<layout::cuda::device_memory> {
    static constexpr bool available = true;

    template <class Src, class Dst>
    static void copy(const Src& src, const Dst& dst, stream_ref stream) {
        cuda::copy(src, dst, stream);
    }
    template <class Src, class Indices, class Dst>
    static void gather(Src&& src, Indices&& indices, Dst&& dst) {
        cuda::gather(src, indices, dst);
    }
    template <class Src, class Indices, class Dst>
    static void scatter(Src&& src, Indices&& indices, Dst&& dst) {
        cuda::scatter(src, indices, dst);
    }
    template <class Src, class Perm, class Dst>
    static void permute(Src&& src, Perm&& perm, Dst&& dst) {
        cuda::permute(src, perm, dst);
    }
    template <class X, class Perm>
    static void permute_in_place(X&& x, Perm&& perm) {
        cuda::permute_in_place(x, perm);
    }
    template <class X, class Pred>
    static std::size_t remove_if(X&& x, Pred pred) {
        return cuda::remove_if(x, pred);
    }
    template <class X, class Pred>
    static std::size_t stable_partition(X&& x, Pred pred) {
        return cuda::stable_partition(x, pred);
    }
    template <class View, class F>
    static void for_each_index(const View& v, const F& f) {
        cuda::for_each_index(v, f);
    }
};
