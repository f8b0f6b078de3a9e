/// \file cpu_driver.hpp
/// The particles example on the host: the kernels of kernels.hpp through layout::for_each_index
/// under aos, soa and aosoa<32>, next to hand-written loops, on one thread, timed with
/// std::chrono (median). Shared by particles.cpp and by particles.cu (when there is no GPU).
#pragma once

#include "common.hpp"

#include <layout/layout.hpp>

#include <chrono>
#include <cstdio>

namespace particles {
namespace cpu_raw {

// The hand-written loops: __restrict__ parameters, one loop, nothing else. Kept out of line:
// g++ 12 drops the parameters' restrict when it inlines such a function into its caller, and
// then does not vectorize the loop at all.

[[gnu::noinline]] inline void drift_aos(Particle* LAYOUT_RESTRICT p, std::size_t n, float dt) {
    for (std::size_t i = 0; i < n; ++i) raw::drift(p, i, dt);
}
[[gnu::noinline]] inline void drift_soa(float* LAYOUT_RESTRICT x, float* LAYOUT_RESTRICT y,
                                        float* LAYOUT_RESTRICT z, const float* LAYOUT_RESTRICT vx,
                                        const float* LAYOUT_RESTRICT vy,
                                        const float* LAYOUT_RESTRICT vz, std::size_t n, float dt) {
    for (std::size_t i = 0; i < n; ++i) raw::drift(x, y, z, vx, vy, vz, i, dt);
}
/// AoSoA: an outer loop over blocks and an inner one over the 32 lanes, which vectorizes.
template <class Block, class Body>
[[gnu::noinline]] void blocks_loop(Block* LAYOUT_RESTRICT b, std::size_t n, Body body) {
    const std::size_t full = n / 32;
    for (std::size_t k = 0; k < full; ++k)
        for (std::size_t l = 0; l < 32; ++l) body(b[k], l);
    for (std::size_t l = 0; l < n % 32; ++l) body(b[full], l);
}

[[gnu::noinline]] inline void wide_drift_aos(WideParticle* LAYOUT_RESTRICT p, std::size_t n,
                                             float dt) {
    for (std::size_t i = 0; i < n; ++i) raw::wide_drift(p, i, dt);
}

template <class T>
[[gnu::noinline]] void scale_mass_aos(T* LAYOUT_RESTRICT p, std::size_t n, float c) {
    for (std::size_t i = 0; i < n; ++i) raw::scale_mass(p, i, c);
}
[[gnu::noinline]] inline void scale_mass_soa(float* LAYOUT_RESTRICT mass, std::size_t n, float c) {
    for (std::size_t i = 0; i < n; ++i) raw::scale_mass(mass, i, c);
}

[[gnu::noinline]] inline void integrate_aos(const integrate& f, WideParticle* LAYOUT_RESTRICT p,
                                            std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) raw::integrate(f, p, i);
}
[[gnu::noinline]] inline void
integrate_soa(const integrate& f, float* LAYOUT_RESTRICT px, float* LAYOUT_RESTRICT py,
              float* LAYOUT_RESTRICT pz, float* LAYOUT_RESTRICT vx, float* LAYOUT_RESTRICT vy,
              float* LAYOUT_RESTRICT vz, float* LAYOUT_RESTRICT fx, float* LAYOUT_RESTRICT fy,
              float* LAYOUT_RESTRICT fz, const float* LAYOUT_RESTRICT mass,
              const float* LAYOUT_RESTRICT charge, float* LAYOUT_RESTRICT energy,
              const std::int32_t* LAYOUT_RESTRICT type, std::int32_t* LAYOUT_RESTRICT cell,
              std::int32_t* LAYOUT_RESTRICT flags, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        raw::integrate(f, px, py, pz, vx, vy, vz, fx, fy, fz, mass, charge, energy, type, cell,
                       flags, i);
}

} // namespace cpu_raw

