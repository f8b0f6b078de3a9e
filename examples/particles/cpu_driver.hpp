/// \file cpu_driver.hpp
/// The particles example on the host: the kernels of kernels.hpp through layout::for_each_index
/// under aos, soa, aosoa<32> and split_of<T>, next to hand-written loops, on one thread and on
/// all OpenMP threads (the library with exec::serial and exec::parallel, the hand-written loops
/// cut the same way), timed with std::chrono (median). Shared by particles.cpp and by
/// particles.cu (when there is no GPU; built without OpenMP there, so its "all threads" table
/// runs on one).
#pragma once

#include "common.hpp"

#include <layout/layout.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <type_traits>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace particles {
namespace cpu_raw {

// The hand-written loops: __restrict__ parameters, one loop, nothing else. Kept out of line:
// g++ 12 drops the parameters' restrict when it inlines such a function into its caller, and
// then does not vectorize the loop at all.

[[gnu::noinline]] inline void drift_aos(Particle* LAYOUT_RESTRICT p, std::size_t begin,
                                        std::size_t end, float dt) {
    for (std::size_t i = begin; i < end; ++i) raw::drift(p, i, dt);
}
[[gnu::noinline]] inline void drift_soa(float* LAYOUT_RESTRICT x, float* LAYOUT_RESTRICT y,
                                        float* LAYOUT_RESTRICT z, const float* LAYOUT_RESTRICT vx,
                                        const float* LAYOUT_RESTRICT vy,
                                        const float* LAYOUT_RESTRICT vz, std::size_t begin,
                                        std::size_t end, float dt) {
    for (std::size_t i = begin; i < end; ++i) raw::drift(x, y, z, vx, vy, vz, i, dt);
}
/// AoSoA: an outer loop over blocks [first, end) and an inner one over the 32 lanes, which
/// vectorizes; the view's partial last block, if in the range, after the full ones. flatten:
/// the body is written into the loop, as by hand (g++ -O2 had left the 16-field body a call
/// per element).
template <class Block, class Body>
[[gnu::noinline, gnu::flatten]] void blocks_loop(Block* LAYOUT_RESTRICT b, std::size_t n,
                                                 std::size_t first, std::size_t end, Body body) {
    const std::size_t full = std::min(end, n / 32);
    for (std::size_t k = first; k < full; ++k)
        for (std::size_t l = 0; l < 32; ++l) body(b[k], l);
    if (full < end)
        for (std::size_t l = 0; l < n % 32; ++l) body(b[full], l);
}

[[gnu::noinline]] inline void wide_drift_aos(WideParticle* LAYOUT_RESTRICT p, std::size_t begin,
                                             std::size_t end, float dt) {
    for (std::size_t i = begin; i < end; ++i) raw::wide_drift(p, i, dt);
}

template <class T>
[[gnu::noinline]] void scale_mass_aos(T* LAYOUT_RESTRICT p, std::size_t begin, std::size_t end,
                                      float c) {
    for (std::size_t i = begin; i < end; ++i) raw::scale_mass(p, i, c);
}
[[gnu::noinline]] inline void scale_mass_soa(float* LAYOUT_RESTRICT mass, std::size_t begin,
                                             std::size_t end, float c) {
    for (std::size_t i = begin; i < end; ++i) raw::scale_mass(mass, i, c);
}

[[gnu::noinline]] inline void integrate_aos(const integrate& f, WideParticle* LAYOUT_RESTRICT p,
                                            std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) raw::integrate(f, p, i);
}
[[gnu::noinline]] inline void
integrate_soa(const integrate& f, float* LAYOUT_RESTRICT px, float* LAYOUT_RESTRICT py,
              float* LAYOUT_RESTRICT pz, float* LAYOUT_RESTRICT vx, float* LAYOUT_RESTRICT vy,
              float* LAYOUT_RESTRICT vz, float* LAYOUT_RESTRICT fx, float* LAYOUT_RESTRICT fy,
              float* LAYOUT_RESTRICT fz, const float* LAYOUT_RESTRICT mass,
              const float* LAYOUT_RESTRICT charge, float* LAYOUT_RESTRICT energy,
              const std::int32_t* LAYOUT_RESTRICT type, std::int32_t* LAYOUT_RESTRICT cell,
              std::int32_t* LAYOUT_RESTRICT flags, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
        raw::integrate(f, px, py, pz, vx, vy, vz, fx, fy, fz, mass, charge, energy, type, cell,
                       flags, i);
}

