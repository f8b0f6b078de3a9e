/// \file cuda/detail/device_ranges.hpp
/// What the device algorithms accept as indices and keys: a std::span over device memory, a
/// view<I, aos> of it, or a layout::vector<I, aos, M> in device-reachable memory (a
/// layout::cuda::aos_vector<I>), each seen as a std::span.
///
///     layout::cuda::aos_vector<std::uint32_t> idx = host_indices;
///     layout::cuda::detail::device_span(idx)   // std::span<std::uint32_t> over device memory
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/device_ranges.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../algorithms/detail/algorithm_arguments.hpp"
#include "../../config.hpp"
#include "../../policies.hpp"
#include "../../vector.hpp"
#include "../../view.hpp"

#include <cstddef>
#include <span>
#include <type_traits>

namespace layout::cuda::detail {

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
template <class E, class M>
struct device_range_traits<layout::view<E, policy::aos, M>> {
    static constexpr bool ok = std::is_scalar_v<std::remove_const_t<E>>;
    using element = E;
    static std::span<E> span(const layout::view<E, policy::aos, M>& v) noexcept {
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
    device_traits_t<X>::ok && std::is_integral_v<std::remove_const_t<device_element_t<X>>> &&
    !std::is_same_v<std::remove_const_t<device_element_t<X>>, bool>;

/// Writable keys in device memory (sort_by_key sorts them in place).
template <class X>
concept device_key_range =
    device_traits_t<X>::ok && !std::is_const_v<device_element_t<X>> &&
    std::is_arithmetic_v<device_element_t<X>> && !std::is_same_v<device_element_t<X>, bool>;

template <class X>
auto device_span(X& x) noexcept {
    return device_traits_t<X&>::span(x);
}

} // namespace layout::cuda::detail
