/// \file gpu_kernels.cuh
/// The hand-written GPU kernels of the particles example, and how each is launched on the memory
/// of a library container. The library variants need nothing here: they are
/// layout::cuda::for_each_index(view, functor), whose kernel is
/// layout::cuda::detail::for_each_index_kernel<View, F>.
///
/// Every kernel has the same shape, so that the SASS of a library kernel and of its raw twin can
/// be compared instruction by instruction (bench/sass_compare.py):
///     i = blockIdx.x * blockDim.x + threadIdx.x (as size_t);  if (i < n) <update element i>
/// launched with 256 threads per block, one thread per element. Raw kernels are named
/// raw_<layout>_<functor>_<struct>, e.g. raw_soa_drift_Particle.
#pragma once

#include "common.hpp"
#include "kernels.hpp"

#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

namespace particles {

inline constexpr unsigned threads_per_block = 256;

inline unsigned blocks_for(std::size_t n) {
    const std::size_t blocks = (n + threads_per_block - 1) / threads_per_block;
    if (blocks > 0x7fffffffu) throw std::length_error("particles: too many elements for one grid");
    return static_cast<unsigned>(blocks);
}

// ---- drift -----------------------------------------------------------------------------------

__global__ void raw_aos_drift_Particle(Particle* __restrict__ p, std::size_t n, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::drift(p, i, dt);
}
__global__ void raw_soa_drift_Particle(float* __restrict__ x, float* __restrict__ y,
                                       float* __restrict__ z, const float* __restrict__ vx,
                                       const float* __restrict__ vy, const float* __restrict__ vz,
                                       std::size_t n, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::drift(x, y, z, vx, vy, vz, i, dt);
}
__global__ void raw_aosoa32_drift_Particle(raw::ParticleBlock32* __restrict__ b, std::size_t n,
                                           float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::drift(b[i / 32], i % 32, dt);
}

__global__ void raw_split_drift_Particle(raw::Kinematics* __restrict__ k, std::size_t n, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::drift(k, i, dt);
}

// ---- wide drift --------------------------------------------------------------------------------

__global__ void raw_aos_wide_drift_WideParticle(WideParticle* __restrict__ p, std::size_t n,
                                                float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::wide_drift(p, i, dt);
}
__global__ void raw_soa_wide_drift_WideParticle(float* __restrict__ x, float* __restrict__ y,
                                                float* __restrict__ z, const float* __restrict__ vx,
                                                const float* __restrict__ vy,
                                                const float* __restrict__ vz, std::size_t n,
                                                float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::drift(x, y, z, vx, vy, vz, i, dt);
}
__global__ void raw_aosoa32_wide_drift_WideParticle(raw::WideBlock32* __restrict__ b, std::size_t n,
                                                    float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::wide_drift(b[i / 32], i % 32, dt);
}

// ---- one field ---------------------------------------------------------------------------------

__global__ void raw_aos_scale_mass_Particle(Particle* __restrict__ p, std::size_t n, float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(p, i, c);
}
__global__ void raw_soa_scale_mass_Particle(float* __restrict__ mass, std::size_t n, float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(mass, i, c);
}
__global__ void raw_aosoa32_scale_mass_Particle(raw::ParticleBlock32* __restrict__ b, std::size_t n,
                                                float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(b[i / 32], i % 32, c);
}
__global__ void raw_aos_scale_mass_WideParticle(WideParticle* __restrict__ p, std::size_t n,
                                                float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(p, i, c);
}
__global__ void raw_soa_scale_mass_WideParticle(float* __restrict__ mass, std::size_t n, float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(mass, i, c);
}
__global__ void raw_aosoa32_scale_mass_WideParticle(raw::WideBlock32* __restrict__ b, std::size_t n,
                                                    float c) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::scale_mass(b[i / 32], i % 32, c);
}

// ---- most fields -------------------------------------------------------------------------------

