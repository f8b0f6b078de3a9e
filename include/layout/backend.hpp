/// \file backend.hpp
/// Where a copy or an algorithm runs, chosen at compile time from its arguments' memory spaces
/// (as thrust chooses a system from its iterators): on the host where the host can reach every
/// argument, else through the device backend of the memory space the host cannot reach.
///
///     layout::gather(host_src, idx, host_dst);   // host loops
///     layout::gather(dev_src, idx, dev_dst);     // device_backend<cuda::device_memory>::gather
///
/// A backend specializes device_backend for its memory spaces (<layout/cuda/backend.hpp> for
/// the CUDA ones), with `available = true` and the entry points the algorithms forward to.
#pragma once

#include "memory.hpp"

#include <type_traits>

namespace layout {

/// The device implementations for memory space Memory; none unless a backend header says so.
template <class Memory>
struct device_backend {
    static constexpr bool available = false;
};

namespace detail {

template <class X>
struct memory_of_argument {
    using type = host_memory; // spans of indices, keys and other host ranges
};
template <class X>
    requires requires { typename X::memory_type; }
struct memory_of_argument<X> {
    using type = typename X::memory_type;
};
/// The memory space of a view or container (views know theirs); host memory for anything else.
template <class X>
using memory_of_argument_t = typename memory_of_argument<std::remove_cvref_t<X>>::type;

/// Whether some argument lives where the host cannot reach it.
template <class... X>
inline constexpr bool on_device_v = (!memory_of_argument_t<X>::host_accessible || ...);

/// The backend of the first argument the host cannot reach.
template <class X, class... Rest>
struct device_backend_of {
    using type = std::conditional_t<!memory_of_argument_t<X>::host_accessible,
                                    device_backend<memory_of_argument_t<X>>,
                                    typename device_backend_of<Rest...>::type>;
};
template <class X>
struct device_backend_of<X> {
    using type = device_backend<memory_of_argument_t<X>>;
};

/// The device backend for arguments X..., checked: a clear error where none is included.
template <class... X>
constexpr auto device_backend_for() {
    using B = typename device_backend_of<X...>::type;
    static_assert(B::available,
                  "layout: an argument is in device memory and no device backend is included: "
                  "include <layout/cuda/algorithms.hpp> (compiled by nvcc)");
    return B{};
}

} // namespace detail
} // namespace layout
