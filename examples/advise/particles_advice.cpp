// The advisor's predictions for every kernel of examples/particles, from the kernels' own
// functors: the full advice per kernel, then one table of predicted time ratios (AoS / SoA,
// AoSoA<32> / SoA, split / SoA) and of the sectors per element ncu should count, and the same
// numbers as "predict" lines that bench/advise/compare.py reads beside the H100's measurements.
// split is particles::split_of<T>, the split particles_gpu runs (positions and velocities AoS,
// the rest SoA); each advice also names the split the advisor would propose for that kernel.
//
//   particles_advice [--n 33554432]   (elements per launch, for the fixed launch cost)
#include "../particles/common.hpp"

#include <layout/advise.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

struct summary {
    std::string kernel, element;
    std::vector<layout::advisor::layout_cost> costs;
    std::string best;
    double aos_over_soa, aosoa_over_soa, split_over_soa;
};

template <class T>
layout::advisor::field_names names_of();
template <>
layout::advisor::field_names names_of<Particle>() {
    return {"Particle", {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"}};
}
template <>
layout::advisor::field_names names_of<WideParticle>() {
    return {"WideParticle",
            {"pos", "vel", "force", "mass", "charge", "energy", "id", "type", "cell", "flags"}};
}

template <class T, class F>
summary advise_one(const char* kernel, const char* element, const F& f,
                   const layout::advise_options& opt) {
    using namespace particles;
    const auto a = layout::advise<T, aos, soa, aosoa32, split_of<T>>(f, opt);
    std::printf("== %s %s\n", kernel, element);
    a.print(stdout, kernel);
    if (const auto s = layout::advisor::propose_split(a.trace))
        std::printf("  the advisor's split: %s (%s)\n",
                    s->template spelling<T>(names_of<T>()).c_str(), s->why.c_str());
    std::printf("\n");
    return {kernel,
            element,
            a.costs,
            a.best().layout,
            a.ratio("aos", "soa"),
            a.ratio("aosoa32", "soa"),
            a.ratio("split", "soa")};
}

/// dst[i] = src[idx[i]] written as one view's functor: element i takes the value of element
/// idx[i] (a random permutation). Not a particles kernel: its measured counterpart is the library's
/// gather (bench/gather_gpu, two views), for the winner only.
struct gather_elements {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[i] = p[idx[i]].load();
    }
};

} // namespace

int main(int argc, char** argv) {
    layout::advise_options opt;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            opt.gpu.elements = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: %s [--n elements]\n", argv[0]);
            return 2;
        }
    }
    using namespace particles;
    std::vector<summary> all;
    all.push_back(advise_one<Particle>("drift", "Particle(32B)", drift_params, opt));
    all.push_back(advise_one<Particle>("one_field", "Particle(32B)", scale_mass_params, opt));
    all.push_back(advise_one<WideParticle>("wide_drift", "Wide(64B)", wide_drift_params, opt));
    all.push_back(advise_one<WideParticle>("one_field", "Wide(64B)", scale_mass_params, opt));
    all.push_back(advise_one<WideParticle>("most_fields", "Wide(64B)", integrate_params, opt));
    {
        std::vector<std::uint32_t> perm(std::size_t{1} << 16);
        for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::uint32_t>(k);
        for (std::size_t k = perm.size() - 1; k > 0; --k) // Fisher-Yates, fixed seed
            std::swap(perm[k], perm[particles::mix(k) % (k + 1)]);
        layout::advise_options g = opt;
        g.trace.size = perm.size();
        all.push_back(
            advise_one<Particle>("gather", "Particle(32B)", gather_elements{perm.data()}, g));
    }

    std::printf("%-12s %-14s %9s %12s %10s %-8s   %s\n", "kernel", "element", "aos/soa",
                "aosoa32/soa", "split/soa", "winner",
                "L1 sectors per element, ld+st (aos | soa | aosoa32 | split)");
    for (const auto& s : all) {
        std::printf("%-12s %-14s %8.2fx %11.2fx %9.2fx %-8s  ", s.kernel.c_str(), s.element.c_str(),
                    s.aos_over_soa, s.aosoa_over_soa, s.split_over_soa, s.best.c_str());
        for (const char* l : {"aos", "soa", "aosoa32", "split"})
            for (const auto& c : s.costs)
                if (c.layout == l) std::printf(" %6.3f+%-6.3f", c.l1_sectors_ld, c.l1_sectors_st);
        std::printf("\n");
    }
    std::printf("\n# predict kernel element layout vs_soa l1_sectors_ld l1_sectors_st sector_bytes "
                "dram_bytes line_requests bound\n");
    for (const auto& s : all) {
        double soa = 0;
        for (const auto& c : s.costs)
            if (c.layout == "soa") soa = c.gpu_seconds;
        for (const auto& c : s.costs)
            std::printf("predict %s %s %s %.4f %.4f %.4f %.2f %.2f %.4f %s\n", s.kernel.c_str(),
                        s.element.c_str(), c.layout.c_str(), c.gpu_seconds / soa, c.l1_sectors_ld,
                        c.l1_sectors_st, c.sector_bytes, c.dram_bytes, c.line_requests, c.bound());
    }
}