/// The raw variant of each kernel on the host, for each layout (overloads by view type).
struct cpu_raw_runner {
    void operator()(const drift& f, const layout::view<Particle, aos>& v) const {
        cpu_raw::drift_aos(aos_data(v), v.size(), f.dt);
    }
    void operator()(const drift& f, const layout::view<Particle, soa>& v) const {
        using P = Particle;
        cpu_raw::drift_soa(col<&P::x>(v), col<&P::y>(v), col<&P::z>(v), col<&P::vx>(v),
                           col<&P::vy>(v), col<&P::vz>(v), v.size(), f.dt);
    }
    void operator()(const drift& f, const layout::view<Particle, aosoa32>& v) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(),
            [dt = f.dt](raw::ParticleBlock32& b, std::size_t l) { raw::drift(b, l, dt); });
    }

    void operator()(const wide_drift& f, const layout::view<WideParticle, aos>& v) const {
        cpu_raw::wide_drift_aos(aos_data(v), v.size(), f.dt);
    }
    void operator()(const wide_drift& f, const layout::view<WideParticle, soa>& v) const {
        using W = WideParticle;
        cpu_raw::drift_soa(col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v),
                           col<&W::pos, &Vec3::z>(v), col<&W::vel, &Vec3::x>(v),
                           col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v), v.size(), f.dt);
    }
    void operator()(const wide_drift& f, const layout::view<WideParticle, aosoa32>& v) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::WideBlock32>(v), v.size(),
            [dt = f.dt](raw::WideBlock32& b, std::size_t l) { raw::wide_drift(b, l, dt); });
    }

    template <class T>
    void operator()(const scale_mass& f, const layout::view<T, aos>& v) const {
        cpu_raw::scale_mass_aos(aos_data(v), v.size(), f.c);
    }
    template <class T>
    void operator()(const scale_mass& f, const layout::view<T, soa>& v) const {
        cpu_raw::scale_mass_soa(col<&T::mass>(v), v.size(), f.c);
    }
    void operator()(const scale_mass& f, const layout::view<Particle, aosoa32>& v) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(),
            [c = f.c](raw::ParticleBlock32& b, std::size_t l) { raw::scale_mass(b, l, c); });
    }
    void operator()(const scale_mass& f, const layout::view<WideParticle, aosoa32>& v) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::WideBlock32>(v), v.size(),
            [c = f.c](raw::WideBlock32& b, std::size_t l) { raw::scale_mass(b, l, c); });
    }

    void operator()(const integrate& f, const layout::view<WideParticle, aos>& v) const {
        cpu_raw::integrate_aos(f, aos_data(v), v.size());
    }
    void operator()(const integrate& f, const layout::view<WideParticle, soa>& v) const {
        using W = WideParticle;
        cpu_raw::integrate_soa(
            f, col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v), col<&W::pos, &Vec3::z>(v),
            col<&W::vel, &Vec3::x>(v), col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v),
            col<&W::force, &Vec3::x>(v), col<&W::force, &Vec3::y>(v), col<&W::force, &Vec3::z>(v),
            col<&W::mass>(v), col<&W::charge>(v), col<&W::energy>(v), col<&W::type>(v),
            col<&W::cell>(v), col<&W::flags>(v), v.size());
    }
    void operator()(const integrate& f, const layout::view<WideParticle, aosoa32>& v) const {
        cpu_raw::blocks_loop(aosoa_blocks<raw::WideBlock32>(v), v.size(),
                             [&f](raw::WideBlock32& b, std::size_t l) { raw::integrate(f, b, l); });
    }
};

struct cpu_backend {
    template <class T, class L>
    using container = layout::vector<T, L>;

    template <class F, class View>
    void run_lib(const F& f, const View& v) const {
        layout::for_each_index(v, f);
    }
    template <class F, class View>
    void run_raw(const F& f, const View& v) const {
        cpu_raw_runner{}(f, v);
    }
    void sync() const {}

    template <class Fn>
    double median_us(Fn&& fn, int warmup, int reps) const {
        for (int r = 0; r < warmup; ++r) fn();
        std::vector<double> us;
        for (int r = 0; r < std::max(reps, 1); ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            fn();
            const auto t1 = std::chrono::steady_clock::now();
            us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
        std::sort(us.begin(), us.end());
        return us[us.size() / 2];
    }
};

/// Copy bandwidth of one thread: std::copy of floats, bytes read + bytes written.
inline double cpu_copy_gbps(std::size_t bytes, int warmup, int reps) {
    std::vector<float> src(bytes / sizeof(float)), dst(bytes / sizeof(float));
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 1000) + 0.5f;
    const double us = cpu_backend{}.median_us(
        [&] { std::copy(src.begin(), src.end(), dst.begin()); }, warmup, reps);
    if (dst != src) {
        std::printf("FAILED: the copy kernel copied wrongly\n");
        std::exit(1);
    }
    return 2.0 * double(src.size() * sizeof(float)) / (us * 1e3);
}

/// The CPU run: returns the process exit status (non-zero if any verification failed).
inline int run_cpu(options opt) {
    if (opt.n == 0) opt.n = std::size_t{8} << 20;
    if (opt.reps == 0) opt.reps = 10;
    if (opt.warmup < 0) opt.warmup = 1;
    std::printf(
        "particles (CPU, one thread): n = %zu particles, median of %d runs after %d warm-up%s\n",
        opt.n, opt.reps, opt.warmup,
        LAYOUT_CHECK_BOUNDS ? " [bounds checks ON: library timings include them]" : "");
    const std::size_t copy_bytes = opt.n * sizeof(Particle);
    const double copy = cpu_copy_gbps(copy_bytes, opt.warmup, opt.reps);
    std::printf("std::copy of %zu bytes: %.1f GB/s (read + written)\n", copy_bytes, copy);
    std::fflush(stdout);

    report rep;
    rep.granule = 64;
    run_cases(cpu_backend{}, opt, rep);
    char what[96];
    std::snprintf(what, sizeof what, "std::copy of floats, one thread, %zu B", copy_bytes);
    print_table(rep, copy, what);
    return rep.all_ok ? 0 : 1;
}

} // namespace particles
