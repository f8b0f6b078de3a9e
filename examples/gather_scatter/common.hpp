/// \file common.hpp
/// Sorting particles by cell, per layout: the physics, the checks, and the CPU path. The GPU
/// path (gather_scatter.cu) runs the same functors through layout::cuda.
///
/// Particles sit at random positions in the unit cube, cut into grid^3 cells of side h = 1/grid.
/// The step kernel is an SPH-like density, cell-local: each particle sums, over the particles of
/// its own cell, m_j * w(|r_i - r_j| / h), w(q) = max(0, 1 - q^2)^3. It reads x, y, z and mass
/// (16 of the 32 bytes) of every neighbour: which neighbours a particle needs comes from the cell
/// lists, so it is a gather, and where the neighbours lie in memory is what sorting changes.
///
/// Both versions are given the same cell lists (layout::bin_by_key of the cell ids: a stable
/// permutation `list` that groups particles by cell, and offsets: cell c holds list positions
/// [offsets[c], offsets[c + 1])), and both walk the work in cell order, thread (or iteration) k
/// taking particle list[k], so a warp works on one or two cells at a time either way:
///
///   unsorted: the particles stay where they are; particle list[k]'s neighbours are
///             list[offsets[c]] .. list[offsets[c + 1] - 1], scattered over the whole array.
///   sorted:   bin_by_key(cells, n_cells, particles) also permutes every field of every particle
///             (one gather), so list[k] == k and a cell's neighbours are contiguous.
///
/// Same neighbours, same order, same arithmetic: the two give bit-identical densities (checked),
/// and both are checked against a double-precision host reference. What sorting buys per step is
/// (unsorted - sorted); what it costs per rebuild of the cell lists is the permutation of the
/// particles, (sort - list): "break-even" is how many steps repay it.
#pragma once

#include <layout/algorithms.hpp>
#include <layout/layout.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace gs {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

using index_t = std::uint32_t;

/// Cell of a position in [0, 1)^3: (cz * grid + cy) * grid + cx.
LAYOUT_HOST_DEVICE inline index_t cell_of(float x, float y, float z, int grid) {
    auto axis = [grid](float v) {
        const int c = static_cast<int>(v * static_cast<float>(grid));
        return c < 0 ? 0 : (c >= grid ? grid - 1 : c);
    };
    return static_cast<index_t>((axis(z) * grid + axis(y)) * grid + axis(x));
}

/// cell[i] = the cell of particle i.
struct compute_cells {
    index_t* cell;
    int grid;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        cell[i] = cell_of(x, y, z, grid);
    }
};

LAYOUT_HOST_DEVICE inline float weight(float dx, float dy, float dz, float inv_h2) {
    float w = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_h2;
    w = w > 0.0f ? w : 0.0f;
    return w * w * w;
}

/// The step kernel, at work position k (see the file comment). Indirect: particles unsorted,
/// reached through list; otherwise sorted (list[k] == k, list unused).
template <bool Indirect>
struct density {
    const index_t* offsets; // grid^3 + 1 entries
    const index_t* list;    // n entries (Indirect only)
    float* rho;             // per particle, in the particles' own order
    int grid;
    float inv_h2;

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t k) const {
        const std::size_t i = Indirect ? list[k] : k;
        auto&& [xi, yi, zi, vxi, vyi, vzi, mi, qi] = p[i];
        const float x = xi, y = yi, z = zi;
        const index_t c = cell_of(x, y, z, grid);
        float sum = 0.0f;
        for (index_t m = offsets[c], end = offsets[c + 1]; m < end; ++m) {
            const std::size_t j = Indirect ? list[m] : m;
            auto&& [xj, yj, zj, vxj, vyj, vzj, mj, qj] = p[j];
            sum += mj * weight(x - xj, y - yj, z - zj, inv_h2);
        }
        rho[i] = sum;
    }
};

// ---- set-up and checks, shared by both paths --------------------------------------------------

struct config {
    std::size_t n;
    int grid;
    int reps;
    std::size_t cells() const { return std::size_t(grid) * grid * grid; }
    float inv_h2() const { return float(grid) * float(grid); }
};

inline std::vector<Particle> random_particles(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), vel(-1.0f, 1.0f), mass(0.5f, 1.5f);
    std::vector<Particle> p(n);
    for (auto& q : p) {
        q = {unit(g), unit(g), unit(g), vel(g), vel(g), vel(g), mass(g), vel(g)};
        q.x = std::min(q.x, std::nextafter(1.0f, 0.0f)); // [0, 1) even after rounding
        q.y = std::min(q.y, std::nextafter(1.0f, 0.0f));
        q.z = std::min(q.z, std::nextafter(1.0f, 0.0f));
    }
    return p;
}

/// The cell lists built independently of the library: buckets[c] = particles of cell c, in
/// increasing index order (what a stable sort gives).
inline std::vector<std::vector<index_t>> reference_buckets(const std::vector<Particle>& p,
                                                           int grid) {
    std::vector<std::vector<index_t>> buckets(std::size_t(grid) * grid * grid);
    for (std::size_t i = 0; i < p.size(); ++i)
        buckets[cell_of(p[i].x, p[i].y, p[i].z, grid)].push_back(static_cast<index_t>(i));
    return buckets;
}