__global__ void raw_aos_integrate_WideParticle(integrate f, WideParticle* __restrict__ p,
                                               std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::integrate(f, p, i);
}
__global__ void raw_soa_integrate_WideParticle(
    integrate f, float* __restrict__ px, float* __restrict__ py, float* __restrict__ pz,
    float* __restrict__ vx, float* __restrict__ vy, float* __restrict__ vz, float* __restrict__ fx,
    float* __restrict__ fy, float* __restrict__ fz, const float* __restrict__ mass,
    const float* __restrict__ charge, float* __restrict__ energy,
    const std::int32_t* __restrict__ type, std::int32_t* __restrict__ cell,
    std::int32_t* __restrict__ flags, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n)
        raw::integrate(f, px, py, pz, vx, vy, vz, fx, fy, fz, mass, charge, energy, type, cell,
                       flags, i);
}
__global__ void raw_aosoa32_integrate_WideParticle(integrate f, raw::WideBlock32* __restrict__ b,
                                                   std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::integrate(f, b[i / 32], i % 32);
}

// ---- LLAMA's AoS, by hand -------------------------------------------------------------------------
//
// drift as LLAMA 0.6's AoS mapping makes nvcc compile `p(i)(Pos{}) += p(i)(Vel{}) * dt`, written
// out by hand (LLAMA is not a dependency of this project): the view holds a byte blob; each
// field's address is the blob plus the flat index times sizeof(Particle) plus the field's byte
// offset; the index is LLAMA's examples' unsigned `threadIdx.x + blockIdx.x * blockDim.x`; and
// `vel * dt` is a temporary record, so the three velocities are loaded before the first
// position is written.

__global__ void llama_aos_drift_Particle(std::byte* __restrict__ blob, std::size_t n, float dt) {
    const unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    std::byte* const element = blob + std::size_t{i} * sizeof(Particle);
    auto field = [element](std::size_t offset) -> float& {
        return *reinterpret_cast<float*>(element + offset);
    };
    const float vx = field(offsetof(Particle, vx)) * dt, vy = field(offsetof(Particle, vy)) * dt,
                vz = field(offsetof(Particle, vz)) * dt;
    field(offsetof(Particle, x)) += vx;
    field(offsetof(Particle, y)) += vy;
    field(offsetof(Particle, z)) += vz;
}

// ---- the copy bound ----------------------------------------------------------------------------

/// One float4 per thread, read once and written once: the practical bandwidth bound.
__global__ void copy_float4(const float4* __restrict__ src, float4* __restrict__ dst,
                            std::size_t n4) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n4) dst[i] = src[i];
}

// ---- launching the raw kernels on the memory of library containers ------------------------------

template <class T, class L>
using device_view = layout::view<T, L, layout::cuda::device_memory>;

/// Launches the raw kernel of functor f for the layout of v, on v's memory (overloads by view).
struct gpu_raw_runner {
    cudaStream_t stream = 0;

