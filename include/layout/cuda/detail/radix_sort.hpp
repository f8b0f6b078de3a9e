/// \file cuda/detail/radix_sort.hpp
/// The stable radix sort of (key, value) pairs that sort_by_key, bin_by_key and the device MPI
/// plans share: CUB's DeviceRadixSort::SortPairs, asked for its temporary storage's size, then
/// run with it from the workspace's temp slot (kept across calls: nothing allocated once warm);
/// and iota_kernel, which writes the values 0, 1, ... that make the sorted values a permutation.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/radix_sort.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../error.hpp"
#include "../workspace.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstddef>

namespace layout::cuda::detail {

/// out[i] = i for i < n. (A template, as every kernel of the library: any translation unit may
/// define it.)
template <class Index>
__global__ void iota_kernel(Index* out, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<Index>(i);
}

/// sort(temp, bytes) twice: with no storage (CUB says how much it needs), then with that much
/// from ws's temp slot.
template <class Sort>
void with_temp_storage(workspace& ws, Sort sort) {
    std::size_t bytes = 0;
    check(sort(nullptr, bytes), "cub::DeviceRadixSort::SortPairs");
    void* temp = ws.bytes(workspace::slot::temp, bytes);
    check(sort(temp, bytes), "cub::DeviceRadixSort::SortPairs");
}

/// The n pairs (keys[i], values[i]) in the stable order of the keys' bits [begin_bit, end_bit),
/// into keys_out and values_out (the inputs stay as they are). Count: CUB's offset type follows
/// it (32-bit offsets for a 32-bit count).
template <class Key, class Value, class Count>
void radix_sort_pairs(const Key* keys, Key* keys_out, const Value* values, Value* values_out,
                      Count n, int begin_bit, int end_bit, workspace& ws, cudaStream_t stream) {
    with_temp_storage(ws, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_out, values, values_out, n,
                                               begin_bit, end_bit, stream);
    });
}

/// The same between double buffers, whose current halves are sorted and may end in either half
/// (CUB skips a pass whose digit is the same for every key, and never copies back).
template <class Key, class Value, class Count>
void radix_sort_pairs(cub::DoubleBuffer<Key>& keys, cub::DoubleBuffer<Value>& values, Count n,
                      int begin_bit, int end_bit, workspace& ws, cudaStream_t stream) {
    with_temp_storage(ws, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, begin_bit, end_bit,
                                               stream);
    });
}

} // namespace layout::cuda::detail
