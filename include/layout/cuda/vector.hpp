/// \file cuda/vector.hpp
/// Containers in CUDA memory: layout::vector with a device, pinned or managed memory space.
///
///     layout::cuda::soa_vector<Particle> dev = host;     // one cudaMemcpyAsync per column
///     layout::cuda::aosoa<Particle, 32> chunks = dev;    // converted on the GPU
///     layout::soa_vector<Particle> back = chunks;        // converted on the GPU, then copied
///     drift<<<blocks, 256>>>(dev.view(), dt);
///
/// Device work is ordered on the container's stream (the default stream unless one is given) and
/// never synchronizes the device; blocks come from the device's stream-ordered pool
/// (cuda::device_resource), and are not zeroed (only padding that copies read is). Assignment
/// reuses the destination's block when the source fits in its capacity, as std::vector does. A
/// failed allocation throws layout::cuda::bad_alloc naming the size; the container is unchanged.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/vector.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../policies.hpp"
#include "../vector.hpp"
#include "memory.hpp"
#include "transfer.hpp"

#include <cstddef>

namespace layout::cuda {

template <class T>
using aos_vector = layout::vector<T, policy::aos, device_memory>;
template <class T>
using soa_vector = layout::vector<T, policy::soa, device_memory>;
template <class T, std::size_t Lanes>
using aosoa = layout::vector<T, policy::aosoa<Lanes>, device_memory>;

} // namespace layout::cuda
