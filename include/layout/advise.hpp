/// \file advise.hpp
/// Which layout suits a kernel, predicted before it runs on a GPU: layout::advise runs the kernel's
/// functor unchanged on the host through a tracing view (advise/trace.hpp), proposes a split of
/// its leaves (advise/split.hpp), then costs what it read and wrote under each layout
/// (advise/cost.hpp) and ranks the layouts.
///
///     struct scale_mass {
///         float c;
///         template <class V> void operator()(const V& p, std::size_t i) const {
///             layout::get<&Particle::mass>(p[i]) *= c;
///         }
///     };
///     auto a = layout::advise<Particle>(scale_mass{0.99f});
///     a.print(stdout, "scale_mass");     // a table, one row per layout, fastest first:
///
///     layout   sectorB  dramB ... L1sec.ld L1sec.st  lines ... bound   GPU time  vs best ...
///     soa          8.0    8.0 ...    0.125    0.125  0.062 ... bytes   104.6 us    1.00x ...
///     split        8.0    8.0 ...    0.125    0.125  0.062 ... bytes   104.6 us    1.00x ...
///     aosoa32      8.0    8.0 ...    0.125    0.125  0.062 ... bytes   121.3 us    1.16x ...
///     aos         64.0   64.0 ...    1.000    1.000  0.500 ... bytes   731.0 us    6.99x ...
///     recommended: soa (or split: within 5%)
///     split = layout::policy::split<layout::policy::aos, layout::policy::soa, 6>: the leaves ...
///     a.ratio("aos", "soa") == 6.99                  // measured on an H100: 6.3-6.9
///
/// The split candidate (advise/split.hpp) is spelled with field indices, or with member pointers
/// where advise_options::names gives the struct's and its fields' names.
///
/// The predictions are a model (see bench/results/advise-2026-11-26/README.md for how far they are
/// from measurements on an H100): rank the layouts with it, then measure the winner.
///
/// An opt-in component: <layout/layout.hpp> does not include it; CMake target layout::advise
/// (find_package(layout COMPONENTS advise)). A layout is named in the tables by
/// advisor::layout_name<L> (advise/layout_name.hpp), which a layout of your own specializes.
#pragma once

#include "advise/cost.hpp"
#include "advise/layout_name.hpp"
#include "advise/split.hpp"
#include "advise/trace.hpp"
#include "config.hpp"
#include "policies.hpp"
#include "reflect.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace layout {

struct advise_options {
    advisor::trace_options trace{};
    advisor::gpu_model gpu{};
    advisor::cpu_model cpu{};
    /// Layouts whose predicted times differ by less than this fraction are called equivalent.
    double tie = 0.05;
    /// With the default layouts: also cost the split that advisor::propose_split finds.
    bool propose_split = true;
    /// The struct's name and its fields' names, for the split's spelling (&Particle::x rather
    /// than field index 0).
    advisor::field_names names{};
};

template <class T>
struct advice;
/// Costs a trace under each layout of Layouts (default: aos, soa, aosoa<32> and the proposed split)
/// and ranks them.
template <class T, class... Layouts>
advice<T> advise_trace(advisor::access_trace<T> trace, const advise_options& opt = {});

/// The trace, and the cost of every candidate layout, fastest on the GPU first.
template <class T>
struct advice {
    advisor::access_trace<T> trace;
    std::vector<advisor::layout_cost> costs; ///< ranked: predicted GPU time, fastest first
    advise_options options;
    /// The split costed as "split" (the default layouts only; none where no split fits the trace).
    std::optional<advisor::split_choice> split;

    const advisor::layout_cost& best() const { return costs.front(); }
    /// The cost under the layout named name ("aos", "soa", "aosoa32"); the best one if none is.
    const advisor::layout_cost& operator[](const std::string& name) const {
        for (const auto& c : costs)
            if (c.layout == name) return c;
        return best();
    }
    /// Predicted GPU time of layout a over that of layout b.
    double ratio(const std::string& a, const std::string& b) const {
        return (*this)[a].gpu_seconds / (*this)[b].gpu_seconds;
    }
    bool has(const std::string& name) const {
        for (const auto& c : costs)
            if (c.layout == name) return true;
        return false;
    }
    /// The layout named name as the user writes it ("layout::policy::aosoa<32>"); empty if none.
    std::string spelling(const std::string& name) const {
        for (const auto& g : geometries_)
            if (g.name == name) return g.spelling;
        return {};
    }