// The hot part of either split is raw::Kinematics, byte for byte: element i's x at 24 i, its
// vx (the wide particle's vel.x, leaf 3) 12 bytes further.
template <class T>
constexpr bool hot_part_is_kinematics(std::size_t capacity) {
    using map = layout::mapping<T, split_of<T>>;
    return map::offset(1, 0, capacity) == sizeof(raw::Kinematics) &&
           map::offset(5, 3, capacity) ==
               5 * sizeof(raw::Kinematics) + offsetof(raw::Kinematics, vx);
}
static_assert(hot_part_is_kinematics<Particle>(1000) && hot_part_is_kinematics<WideParticle>(1000));

/// Split (particles::split_of): what a hand-written hot/cold split is, the hot fields an array
/// of one plain struct (raw::Kinematics: x y z vx vy vz, and pos vel of the wide particle, the
/// same six floats), the cold ones one restrict column each. one_field's mass is a cold column:
/// scale_mass_soa above.
[[gnu::noinline]] inline void drift_split(raw::Kinematics* LAYOUT_RESTRICT hot, std::size_t begin,
                                          std::size_t end, float dt) {
    for (std::size_t i = begin; i < end; ++i) raw::drift(hot, i, dt);
}
[[gnu::noinline]] inline void
integrate_split(const integrate& f, raw::Kinematics* LAYOUT_RESTRICT hot, float* LAYOUT_RESTRICT fx,
                float* LAYOUT_RESTRICT fy, float* LAYOUT_RESTRICT fz,
                const float* LAYOUT_RESTRICT mass, const float* LAYOUT_RESTRICT charge,
                float* LAYOUT_RESTRICT energy, const std::int32_t* LAYOUT_RESTRICT type,
                std::int32_t* LAYOUT_RESTRICT cell, std::int32_t* LAYOUT_RESTRICT flags,
                std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
        raw::Kinematics& k = hot[i];
        f.step(k.x, k.y, k.z, k.vx, k.vy, k.vz, fx[i], fy[i], fz[i], mass[i], charge[i], energy[i],
               type[i], cell[i], flags[i]);
    }
}

} // namespace cpu_raw

