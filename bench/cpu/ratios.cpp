// cpu_ratios: library / hand-written time ratios of the particle kernels on the host, for every
// kernel and layout (aos, soa, aosoa32, split), on one thread and on all OpenMP threads, with
// the two variants timed in alternation (lib, raw, raw, lib, ...) so that a machine shared with
// other work slows both alike, on the same memory; lib/raw is the median of the ratios of
// adjacent runs. Also the library's useful bandwidth against the copy bandwidth on as many
// threads (cpu_copy_gbps).
//
//   cpu_ratios [--n 8388608] [--reps 21] [--threads 1|all|both] [--kernels drift,...]
//
// The kernels and the hand-written loops are those of examples/particles (kernels.hpp,
// cpu_driver.hpp); the library runs layout::for_each_index with exec::serial or exec::parallel,
// the hand-written loops the same split (cpu_raw_runner::parallel). bench/cpu/run.sh builds this
// under g++ -O2, g++ -O3 and clang -O2 and prints the tables one after the other.
#include "alternate.hpp"
#include "cpu_driver.hpp"

#include <layout/layout.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#ifndef LAYOUT_BENCH_FLAGS
#  define LAYOUT_BENCH_FLAGS "?"
#endif

namespace {

using namespace particles;

struct ratio_row {
    std::string kernel, element, layout;
    int threads;
    double lib_us, raw_us, ratio, useful_bytes;
};

template <class F, class T, class L>
void measure(const char* kernel, const char* element, const F& f, std::size_t useful_per_element,
             const layout::vector<T, L>& input, bool parallel, int reps,
             std::vector<ratio_row>& rows) {
    const cpu_backend be{parallel};
    // One container for both: separate allocations of the same size sit on different physical
    // pages, and on the 16-core VM that alone made identical loops differ by up to 1.5x,
    // consistently over a run (2026-11-24). The kernels' updates are small (drift moves by
    // 1e-3 * v, scale_mass scales by 0.999): running each a few dozen times more is harmless.
    layout::vector<T, L> work = input;
    const auto lv = work.view();
    const auto rv = work.view();
    const cpu_bench::pair_timing t =
        cpu_bench::alternate([&] { be.run_lib(f, lv); }, [&] { be.run_raw(f, rv); }, reps);
    rows.push_back({kernel, element, layout_name(L{}), parallel ? cpu_threads() : 1, t.a_us, t.b_us,
                    t.ratio, double(input.size()) * double(useful_per_element)});
}

template <class F, class T>
void all_layouts(const char* kernel, const char* element, const F& f, std::size_t useful,
                 const dataset<cpu_backend, T>& d, bool parallel, int reps,
                 std::vector<ratio_row>& rows) {
    measure(kernel, element, f, useful, d.in_aos, parallel, reps, rows);
    measure(kernel, element, f, useful, d.in_soa, parallel, reps, rows);
    measure(kernel, element, f, useful, d.in_aosoa32, parallel, reps, rows);
    measure(kernel, element, f, useful, d.in_split, parallel, reps, rows);
}

} // namespace

int main(int argc, char** argv) {
    options opt = parse_options(argc, argv);
    if (opt.n == 0) opt.n = std::size_t{8} << 20;
    if (opt.reps == 0) opt.reps = 21;

    std::printf(
        "cpu_ratios: %s, %s; n = %zu, median of %d alternating runs; OpenMP threads: %d%s\n",
#if defined(__clang__)
        "clang " __clang_version__,
#else
        "g++ " __VERSION__,
#endif
        LAYOUT_BENCH_FLAGS, opt.n, opt.reps, cpu_threads(),
        layout::exec::parallel_available ? "" : " (built without OpenMP)");

    std::vector<ratio_row> rows;
    std::vector<std::pair<int, double>> copies;
    for (const bool parallel : {false, true}) {
        if ((parallel && opt.threads == "1") || (!parallel && opt.threads == "all")) continue;
        const copy_bandwidth cb = cpu_copy_gbps(opt.n * sizeof(Particle), 1, opt.reps, parallel);
        copies.push_back({parallel ? cpu_threads() : 1, cb.gbps});
        std::printf("copy of %zu bytes on %d thread%s: %.1f GB/s (read + written; std::copy %.1f, "
                    "copy loop %.1f)\n",
                    opt.n * sizeof(Particle), copies.back().first,
                    copies.back().first == 1 ? "" : "s", cb.gbps, cb.memmove_gbps, cb.loop_gbps);
    }
    const auto d = make_dataset<cpu_backend, Particle>(
        opt.n, [&](std::size_t i) { return random_particle(opt.seed, i); });
    for (const bool parallel : {false, true}) {
        if ((parallel && opt.threads == "1") || (!parallel && opt.threads == "all")) continue;
        if (opt.wants("drift"))
            all_layouts("drift", "Particle", drift_params, drift::bytes().useful_bytes(), d,
                        parallel, opt.reps, rows);
        if (opt.wants("one_field"))
            all_layouts("one_field", "Particle", scale_mass_params,
                        scale_mass::bytes<Particle>().useful_bytes(), d, parallel, opt.reps, rows);
    }
    const auto w = make_dataset<cpu_backend, WideParticle>(
        opt.n, [&](std::size_t i) { return random_wide_particle(opt.seed, i); });
    for (const bool parallel : {false, true}) {
        if ((parallel && opt.threads == "1") || (!parallel && opt.threads == "all")) continue;
        if (opt.wants("wide_drift"))
            all_layouts("wide_drift", "Wide", wide_drift_params, wide_drift::bytes().useful_bytes(),
                        w, parallel, opt.reps, rows);
        if (opt.wants("one_field"))
            all_layouts("one_field", "Wide", scale_mass_params,
                        scale_mass::bytes<WideParticle>().useful_bytes(), w, parallel, opt.reps,
                        rows);
        if (opt.wants("most_fields"))
            all_layouts("most_fields", "Wide", integrate_params, integrate::bytes().useful_bytes(),
                        w, parallel, opt.reps, rows);
    }

    std::printf("\n%-12s %-9s %-8s %7s %10s %10s %8s %11s %7s\n", "kernel", "element", "layout",
                "threads", "lib_us", "raw_us", "lib/raw", "lib_GB/s", "%copy");
    double worst = 0;
    for (const auto& r : rows) {
        double copy = 0;
        for (const auto& [threads, gbps] : copies)
            if (threads == r.threads) copy = gbps;
        const double gbps = r.useful_bytes / (r.lib_us * 1e3);
        const double ratio = r.ratio;
        worst = std::max(worst, ratio);
        std::printf("%-12s %-9s %-8s %7d %10.1f %10.1f %8.3f %11.1f %6.1f%%%s\n", r.kernel.c_str(),
                    r.element.c_str(), r.layout.c_str(), r.threads, r.lib_us, r.raw_us, ratio, gbps,
                    100.0 * gbps / copy, ratio > 1.05 ? "  > 5% over raw" : "");
    }
    std::printf("\nworst lib/raw: %.3f (%s)\n", worst,
                worst <= 1.05 ? "every library kernel within 5% of its hand-written twin"
                              : "some library kernel more than 5% slower than its twin");
    return 0;
}