/// Counts failures, prints the first few.
struct checker {
    std::size_t failures = 0;
    bool expect(bool ok, const std::string& what) {
        if (!ok && failures++ < 10) std::printf("  CHECK FAILED: %s\n", what.c_str());
        return ok;
    }
};

/// The library's bins (list, offsets) against the reference buckets.
inline void check_bins(checker& c, const std::vector<index_t>& list,
                       const std::vector<index_t>& offsets,
                       const std::vector<std::vector<index_t>>& buckets, const char* what) {
    if (!c.expect(offsets.size() == buckets.size() + 1, std::string(what) + ": offsets size"))
        return;
    for (std::size_t cell = 0; cell < buckets.size(); ++cell) {
        const auto& b = buckets[cell];
        if (!c.expect(offsets[cell + 1] - offsets[cell] == b.size(),
                      std::string(what) + ": count of cell " + std::to_string(cell)))
            return;
        for (std::size_t r = 0; r < b.size(); ++r)
            if (!c.expect(list[offsets[cell] + r] == b[r], std::string(what) + ": member " +
                                                               std::to_string(r) + " of cell " +
                                                               std::to_string(cell)))
                return;
    }
}

/// Sorted particles: sorted[k] must be original[perm[k]], every field, bit for bit.
inline void check_sorted(checker& c, const std::vector<Particle>& sorted,
                         const std::vector<Particle>& original, const std::vector<index_t>& perm) {
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        const Particle& a = sorted[k];
        const Particle& b = original[perm[k]];
        if (!c.expect(a.x == b.x && a.y == b.y && a.z == b.z && a.vx == b.vx && a.vy == b.vy &&
                          a.vz == b.vz && a.mass == b.mass && a.charge == b.charge,
                      "sorted particle " + std::to_string(k) + " is not original[perm[k]]"))
            return;
    }
}

/// rho from the sorted run (scattered back to the original order) against the unsorted run:
/// bit-identical; and a sample of particles against a double-precision reference.
inline void check_density(checker& c, const std::vector<float>& rho_unsorted,
                          const std::vector<float>& rho_sorted_back, const std::vector<Particle>& p,
                          const std::vector<std::vector<index_t>>& buckets, const config& cfg) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < p.size(); ++i) differ += rho_unsorted[i] != rho_sorted_back[i];
    c.expect(differ == 0, std::to_string(differ) + " densities differ between sorted and unsorted");

    std::mt19937_64 g(7);
    std::uniform_int_distribution<std::size_t> pick(0, p.size() - 1);
    double worst = 0;
    for (int s = 0; s < 2000; ++s) {
        const std::size_t i = pick(g);
        const auto& b = buckets[cell_of(p[i].x, p[i].y, p[i].z, cfg.grid)];
        double sum = 0;
        for (index_t j : b) {
            const double dx = double(p[i].x) - p[j].x, dy = double(p[i].y) - p[j].y,
                         dz = double(p[i].z) - p[j].z;
            const double w = std::max(0.0, 1.0 - (dx * dx + dy * dy + dz * dz) * cfg.inv_h2());
            sum += double(p[j].mass) * w * w * w;
        }
        worst = std::max(worst, std::abs(rho_unsorted[i] - sum) / std::max(sum, 1e-30));
    }
    c.expect(worst < 1e-4, "density vs double reference: relative error " + std::to_string(worst));
    std::printf("  density: sorted == unsorted bit for bit: %s; worst relative error vs double "
                "reference (2000 particles): %.2e\n",
                differ == 0 ? "yes" : "NO", worst);
}

// ---- the table ----------------------------------------------------------------------------------

struct row {
    std::string layout;
    double list_ms, unsorted_ms, sort_ms, sorted_ms;
};

inline void print_table(const std::vector<row>& rows, const char* device, const config& cfg) {
    std::printf("\nSort by cell, then a cell-local density step (%s): %zu particles, %d^3 cells, "
                "%.1f particles per cell; medians of %d runs, milliseconds\n",
                device, cfg.n, cfg.grid, double(cfg.n) / double(cfg.cells()), cfg.reps);
    std::printf("%-10s %10s %12s %12s %11s %9s %11s\n", "layout", "list", "unsorted", "sort",
                "sorted", "speedup", "break-even");
    std::printf("%-10s %10s %12s %12s %11s %9s %11s\n", "", "(bin ids)", "step", "(bin+perm)",
                "step", "per step", "steps");
    for (const row& r : rows) {
        const double gain = r.unsorted_ms - r.sorted_ms;
        const double extra = std::max(0.0, r.sort_ms - r.list_ms);
        char even[32];
        if (gain > 0)
            std::snprintf(even, sizeof even, "%.2f", extra / gain);
        else
            std::snprintf(even, sizeof even, "never");
        std::printf("%-10s %10.3f %12.3f %12.3f %11.3f %8.2fx %11s\n", r.layout.c_str(), r.list_ms,
                    r.unsorted_ms, r.sort_ms, r.sorted_ms, r.unsorted_ms / r.sorted_ms, even);
    }
    std::printf(
        "list: bin_by_key of the cell ids alone (the cell lists both versions need). sort: "
        "bin_by_key that also\npermutes every field of the particles. break-even = (sort - list) "
        "/ (unsorted - sorted): steps after which\nmoving the particles has paid for itself, "
        "counting only what it costs beyond building the cell lists.\n");
}

