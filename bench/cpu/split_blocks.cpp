// cpu_split_blocks: layout::for_each_index over a split layout whose hot part is AoSoA<32>
// (x y z vx vy vz in blocks of 32, mass and charge as SoA columns) against the hand-written
// loop over the same memory: a nested block/lane loop over `struct { float x[32], ..., vz[32]; }`
// with the cold columns as __restrict__ pointers. Three kernels: drift (hot part only),
// scale_mass (cold only) and kick (both). Also the element-by-element loop that for_each_index
// ran for such splits before they were looped in blocks (element_loop), for the record.
// Timed in alternation on one container, median of the ratios of adjacent runs, one thread and
// all OpenMP threads, as cpu_ratios does.
//
//   cpu_split_blocks [--n 8388608] [--reps 21]
#include "alternate.hpp"
#include "cpu_driver.hpp"

#include <layout/advise/layout_name.hpp>
#include <layout/layout.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

#ifndef LAYOUT_BENCH_FLAGS
#  define LAYOUT_BENCH_FLAGS "?"
#endif

namespace {

using namespace particles;
using cpu_bench::alternate;
using cpu_bench::pair_timing;
using hot_blocks =
    layout::policy::split<layout::policy::aosoa<32>, layout::policy::soa, &Particle::x,
                          &Particle::y, &Particle::z, &Particle::vx, &Particle::vy, &Particle::vz>;
using split_view = layout::view<Particle, hot_blocks>;

/// The hot part's block, as a hand-written AoSoA declares it.
struct KinematicsBlock32 {
    float x[32], y[32], z[32], vx[32], vy[32], vz[32];
};

/// Both parts: the velocity gains q/m * field * dt, then the position moves.
struct kick {
    float dt, field;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        vx += q / m * field * dt;
        x += vx * dt;
    }
};

/// Where the hand-written loops find the split's memory: the hot blocks, and the cold columns.
struct split_memory {
    KinematicsBlock32* blocks;
    float* mass;
    float* charge;
    explicit split_memory(const split_view& v)
        : blocks(reinterpret_cast<KinematicsBlock32*>(v.storage().first.data)),
          mass(&v.column<&Particle::mass>()[0]), charge(&v.column<&Particle::charge>()[0]) {}
};

template <class Body> // flatten: the body inside the loop, as by hand
[[gnu::noinline, gnu::flatten]] void
raw_blocks(KinematicsBlock32* LAYOUT_RESTRICT b, float* LAYOUT_RESTRICT m, float* LAYOUT_RESTRICT q,
           std::size_t n, std::size_t first, std::size_t end, Body body) {
    const std::size_t full = std::min(end, n / 32);
    for (std::size_t k = first; k < full; ++k)
        for (std::size_t l = 0; l < 32; ++l) body(b[k], m + k * 32, q + k * 32, l);
    if (full < end)
        for (std::size_t l = 0; l < n % 32; ++l) body(b[full], m + full * 32, q + full * 32, l);
}

void run_raw(const drift& f, const split_memory& s, std::size_t n, std::size_t b, std::size_t e) {
    raw_blocks(s.blocks, s.mass, s.charge, n, b, e,
               [dt = f.dt](KinematicsBlock32& k, float*, float*, std::size_t l) {
                   k.x[l] += k.vx[l] * dt;
                   k.y[l] += k.vy[l] * dt;
                   k.z[l] += k.vz[l] * dt;
               });
}
void run_raw(const scale_mass& f, const split_memory& s, std::size_t n, std::size_t b,
             std::size_t e) {
    raw_blocks(s.blocks, s.mass, s.charge, n, b, e,
               [c = f.c](KinematicsBlock32&, float* m, float*, std::size_t l) { m[l] *= c; });
}
void run_raw(const kick& f, const split_memory& s, std::size_t n, std::size_t b, std::size_t e) {
    raw_blocks(s.blocks, s.mass, s.charge, n, b, e,
               [f](KinematicsBlock32& k, float* m, float* q, std::size_t l) {
                   k.vx[l] += q[l] / m[l] * f.field * f.dt;
                   k.x[l] += k.vx[l] * f.dt;
               });
}

/// The hand-written loop over all blocks, on this thread or cut between the OpenMP threads in
/// whole blocks as for_each_index cuts them.
template <class F>
void raw(const F& f, const split_view& v, bool parallel) {
    const split_memory s(v);
    const std::size_t blocks = (v.size() + 31) / 32;
#if defined(_OPENMP)
    if (parallel) {
#  pragma omp parallel
        {
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const auto threads = static_cast<std::size_t>(omp_get_num_threads());
            const std::size_t b = blocks * t / threads, e = blocks * (t + 1) / threads;
            if (b < e) run_raw(f, s, v.size(), b, e);
        }
        return;
    }
#endif
    (void)parallel;
    run_raw(f, s, v.size(), 0, blocks);
}

template <class F>
void library(const F& f, const split_view& v, bool parallel) {
    if (parallel)
        layout::for_each_index(layout::exec::parallel, v, f);
    else
        layout::for_each_index(layout::exec::serial, v, f);
}

/// for_each_index's loop for layouts without blocks (one thread).
template <class F>
void element_loop(const F& f, const split_view& v) {
    v.storage().split([&](auto*... pointers) {
        layout::detail::host_loop_elements<Particle, hot_blocks>(f, v.size(), 0, v.size(),
                                                                 pointers...);
    });
}

template <class F>
void measure(const char* name, const F& f, const split_view& v, int reps, double& worst) {
    for (const bool parallel : {false, true}) {
        const pair_timing lib =
            alternate([&] { library(f, v, parallel); }, [&] { raw(f, v, parallel); }, reps);
        const int threads = parallel ? cpu_threads() : 1;
        std::printf("%-11s %7d %10.1f %10.1f %8.3f", name, threads, lib.a_us, lib.b_us, lib.ratio);
        worst = std::max(worst, lib.ratio);
        if (!parallel) {
            const pair_timing old =
                alternate([&] { element_loop(f, v); }, [&] { raw(f, v, false); }, reps);
            std::printf(" %13.3f", old.ratio);
        }
        std::printf("%s\n", lib.ratio > 1.05 ? "  > 5% over raw" : "");
    }
}

} // namespace

int main(int argc, char** argv) {
    std::size_t n = std::size_t{8} << 20;
    int reps = 21;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--n"))
            n = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--reps"))
            reps = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: cpu_split_blocks [--n N] [--reps R]\n");
            return 2;
        }
    }
    std::printf("cpu_split_blocks: %s, %s; n = %zu, median of %d alternating runs; %s\n",
#if defined(__clang__)
                "clang " __clang_version__,
#else
                "g++ " __VERSION__,
#endif
                LAYOUT_BENCH_FLAGS, n, reps,
                layout::advisor::layout_name<hot_blocks>::get().c_str());
    layout::vector<Particle, hot_blocks> work(n);
    for (std::size_t i = 0; i < n; ++i) work[i] = random_particle(1, i);
    const split_view v = work.view();

    std::printf("\n%-11s %7s %10s %10s %8s %13s\n", "kernel", "threads", "lib_us", "raw_us",
                "lib/raw", "element_loop");
    double worst = 0;
    measure("drift", drift_params, v, reps, worst);
    measure("scale_mass", scale_mass_params, v, reps, worst);
    measure("kick", kick{1e-3f, 0.5f}, v, reps, worst);
    std::printf(
        "\n(element_loop: the element-by-element loop / the hand-written loop, one thread)\n"
        "worst lib/raw: %.3f\n",
        worst);
    return 0;
}