/// The raw variant of each kernel on the host, for each layout (overloads by view type), over
/// units [begin, end) of the view: elements (aos, soa) or 32-element blocks (aosoa32).
struct cpu_raw_runner {
    void operator()(const drift& f, const layout::view<Particle, aos>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::drift_aos(aos_data(v), b, e, f.dt);
    }
    void operator()(const drift& f, const layout::view<Particle, soa>& v, std::size_t b,
                    std::size_t e) const {
        using P = Particle;
        cpu_raw::drift_soa(col<&P::x>(v), col<&P::y>(v), col<&P::z>(v), col<&P::vx>(v),
                           col<&P::vy>(v), col<&P::vz>(v), b, e, f.dt);
    }
    void operator()(const drift& f, const layout::view<Particle, aosoa32>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(), b, e,
            [dt = f.dt](raw::ParticleBlock32& k, std::size_t l) { raw::drift(k, l, dt); });
    }

    void operator()(const wide_drift& f, const layout::view<WideParticle, aos>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::wide_drift_aos(aos_data(v), b, e, f.dt);
    }
    void operator()(const wide_drift& f, const layout::view<WideParticle, soa>& v, std::size_t b,
                    std::size_t e) const {
        using W = WideParticle;
        cpu_raw::drift_soa(col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v),
                           col<&W::pos, &Vec3::z>(v), col<&W::vel, &Vec3::x>(v),
                           col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v), b, e, f.dt);
    }
    void operator()(const wide_drift& f, const layout::view<WideParticle, aosoa32>& v,
                    std::size_t b, std::size_t e) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::WideBlock32>(v), v.size(), b, e,
            [dt = f.dt](raw::WideBlock32& k, std::size_t l) { raw::wide_drift(k, l, dt); });
    }

    template <class T>
    void operator()(const scale_mass& f, const layout::view<T, aos>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::scale_mass_aos(aos_data(v), b, e, f.c);
    }
    template <class T>
    void operator()(const scale_mass& f, const layout::view<T, soa>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::scale_mass_soa(col<&T::mass>(v), b, e, f.c);
    }
    void operator()(const scale_mass& f, const layout::view<Particle, aosoa32>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::ParticleBlock32>(v), v.size(), b, e,
            [c = f.c](raw::ParticleBlock32& k, std::size_t l) { raw::scale_mass(k, l, c); });
    }
    void operator()(const scale_mass& f, const layout::view<WideParticle, aosoa32>& v,
                    std::size_t b, std::size_t e) const {
        cpu_raw::blocks_loop(
            aosoa_blocks<raw::WideBlock32>(v), v.size(), b, e,
            [c = f.c](raw::WideBlock32& k, std::size_t l) { raw::scale_mass(k, l, c); });
    }

    void operator()(const integrate& f, const layout::view<WideParticle, aos>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::integrate_aos(f, aos_data(v), b, e);
    }
    void operator()(const integrate& f, const layout::view<WideParticle, soa>& v, std::size_t b,
                    std::size_t e) const {
        using W = WideParticle;
        cpu_raw::integrate_soa(
            f, col<&W::pos, &Vec3::x>(v), col<&W::pos, &Vec3::y>(v), col<&W::pos, &Vec3::z>(v),
            col<&W::vel, &Vec3::x>(v), col<&W::vel, &Vec3::y>(v), col<&W::vel, &Vec3::z>(v),
            col<&W::force, &Vec3::x>(v), col<&W::force, &Vec3::y>(v), col<&W::force, &Vec3::z>(v),
            col<&W::mass>(v), col<&W::charge>(v), col<&W::energy>(v), col<&W::type>(v),
            col<&W::cell>(v), col<&W::flags>(v), b, e);
    }
    void operator()(const integrate& f, const layout::view<WideParticle, aosoa32>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::blocks_loop(aosoa_blocks<raw::WideBlock32>(v), v.size(), b, e,
                             [&f](raw::WideBlock32& k, std::size_t l) { raw::integrate(f, k, l); });
    }

    void operator()(const drift& f, const layout::view<Particle, split_of<Particle>>& v,
                    std::size_t b, std::size_t e) const {
        cpu_raw::drift_split(split_hot<raw::Kinematics>(v), b, e, f.dt);
    }
    void operator()(const wide_drift& f,
                    const layout::view<WideParticle, split_of<WideParticle>>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::drift_split(split_hot<raw::Kinematics>(v), b, e, f.dt);
    }
    template <class T>
    void operator()(const scale_mass& f, const layout::view<T, split_of<T>>& v, std::size_t b,
                    std::size_t e) const {
        cpu_raw::scale_mass_soa(split_cold<&T::mass>(v), b, e, f.c);
    }
    void operator()(const integrate& f, const layout::view<WideParticle, split_of<WideParticle>>& v,
                    std::size_t b, std::size_t e) const {
        using W = WideParticle;
        cpu_raw::integrate_split(
            f, split_hot<raw::Kinematics>(v), split_cold<&W::force, &Vec3::x>(v),
            split_cold<&W::force, &Vec3::y>(v), split_cold<&W::force, &Vec3::z>(v),
            split_cold<&W::mass>(v), split_cold<&W::charge>(v), split_cold<&W::energy>(v),
            split_cold<&W::type>(v), split_cold<&W::cell>(v), split_cold<&W::flags>(v), b, e);
    }

    /// Units of a view: elements, or blocks under aosoa32; and the grain of a thread's share
    /// (64 elements: no two threads write into one cache line), as the library cuts its loops.
    template <class T, class L>
    static std::size_t units(const layout::view<T, L>& v) {
        return std::is_same_v<L, aosoa32> ? (v.size() + 31) / 32 : v.size();
    }
    template <class L>
    static constexpr std::size_t grain = std::is_same_v<L, aosoa32> ? 1 : 64;

    /// The whole view, on this thread.
    template <class F, class T, class L>
    void operator()(const F& f, const layout::view<T, L>& v) const {
        (*this)(f, v, 0, units(v));
    }
    /// The whole view, one contiguous share per OpenMP thread (the library's split).
    template <class F, class T, class L>
    void parallel(const F& f, const layout::view<T, L>& v) const {
        const std::size_t count = units(v), grains = (count + grain<L> - 1) / grain<L>;
#if defined(_OPENMP)
#  pragma omp parallel
        {
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const auto threads = static_cast<std::size_t>(omp_get_num_threads());
            const std::size_t b = std::min(count, grains * t / threads * grain<L>);
            const std::size_t e = std::min(count, grains * (t + 1) / threads * grain<L>);
            if (b < e) (*this)(f, v, b, e);
        }
#else
        (void)grains;
        (*this)(f, v, 0, count);
#endif
    }
};

