// The advisor's predictions for the GPU kernels of examples/md (in.lj: fcc 0.8442, cutoff 2.5,
// skin 0.3, full neighbor list interleaved as on the GPU), traced on the real atoms and the real
// neighbor list: the host path builds them exactly as md_gpu does (host_backend<false>: the GPU's
// cells, stencil and list order), runs --steps steps (100: the state md_gpu --compare-raw times),
// and layout::advise traces lj_full, initial_integrate and final_integrate over --samples
// consecutive atoms starting at --first, so that each warp of 32 consecutive atoms gathers the
// neighbours its real list names. Layouts: aos, soa, aosoa32 and md::split_layout (md_gpu
// --layout split: positions AoS, the rest SoA), with the split the advisor itself proposes. Prints the advice per kernel, then "predict" lines for
// bench/advise/compare_md.py, for each atom count of --n (the ratios depend on it only through
// the fixed launch cost).
//
//   md_advice [--cells 20] [--steps 100] [--samples 512] [--first F] [--n 32000,2048000]
//
// The structure of the list per warp (which neighbours 32 consecutive atoms share) depends on
// the density and the cell size, not on the box: a 32,000-atom box stands for the 2,048,000-atom
// one (at step 0, 20.05 sectors per SoA gather instruction there, 20.25 in the large box).
#include "../md/host_backend.hpp"

#include <layout/advise.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using atom_t = md::atom<double>;

struct prediction {
    std::string kernel, element;
    std::vector<layout::advisor::layout_cost> costs;
    double other_ld = 0; // L1 sectors per atom the kernel loads outside the view (its list)
};

/// L1 sectors per atom of the force kernel's loads outside the view, for the traced warps: the
/// count and plain counts (4 bytes each, coalesced) and neighbor slot k of each active lane
/// (neigh[k * n + i]: a warp's lanes read adjacent words).
double list_sectors(const md::neighbor_list& l, std::size_t first, std::size_t calls) {
    double sectors = 0;
    for (std::size_t w = first; w + 32 <= first + calls; w += 32) {
        sectors += 2 * 4; // count[i], plain[i] of 32 consecutive atoms: 128 bytes each
        std::size_t most = 0;
        for (std::size_t i = w; i < w + 32; ++i) most = std::max<std::size_t>(most, l.count[i]);
        for (std::size_t k = 0; k < most; ++k) {
            std::set<std::size_t> s;
            for (std::size_t i = w; i < w + 32; ++i)
                if (k < l.count[i]) s.insert((i * l.stride_i + k * l.stride_k) * 4 / 32);
            sectors += double(s.size());
        }
    }
    return sectors / double(calls / 32 * 32);
}

} // namespace

