/// \file device_containers.hpp
/// The containers of a test layout kind (test_types.hpp: aos_layout, soa_layout, aosoa_layout<N>)
/// in each memory space, for the GPU tests.
#pragma once

#include "../host/test_types.hpp"

#include <layout/layout.hpp>

namespace layout_test {

template <class L, class T>
using device_container = layout::vector<T, typename L::policy, layout::cuda::device_memory>;
template <class L, class T>
using pinned_container = layout::vector<T, typename L::policy, layout::cuda::pinned_memory>;
template <class L, class T>
using managed_container = layout::vector<T, typename L::policy, layout::cuda::managed_memory>;
template <class L, class T>
using host_container = typename L::template container<T>;

} // namespace layout_test