    /// Why a layout costs what it does, in one line.
    std::string reason(const advisor::layout_cost& c) const {
        char buf[256];
        const double waste = c.useful_bytes > 0 ? c.dram_time_bytes / c.useful_bytes : 1.0;
        const double lines_per_insn =
            c.instructions > 0 ? 32.0 * c.line_requests / c.instructions : 0;
        if (c.l1_bound)
            std::snprintf(buf, sizeof buf,
                          "bound by the L1: %.0f sectors per element loaded and stored (a gather "
                          "whose elements the cache shares between calls: its sectors, not DRAM, "
                          "set the time)",
                          c.l1_sectors_ld + c.l1_sectors_st);
        else if (c.request_bound)
            std::snprintf(buf, sizeof buf,
                          "bound by memory requests: %.0f memory instructions per element, a warp "
                          "instruction touching %.1f 128-byte lines on average (1 when coalesced)",
                          c.instructions, lines_per_insn);
        else if (waste > 1.15)
            std::snprintf(buf, sizeof buf,
                          "bound by bytes: moves %.0f B per element for %.0f B used (%.1fx): whole "
                          "sectors and DRAM atoms around the leaves it touches",
                          c.dram_time_bytes, c.useful_bytes, waste);
        else
            std::snprintf(
                buf, sizeof buf,
                "bound by bytes: moves only what it uses (%.0f B per element), every warp "
                "access coalesced",
                c.useful_bytes);
        std::string s = buf;
        if (trace.has(advisor::pattern::indexed)) {
            std::snprintf(buf, sizeof buf, "; gathers move %.1f sectors of 32 B per element",
                          indexed_sectors(c));
            s += buf;
        }
        return s;
    }

    void print(std::FILE* out = stdout, const char* name = "functor") const {
        std::size_t reads = trace.leaves_read(), writes = trace.leaves_written();
        std::fprintf(out, "%s on a %zu-byte struct of %zu leaves: reads %zu leaves, writes %zu",
                     name, sizeof(T), leaf_count_v<T>, reads, writes);
        if (trace.has(advisor::pattern::neighbour)) std::fprintf(out, "; reads neighbours");
        if (trace.has(advisor::pattern::indexed)) std::fprintf(out, "; reaches elements by index");
        std::fprintf(out, " (%zu calls traced)\n", trace.samples);
        std::fprintf(out, "  reads %s; writes %s\n", trace.names_read().c_str(),
                     trace.names_written().c_str());
        if (trace.writes_outside)
            std::fprintf(out,
                         "  (writes nothing in the view: every leaf it reaches counts as read)\n");
        std::fprintf(out, "  %-9s %8s %7s %7s %9s %9s %7s %6s %-9s %10s %8s %9s\n", "layout",
                     "sectorB", "dramB", "dramT", "L1sec.ld", "L1sec.st", "lines", "instr", "bound",
                     "GPU time", "vs best", "CPU lineB");
        for (const auto& c : costs)
            std::fprintf(
                out,
                "  %-9s %8.1f %7.1f %7.1f %9.3f %9.3f %7.3f %6.2f %-9s %7.1f us %7.2fx %9.1f\n",
                c.layout.c_str(), c.sector_bytes, c.dram_bytes, c.dram_time_bytes, c.l1_sectors_ld,
                c.l1_sectors_st, c.line_requests, c.instructions, c.bound(), c.gpu_seconds * 1e6,
                c.gpu_seconds / best().gpu_seconds, c.cpu_line_bytes);
        std::fprintf(out, "  recommended: %s", best().layout.c_str());
        for (std::size_t k = 1; k < costs.size(); ++k)
            if (costs[k].gpu_seconds <= best().gpu_seconds * (1 + options.tie))
                std::fprintf(out, " (or %s: within %.0f%%)", costs[k].layout.c_str(),
                             100 * options.tie);
        std::fprintf(out, "\n");
        if (split)
            std::fprintf(out, "  split = %s: %s\n", spelling("split").c_str(), split->why.c_str());
        for (const auto& c : costs)
            std::fprintf(out, "    %-9s %s\n", c.layout.c_str(), reason(c).c_str());
        std::fprintf(out,
                     "  (per element. sectorB: bytes in 32-byte sectors; dramB: DRAM bytes as ncu "
                     "counts them; dramT: what their DRAM time is worth; L1sec: L1 sectors loaded "
                     "and stored; lines: 128-byte line requests; instr: memory instructions. GPU "
                     "time: %zu elements, %.0f GB/s, %.2g line requests/s, %.2g L1 sectors/s)\n",
                     options.gpu.elements, options.gpu.dram_bytes_per_s / 1e9,
                     options.gpu.line_requests_per_s, options.gpu.l1_sectors_per_s);
    }

private:
    double indexed_sectors(const advisor::layout_cost& c) const {
        advisor::access_trace<T> only;
        only.samples = trace.samples;
        for (const auto& a : trace.accesses)
            if (a.pattern == advisor::pattern::indexed) only.accesses.push_back(a);
        advisor::gpu_model m = options.gpu;
        for (const auto& g : geometries_)
            if (g.name == c.layout)
                return advisor::cost_of(only, g, m, options.cpu).sector_bytes / double(m.sector);
        return 0;
    }