/// Threads that exec::parallel and the parallel raw loops use.
inline int cpu_threads() {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

struct cpu_backend {
    bool parallel = false; ///< all OpenMP threads (library: exec::parallel), or this one

    template <class T, class L>
    using container = layout::vector<T, L>;

    template <class F, class View>
    void run_lib(const F& f, const View& v) const {
        if (parallel)
            layout::for_each_index(layout::exec::parallel, v, f);
        else
            layout::for_each_index(layout::exec::serial, v, f);
    }
    template <class F, class View>
    static constexpr bool has_raw =
        std::is_invocable_v<cpu_raw_runner, const F&, const View&, std::size_t, std::size_t>;
    template <class F, class View>
    void run_raw(const F& f, const View& v) const {
        if (parallel)
            cpu_raw_runner{}.parallel(f, v);
        else
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

namespace cpu_raw {
/// dst[i] = src[i] + zero, zero being 0 at run time: a copy loop that the compiler vectorizes
/// with ordinary loads and stores, as the kernels are, rather than turning it into a memmove
/// call (which for large sizes streams with non-temporal stores: 81 GB/s against 100+ for the
/// loop on the 16-core Xeon VM, 2026-11-24). STREAM's "copy", in effect.
[[gnu::noinline]] inline void copy_loop(const float* LAYOUT_RESTRICT src,
                                        float* LAYOUT_RESTRICT dst, std::size_t begin,
                                        std::size_t end, float zero) {
    for (std::size_t i = begin; i < end; ++i) dst[i] = src[i] + zero;
}
} // namespace cpu_raw

/// Copy bandwidth, bytes read + bytes written, on all OpenMP threads (one contiguous share each,
/// pages first touched by the thread that copies them) or on one: the better of std::copy (a
/// memmove, which for large sizes streams with non-temporal stores and so skips reading the
/// destination: 18-20 GB/s on one core of the 16-core Xeon VM against 9-12 for the loop) and a
/// plain copy loop (cpu_raw::copy_loop: ordinary vector stores, like the kernels'; the faster on
/// some machines with all cores).
struct copy_bandwidth {
    double gbps;         ///< the better of the two
    double memmove_gbps; ///< std::copy
    double loop_gbps;    ///< cpu_raw::copy_loop
};

inline copy_bandwidth cpu_copy_gbps(std::size_t bytes, int warmup, int reps, bool parallel) {
    const std::size_t n = bytes / sizeof(float);
    std::unique_ptr<float[]> src(new float[n]), dst(new float[n]);
    volatile float zero_source = 0.0f;
    const float zero = zero_source;
    auto shares = [&](auto&& body) {
#if defined(_OPENMP)
        if (parallel) {
#  pragma omp parallel
            {
                const auto t = static_cast<std::size_t>(omp_get_thread_num());
                const auto threads = static_cast<std::size_t>(omp_get_num_threads());
                body(n * t / threads, n * (t + 1) / threads);
            }
            return;
        }
#endif
        body(std::size_t{0}, n);
    };
    shares([&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) src[i] = static_cast<float>(i % 1000) + 0.5f;
        std::fill(dst.get() + b, dst.get() + e, 0.0f);
    });
    auto gbps = [&](auto&& copy) {
        const double us = cpu_backend{}.median_us([&] { shares(copy); }, warmup, reps);
        if (!std::equal(src.get(), src.get() + n, dst.get())) {
            std::printf("FAILED: the copy kernel copied wrongly\n");
            std::exit(1);
        }
        std::fill(dst.get(), dst.get() + n, 0.0f);
        return 2.0 * double(n * sizeof(float)) / (us * 1e3);
    };
    const double memmove = gbps([&](std::size_t b, std::size_t e) {
        std::copy(src.get() + b, src.get() + e, dst.get() + b);
    });
    const double loop = gbps([&](std::size_t b, std::size_t e) {
        cpu_raw::copy_loop(src.get(), dst.get(), b, e, zero);
    });
    return {std::max(memmove, loop), memmove, loop};
}

/// The CPU run: returns the process exit status (non-zero if any verification failed).
/// --threads both (default): one table on one thread, then one on all OpenMP threads.
inline int run_cpu(options opt) {
    if (opt.n == 0) opt.n = std::size_t{8} << 20;
    if (opt.reps == 0) opt.reps = 10;
    if (opt.warmup < 0) opt.warmup = 1;
    bool ok = true;
    for (const bool parallel : {false, true}) {
        if ((parallel && opt.threads == "1") || (!parallel && opt.threads == "all")) continue;
        const int threads = parallel ? cpu_threads() : 1;
        if (parallel && threads == 1 && opt.threads == "both") {
            std::printf("(no all-threads table: %s)\n", layout::exec::parallel_available
                                                            ? "OpenMP gives one thread"
                                                            : "built without OpenMP");
            continue;
        }
        std::printf("particles (CPU, %d thread%s%s): n = %zu particles, median of %d runs after %d "
                    "warm-up%s\n",
                    threads, threads == 1 ? "" : "s",
                    parallel ? (layout::exec::parallel_available ? ", OpenMP" : ", no OpenMP") : "",
                    opt.n, opt.reps, opt.warmup,
                    LAYOUT_CHECK_BOUNDS ? " [bounds checks ON: library timings include them]" : "");
        const std::size_t copy_bytes = opt.n * sizeof(Particle);
        const copy_bandwidth cb = cpu_copy_gbps(copy_bytes, opt.warmup, opt.reps, parallel);
        const double copy = cb.gbps;
        std::printf("copy of %zu bytes on %d thread%s: %.1f GB/s (read + written; std::copy %.1f, "
                    "copy loop %.1f)\n",
                    copy_bytes, threads, threads == 1 ? "" : "s", copy, cb.memmove_gbps,
                    cb.loop_gbps);
        std::fflush(stdout);

        report rep;
        rep.granule = 64;
        run_cases(cpu_backend{parallel}, opt, rep);
        char what[96];
        std::snprintf(what, sizeof what, "the better copy, %d thread%s, %zu B", threads,
                      threads == 1 ? "" : "s", copy_bytes);
        print_table(rep, copy, what);
        std::printf("\n");
        ok = ok && rep.all_ok;
    }
    return ok ? 0 : 1;
}

} // namespace particles