    void operator()(const drift& f, const device_view<Particle, aos>& v) const {
        raw_aos_drift_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aos_data(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_aos_drift_Particle");
    }
    void operator()(const drift& f, const device_view<Particle, soa>& v) const {
        using P = Particle;
        raw_soa_drift_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            col<&P::x>(v), col<&P::y>(v), col<&P::z>(v), col<&P::vx>(v), col<&P::vy>(v),
            col<&P::vz>(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_soa_drift_Particle");
    }
    void operator()(const drift& f, const device_view<Particle, aosoa32>& v) const {
        raw_aosoa32_drift_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_aosoa32_drift_Particle");
    }

    /// LLAMA's AoS drift, by hand (above).
    void llama(const drift& f, const device_view<Particle, aos>& v) const {
        llama_aos_drift_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            reinterpret_cast<std::byte*>(aos_data(v)), v.size(), f.dt);
        layout::cuda::check_launch("llama_aos_drift_Particle");
    }

    void operator()(const drift& f, const device_view<Particle, split_of<Particle>>& v) const {
        raw_split_drift_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            split_hot<raw::Kinematics>(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_split_drift_Particle");
    }
    void operator()(const wide_drift& f, const device_view<WideParticle, aos>& v) const {
        raw_aos_wide_drift_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aos_data(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_aos_wide_drift_WideParticle");
    }
    void operator()(const wide_drift& f, const device_view<WideParticle, soa>& v) const {
        using W = WideParticle;
        raw_soa_wide_drift_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v), col<&W::pos, &Vec3::z>(v),
            col<&W::vel, &Vec3::x>(v), col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v),
            v.size(), f.dt);
        layout::cuda::check_launch("raw_soa_wide_drift_WideParticle");
    }
    void operator()(const wide_drift& f, const device_view<WideParticle, aosoa32>& v) const {
        raw_aosoa32_wide_drift_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aosoa_blocks<raw::WideBlock32>(v), v.size(), f.dt);
        layout::cuda::check_launch("raw_aosoa32_wide_drift_WideParticle");
    }

    void operator()(const scale_mass& f, const device_view<Particle, aos>& v) const {
        raw_aos_scale_mass_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aos_data(v), v.size(), f.c);
        layout::cuda::check_launch("raw_aos_scale_mass_Particle");
    }
    void operator()(const scale_mass& f, const device_view<Particle, soa>& v) const {
        raw_soa_scale_mass_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            col<&Particle::mass>(v), v.size(), f.c);
        layout::cuda::check_launch("raw_soa_scale_mass_Particle");
    }
    void operator()(const scale_mass& f, const device_view<Particle, aosoa32>& v) const {
        raw_aosoa32_scale_mass_Particle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(), f.c);
        layout::cuda::check_launch("raw_aosoa32_scale_mass_Particle");
    }
    void operator()(const scale_mass& f, const device_view<WideParticle, aos>& v) const {
        raw_aos_scale_mass_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aos_data(v), v.size(), f.c);
        layout::cuda::check_launch("raw_aos_scale_mass_WideParticle");
    }
    void operator()(const scale_mass& f, const device_view<WideParticle, soa>& v) const {
        raw_soa_scale_mass_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            col<&WideParticle::mass>(v), v.size(), f.c);
        layout::cuda::check_launch("raw_soa_scale_mass_WideParticle");
    }
    void operator()(const scale_mass& f, const device_view<WideParticle, aosoa32>& v) const {
        raw_aosoa32_scale_mass_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            aosoa_blocks<raw::WideBlock32>(v), v.size(), f.c);
        layout::cuda::check_launch("raw_aosoa32_scale_mass_WideParticle");
    }

    void operator()(const integrate& f, const device_view<WideParticle, aos>& v) const {
        raw_aos_integrate_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            f, aos_data(v), v.size());
        layout::cuda::check_launch("raw_aos_integrate_WideParticle");
    }
    void operator()(const integrate& f, const device_view<WideParticle, soa>& v) const {
        using W = WideParticle;
        raw_soa_integrate_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            f, col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v), col<&W::pos, &Vec3::z>(v),
            col<&W::vel, &Vec3::x>(v), col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v),
            col<&W::force, &Vec3::x>(v), col<&W::force, &Vec3::y>(v), col<&W::force, &Vec3::z>(v),
            col<&W::mass>(v), col<&W::charge>(v), col<&W::energy>(v), col<&W::type>(v),
            col<&W::cell>(v), col<&W::flags>(v), v.size());
        layout::cuda::check_launch("raw_soa_integrate_WideParticle");
    }
    void operator()(const integrate& f, const device_view<WideParticle, aosoa32>& v) const {
        raw_aosoa32_integrate_WideParticle<<<blocks_for(v.size()), threads_per_block, 0, stream>>>(
            f, aosoa_blocks<raw::WideBlock32>(v), v.size());
        layout::cuda::check_launch("raw_aosoa32_integrate_WideParticle");
    }
};

/// Median time of fn (which enqueues work on stream) in microseconds: warm-up runs, then one pair
/// of events around each timed run.
template <class Fn>
double median_us_events(Fn&& fn, int warmup, int reps, cudaStream_t stream = 0) {
    for (int r = 0; r < warmup; ++r) fn();
    layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after warm-up");
    reps = reps < 1 ? 1 : reps;
    std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(reps));
    for (auto& e : events) layout::cuda::check(cudaEventCreate(&e), "cudaEventCreate");
    for (int r = 0; r < reps; ++r) {
        layout::cuda::check(cudaEventRecord(events[2 * r], stream), "cudaEventRecord");
        fn();
        layout::cuda::check(cudaEventRecord(events[2 * r + 1], stream), "cudaEventRecord");
    }
    layout::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after timed runs");
    std::vector<double> us(static_cast<std::size_t>(reps));
    for (int r = 0; r < reps; ++r) {
        float ms = 0;
        layout::cuda::check(cudaEventElapsedTime(&ms, events[2 * r], events[2 * r + 1]),
                            "cudaEventElapsedTime");
        us[r] = 1e3 * ms;
    }
    for (auto& e : events) cudaEventDestroy(e);
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

} // namespace particles