template <class F>
double median_ms(int reps, F&& once) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) t.push_back(once());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// ---- the CPU path -------------------------------------------------------------------------------

inline double host_ms(auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class Policy>
row run_host_layout(const char* name, const std::vector<Particle>& original,
                    const std::vector<std::vector<index_t>>& buckets, const config& cfg,
                    checker& c) {
    std::printf("%s:\n", name);
    const std::size_t n = cfg.n;
    const layout::aos_vector<Particle> aos(original.begin(), original.end());
    const layout::vector<Particle, Policy> pristine = aos;
    std::vector<index_t> cells(n);
    layout::for_each_index(pristine.view(), compute_cells{cells.data(), cfg.grid});

    // The cell lists, particles left in place.
    row r{name, 0, 0, 0, 0};
    layout::bins<index_t> list;
    r.list_ms = median_ms(cfg.reps, [&] {
        auto keys = cells;
        return host_ms([&] { list = layout::bin_by_key<index_t>(keys, cfg.cells()); });
    });
    check_bins(c, list.permutation, list.offsets, buckets, "cell lists");

    std::vector<float> rho_unsorted(n, -1.0f);
    const density<true> indirect{list.offsets.data(), list.permutation.data(), rho_unsorted.data(),
                                 cfg.grid, cfg.inv_h2()};
    r.unsorted_ms = median_ms(cfg.reps, [&] {
        return host_ms([&] { layout::for_each_index(pristine.view(), indirect); });
    });

    // Sorting: the particles move with their cell ids.
    layout::vector<Particle, Policy> work;
    layout::bins<index_t> sorted;
    r.sort_ms = median_ms(cfg.reps, [&] {
        work = pristine;
        auto keys = cells;
        return host_ms([&] { sorted = layout::bin_by_key<index_t>(keys, cfg.cells(), work); });
    });
    check_bins(c, sorted.permutation, sorted.offsets, buckets, "sort");
    {
        std::vector<Particle> got(n);
        for (std::size_t k = 0; k < n; ++k) got[k] = work[k];
        check_sorted(c, got, original, sorted.permutation);
    }

    std::vector<float> rho_sorted(n, -1.0f);
    const density<false> direct{sorted.offsets.data(), nullptr, rho_sorted.data(), cfg.grid,
                                cfg.inv_h2()};
    r.sorted_ms = median_ms(
        cfg.reps, [&] { return host_ms([&] { layout::for_each_index(work.view(), direct); }); });

    // Back to the particles' original order: rho_back[perm[k]] = rho_sorted[k].
    std::vector<float> rho_back(n, -1.0f);
    layout::scatter(layout::view<const float, layout::policy::aos>(rho_sorted.data(), n),
                    sorted.permutation,
                    layout::view<float, layout::policy::aos>(rho_back.data(), n));
    check_density(c, rho_unsorted, rho_back, original, buckets, cfg);
    return r;
}

/// Runs every layout on the host; returns the process exit code.
inline int run_cpu(config cfg) {
    std::printf("CPU path: %zu particles, %d^3 cells\n", cfg.n, cfg.grid);
    const auto original = random_particles(cfg.n, 42);
    const auto buckets = reference_buckets(original, cfg.grid);
    checker c;
    std::vector<row> rows;
    rows.push_back(run_host_layout<layout::policy::aos>("aos", original, buckets, cfg, c));
    rows.push_back(run_host_layout<layout::policy::soa>("soa", original, buckets, cfg, c));
    rows.push_back(
        run_host_layout<layout::policy::aosoa<32>>("aosoa<32>", original, buckets, cfg, c));
    print_table(rows, "CPU, one thread", cfg);
    if (c.failures) {
        std::printf("FAILED: %zu checks\n", c.failures);
        return 1;
    }
    std::printf("all checks passed\n");
    return 0;
}

/// [n] [grid] [reps] from the command line, over the defaults.
inline config parse(int argc, char** argv, config cfg) {
    if (argc > 1) cfg.n = std::strtoull(argv[1], nullptr, 10);
    if (argc > 2) cfg.grid = std::atoi(argv[2]);
    if (argc > 3) cfg.reps = std::atoi(argv[3]);
    if (cfg.n < 1 || cfg.grid < 1 || cfg.reps < 1) {
        std::fprintf(stderr, "usage: %s [particles] [cells per axis] [repetitions]\n", argv[0]);
        std::exit(2);
    }
    return cfg;
}

/// CPU defaults: 2M particles in 32^3 cells, about 61 per cell (the GPU run's density).
inline constexpr config cpu_defaults{std::size_t{1} << 21, 32, 5};

} // namespace gs