    template <class U, class... Layouts>
    friend advice<U> advise_trace(advisor::access_trace<U> trace, const advise_options& opt);
    std::vector<advisor::layout_geometry> geometries_;
};

template <class T, class... Layouts>
advice<T> advise_trace(advisor::access_trace<T> trace, const advise_options& opt) {
    advice<T> a;
    a.options = opt;
    a.trace = std::move(trace);
    if constexpr (sizeof...(Layouts) == 0) {
        a.geometries_ = {advisor::geometry_of<T, policy::aos>(),
                         advisor::geometry_of<T, policy::soa>(),
                         advisor::geometry_of<T, policy::aosoa<32>>()};
        if (opt.propose_split) a.split = advisor::propose_split(a.trace);
        if (a.split) a.geometries_.push_back(advisor::geometry_of_split<T>(*a.split, opt.names));
    } else {
        a.geometries_ = {advisor::geometry_of<T, Layouts>()...};
    }
    // Two splits given explicitly: "split", "split2", ...
    for (std::size_t k = 0, same = 0; k < a.geometries_.size(); ++k, same = 0) {
        for (std::size_t q = 0; q < k; ++q) same += a.geometries_[q].name == a.geometries_[k].name;
        if (same) a.geometries_[k].name += std::to_string(same + 1);
    }
    for (const auto& g : a.geometries_)
        a.costs.push_back(advisor::cost_of(a.trace, g, opt.gpu, opt.cpu));
    std::stable_sort(a.costs.begin(), a.costs.end(),
                     [](const auto& x, const auto& y) { return x.gpu_seconds < y.gpu_seconds; });
    return a;
}

/// Traces f (a functor f(view, i), as layout::for_each_index runs it) over elements of T and
/// predicts its cost under each layout of Layouts (default: aos, soa, aosoa<32> and the split
/// advisor::propose_split finds, if any).
template <class T, class... Layouts, class F>
advice<T> advise(const F& f, const advise_options& opt = {}) {
    return advise_trace<T, Layouts...>(advisor::trace<T>(f, opt.trace), opt);
}

/// The same, with traced elements starting as copies of `sample` (some of the real data): for
/// functors that index tables of their own with an integer field (see advisor::trace).
template <class T, class... Layouts, class F>
advice<T> advise(const F& f, std::span<const T> sample, const advise_options& opt = {}) {
    return advise_trace<T, Layouts...>(advisor::trace<T>(f, sample, opt.trace), opt);
}

} // namespace layout
