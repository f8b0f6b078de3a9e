// The advisor's predictions for layout::cuda::gather and scatter (bench/gather_gpu.cu,
// bench/scatter_gpu.cu: 32 Mi 8-float Particles, a random permutation or the identity as
// indices), each written as the one-view functor that moves what the library's kernel moves:
//   gather  p[i] = p[idx[i]]   (reads element idx[i] whole, writes element i whole)
//   scatter p[idx[i]] = p[i]
//   sorted: idx[i] = i + 1 (within one view an identity copy changes nothing, so the trace would
//           see no write; a shift by one moves the same sectors as the identity between two arrays)
// with gpu_model::vector_bytes = 16 (the library moves AoS elements in 16-byte chunks) and 4 bytes
// of index per element outside the view. Prints "predict" lines for bench/advise/compare_md.py.
//
//   gather_advice [--n 33554432]
#include <layout/advise.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

struct gather_random {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[i] = p[idx[i]].load();
    }
};
struct scatter_random {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[idx[i]] = p[i].load();
    }
};
struct copy_shifted {
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[i] = p[i + 1].load();
    }
};

std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

} // namespace

int main(int argc, char** argv) {
    layout::advise_options opt;
    opt.gpu.elements = std::size_t{1} << 25;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            opt.gpu.elements = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: %s [--n elements]\n", argv[0]);
            return 2;
        }
    }
    opt.gpu.vector_bytes = 16;
    opt.gpu.other_bytes = 4;
    std::vector<std::uint32_t> perm(std::size_t{1} << 16);
    for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::uint32_t>(k);
    for (std::size_t k = perm.size() - 1; k > 0; --k) std::swap(perm[k], perm[mix(k) % (k + 1)]);
    opt.trace.size = perm.size();

    struct row {
        std::string kernel;
        layout::advice<Particle> a;
    };
    std::vector<row> rows;
    auto run = [&](const char* kernel, const auto& f) {
        rows.push_back({kernel, layout::advise<Particle>(f, opt)});
        std::printf("== %s Particle(32B)\n", kernel);
        rows.back().a.print(stdout, kernel);
        std::printf("\n");
    };
    run("gather_random", gather_random{perm.data()});
    run("scatter_random", scatter_random{perm.data()});
    run("gather_sorted", copy_shifted{});
    run("scatter_sorted", copy_shifted{});

    std::printf("# predict kernel element layout vs_soa l1_sectors_ld l1_sectors_st sector_bytes "
                "dram_bytes line_requests bound other_ld gpu_us\n");
    for (const auto& r : rows) {
        const double soa = r.a["soa"].gpu_seconds;
        for (const auto& c : r.a.costs)
            std::printf("predict %s Particle(32B) %s %.4f %.4f %.4f %.2f %.2f %.4f %s %.4f %.2f\n",
                        r.kernel.c_str(), c.layout.c_str(), c.gpu_seconds / soa, c.l1_sectors_ld,
                        c.l1_sectors_st, c.sector_bytes, c.dram_bytes, c.line_requests, c.bound(),
                        0.125, c.gpu_seconds * 1e6);
    }
}
