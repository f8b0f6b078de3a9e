/// \file gpu_forces.hpp
/// The full-list force kernel of md_gpu and md_mpi_gpu: lj_full over a range of atoms with
/// `lanes` threads an atom. One thread an atom leaves a small range's GPU mostly idle, each
/// thread walking its ~77 neighbours' loads one after another (32,000 atoms are an eighth of
/// what an H100 holds at once); with several, each lane takes every lanes-th pair
/// (lj_full::partial), the lanes' sums are added pairwise in a fixed order (the thermo is the
/// same every run) and the first lane stores them (lj_full::store). One lane is operator()'s
/// arithmetic exactly.
#pragma once

#if !defined(__CUDACC__)
#  error "gpu_forces.hpp needs a CUDA compiler (nvcc)"
#endif

#include "kernels.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace md::gpu {

/// Atom first + t / Lanes of thread t, lane t % Lanes.
template <unsigned Lanes, class View, class F>
__global__ void full_forces_kernel(View a, F f, std::size_t first, std::size_t last) {
    const std::size_t t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const std::size_t i = first + t / Lanes;
    const unsigned lane = static_cast<unsigned>(t % Lanes);
    typename F::sums s{}; // past the last atom: zeros, so that every lane takes part below
    if (i < last) s = f.partial(a, i, lane, Lanes);
    if constexpr (Lanes > 1)
        for (unsigned d = Lanes / 2; d > 0; d /= 2) {
            s.fx += __shfl_down_sync(0xffffffffu, s.fx, d, Lanes);
            s.fy += __shfl_down_sync(0xffffffffu, s.fy, d, Lanes);
            s.fz += __shfl_down_sync(0xffffffffu, s.fz, d, Lanes);
            s.eng += __shfl_down_sync(0xffffffffu, s.eng, d, Lanes);
            s.vir += __shfl_down_sync(0xffffffffu, s.vir, d, Lanes);
        }
    if (lane == 0 && i < last) f.store(a, i, s);
}

inline void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("md: ") + what + ": " + cudaGetErrorString(e));
}

/// Threads the current device holds at once (SMs x threads an SM).
inline std::size_t resident_threads() {
    int device = 0, sms = 0, threads = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
               "cudaDeviceGetAttribute");
    check_cuda(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device),
               "cudaDeviceGetAttribute");
    return static_cast<std::size_t>(sms) * static_cast<std::size_t>(threads);
}

/// Threads an atom for n atoms: the fewest of 1, 2, 4, 8 that give the GPU at least the threads
/// it holds at once (8 at most).
inline int lanes_for(std::size_t n, std::size_t resident) {
    int lanes = 1;
    while (lanes < 8 && n * static_cast<std::size_t>(lanes) < resident) lanes *= 2;
    return lanes;
}

/// lanes_for n atoms on the current device.
inline int lanes_for(std::size_t n) {
    static const std::size_t resident = resident_threads(); // once: a process keeps its device
    return lanes_for(n, resident);
}

/// f's forces of atoms [first, last) of a (which views every atom a pair may read) with `lanes`
/// threads an atom (1, 2, 4 or 8; 0: lanes_for the range's length), on stream s.
template <class View, class F>
void full_forces(const View& a, const F& f, std::size_t first, std::size_t last, int lanes,
                 cudaStream_t s) {
    if (first >= last) return;
    if (lanes == 0) lanes = lanes_for(last - first);
    constexpr unsigned block = 256;
    const auto grid = static_cast<unsigned>(
        ((last - first) * static_cast<std::size_t>(lanes) + block - 1) / block);
    switch (lanes) {
    case 1:
        full_forces_kernel<1><<<grid, block, 0, s>>>(a, f, first, last);
        break;
    case 2:
        full_forces_kernel<2><<<grid, block, 0, s>>>(a, f, first, last);
        break;
    case 4:
        full_forces_kernel<4><<<grid, block, 0, s>>>(a, f, first, last);
        break;
    case 8:
        full_forces_kernel<8><<<grid, block, 0, s>>>(a, f, first, last);
        break;
    default:
        throw std::invalid_argument("md: threads an atom: 1, 2, 4 or 8");
    }
    check_cuda(cudaGetLastError(), "md force kernel launch");
}

} // namespace md::gpu