int main(int argc, char** argv) {
    int cells = 20;
    long steps = 100;
    std::size_t samples = 512, first = layout::advisor::trace_options::spread;
    std::vector<std::size_t> sizes = {32000, 2048000};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cells" && i + 1 < argc)
            cells = std::atoi(argv[++i]);
        else if (a == "--steps" && i + 1 < argc)
            steps = std::atol(argv[++i]);
        else if (a == "--samples" && i + 1 < argc)
            samples = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--first" && i + 1 < argc)
            first = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--n" && i + 1 < argc) {
            sizes.clear();
            for (char* p = argv[++i]; *p;) {
                sizes.push_back(std::strtoull(p, &p, 10));
                if (*p == ',') ++p;
            }
        } else {
            std::fprintf(stderr,
                         "usage: %s [--cells 20] [--steps 100] [--samples 512] [--first F] "
                         "[--n 32000,2048000]\n",
                         argv[0]);
            return 2;
        }
    }

    md::options o;
    o.lattice = true;
    o.cells[0] = o.cells[1] = o.cells[2] = cells;
    o.steps = steps;
    o.thermo = steps > 0 ? steps : 1;
    o.timing = false;
    o.neighbor = "full";
    const md::system s = md::make_lattice(o.density, o.cells, o.temp, o.seed);
    md::simulation<double, layout::policy::aos, md::host_backend<false>> sim(s, o);
    std::printf("# the host path, full list as on the GPU: %zu atoms, %ld steps\n", s.atoms.size(),
                steps);
    sim.run(); // its lists are those of the last rebuild (every 20 steps), as md_gpu's after it

    const std::size_t n = s.atoms.size();
    const layout::aos_vector<atom_t> host = sim.atoms();
    std::vector<atom_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = host[i];
    std::vector<double> dtf;
    for (double m : s.mass) dtf.push_back(0.5 * o.dt / m);
    const md::neighbor_list list = sim.list();
    double pairs = 0;
    for (std::size_t i = 0; i < n; ++i) pairs += list.count[i];

    layout::advise_options opt;
    opt.trace.size = n;
    opt.trace.samples = samples;
    opt.trace.first = first == layout::advisor::trace_options::spread ? n / 2 / 32 * 32 : first;
    const std::span<const atom_t> real(all);
    const layout::advisor::field_names names{"md::atom<double>", {"x", "v", "f", "type", "id"}};

    std::vector<prediction> out;
    auto predict = [&](const char* kernel, const auto& f, double other_bytes, double other_ld) {
        const auto trace = layout::advisor::trace<atom_t>(f, real, opt.trace);
        for (std::size_t atoms : sizes) {
            layout::advise_options g = opt;
            g.gpu.elements = atoms;
            g.gpu.other_bytes = other_bytes;
            g.gpu.other_sectors = other_ld;
            // The layouts md_gpu runs, split as md_gpu --layout split stores it.
            const auto a =
                layout::advise_trace<atom_t, layout::policy::aos, layout::policy::soa,
                                     layout::policy::aosoa<32>, md::split_layout<double>>(trace, g);
            const std::string element = "atom(80B)-" + std::to_string(atoms);
            std::printf("== %s %s (traced: atoms %zu..%zu of %zu)\n", kernel, element.c_str(),
                        opt.trace.first, opt.trace.first + trace.samples - 1, n);
            a.print(stdout, kernel);
            if (const auto s = layout::advisor::propose_split(trace))
                std::printf("  the advisor's split: %s (%s)\n",
                            s->template spelling<atom_t>(names).c_str(), s->why.c_str());
            std::printf("\n");
            out.push_back({kernel, element, a.costs, other_ld});
        }
    };
    // The force kernel reads 4 bytes of list per pair and two counts per atom besides the view.
    const double list_bytes = 4.0 * pairs / double(n) + 8.0;
    const double list_ld = list_sectors(list, opt.trace.first, (samples + 31) / 32 * 32);
    std::printf("# %.2f neighbors per atom; outside the view, per atom: %.1f bytes of list, %.2f "
                "L1 sectors of list loads\n\n",
                pairs / double(n), list_bytes, list_ld);
    predict("md_force", md::lj_full<double, false>{list, sim.box(), sim.cut_sq(), nullptr, nullptr},
            list_bytes, list_ld);
    predict("md_initial", md::initial_integrate<double>{dtf.data(), o.dt}, 0, 0);
    predict("md_final", md::final_integrate<double>{dtf.data()}, 0, 0);

    std::printf("# predict kernel element layout vs_soa l1_sectors_ld l1_sectors_st sector_bytes "
                "dram_bytes line_requests bound other_ld gpu_us\n");
    for (const auto& p : out) {
        double soa = 0;
        for (const auto& c : p.costs)
            if (c.layout == "soa") soa = c.gpu_seconds;
        for (const auto& c : p.costs)
            std::printf("predict %s %s %s %.4f %.4f %.4f %.2f %.2f %.4f %s %.4f %.2f\n",
                        p.kernel.c_str(), p.element.c_str(), c.layout.c_str(), c.gpu_seconds / soa,
                        c.l1_sectors_ld, c.l1_sectors_st, c.sector_bytes, c.dram_bytes,
                        c.line_requests, c.bound(), p.other_ld, c.gpu_seconds * 1e6);
    }
}
