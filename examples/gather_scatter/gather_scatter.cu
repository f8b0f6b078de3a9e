// Sorting particles by cell and gathering them, per layout, on the GPU (the CPU path where no
// GPU exists). See common.hpp for the physics and what is compared.
//
//   gather_scatter_gpu [particles] [cells per axis] [repetitions]
//   defaults: 16M particles, 64^3 cells (64 per cell), 20 repetitions; CPU: 2M, 32^3, 5
//
// Per layout (aos, soa, aosoa<32>): the cell ids; the cell lists alone (layout::cuda::bin_by_key
// of the ids); the density step through the lists with the particles unsorted; the sort
// (bin_by_key that also permutes every particle field: a CUB radix sort of (cell, index) on the
// 18 bits 64^3 cells need, then one gather); the density step on the sorted particles; the
// sorted densities scattered back to the original order (layout::cuda::scatter) and compared
// bit for bit with the unsorted ones, and against a double-precision host reference. Timings are
// CUDA events, the median of the repetitions.
#include "common.hpp"

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/error.hpp>
#include <layout/cuda/for_each.hpp>
#include <layout/cuda/vector.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <vector>

namespace {

using gs::index_t;
using gs::Particle;
using layout::cuda::check;

/// Times what f enqueues on the default stream: CUDA events around it.
class event_timer {
public:
    event_timer() {
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    ~event_timer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    template <class F>
    double ms(F&& f) {
        check(cudaEventRecord(start_), "cudaEventRecord");
        f();
        check(cudaEventRecord(stop_), "cudaEventRecord");
        check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, start_, stop_), "cudaEventElapsedTime");
        return t;
    }

private:
    cudaEvent_t start_{}, stop_{};
};

template <class E>
std::vector<E> to_host(const layout::cuda::aos_vector<E>& d) {
    const layout::aos_vector<E> h = d;
    return std::vector<E>(h.begin(), h.end());
}

/// The particles of a device container, as plain structs (a bulk copy, then host conversion).
template <class Policy>
std::vector<Particle>
particles_to_host(const layout::vector<Particle, Policy, layout::cuda::device_memory>& d) {
    const layout::vector<Particle, Policy> same_layout = d;
    const layout::aos_vector<Particle> aos = same_layout;
    return std::vector<Particle>(aos.begin(), aos.end());
}

/// Device copy of src into dst, same layout and size: assignment reuses dst's block.
template <class Policy>
void restore(layout::vector<Particle, Policy, layout::cuda::device_memory>& dst,
             const layout::vector<Particle, Policy, layout::cuda::device_memory>& src) {
    dst = src;
}

template <class Policy>
gs::row run_device_layout(const char* name, const std::vector<Particle>& original,
                          const std::vector<std::vector<index_t>>& buckets, const gs::config& cfg,
                          gs::checker& c) {
    std::printf("%s:\n", name);
    using device_particles = layout::vector<Particle, Policy, layout::cuda::device_memory>;
    const std::size_t n = cfg.n;
    event_timer timer;

    // Host conversion to the layout, then one bulk copy per column or block run to the device.
    // (Not const: layout::cuda::for_each_index does not compile for a view<const T, soa> with
    // nvcc 13 at the moment.)
    device_particles pristine = layout::vector<Particle, Policy>(
        layout::aos_vector<Particle>(original.begin(), original.end()));
    layout::cuda::aos_vector<index_t> cells(n), keys(n);
    layout::cuda::for_each_index(pristine.view(),
                                 gs::compute_cells{cells.view().storage().data, cfg.grid});
    check(cudaDeviceSynchronize(), "compute_cells");
    auto reset_keys = [&] {
        check(cudaMemcpy(keys.view().storage().data, cells.view().storage().data,
                         n * sizeof(index_t), cudaMemcpyDeviceToDevice),
              "cudaMemcpy");
    };

    gs::row r{name, 0, 0, 0, 0};

    // The cell lists, particles left in place.
    layout::cuda::bins<index_t> list;
    r.list_ms = gs::median_ms(cfg.reps, [&] {
        reset_keys();
        list = {}; // free the previous result outside the timed region
        return timer.ms([&] { list = layout::cuda::bin_by_key(keys, cfg.cells()); });
    });
    gs::check_bins(c, to_host(list.permutation), to_host(list.offsets), buckets, "cell lists");

    layout::cuda::aos_vector<float> rho_unsorted(n, -1.0f);
    const gs::density<true> indirect{list.offsets.view().storage().data,
                                     list.permutation.view().storage().data,
                                     rho_unsorted.view().storage().data, cfg.grid, cfg.inv_h2()};
    layout::cuda::for_each_index(pristine.view(), indirect); // warm-up
    r.unsorted_ms = gs::median_ms(cfg.reps, [&] {
        return timer.ms([&] { layout::cuda::for_each_index(pristine.view(), indirect); });
    });

    // Sorting: the particles move with their cell ids.
    device_particles work = pristine;
    layout::cuda::bins<index_t> sorted;
    r.sort_ms = gs::median_ms(cfg.reps, [&] {
        restore(work, pristine);
        reset_keys();
        sorted = {};
        return timer.ms([&] { sorted = layout::cuda::bin_by_key(keys, cfg.cells(), work); });
    });
    const auto perm = to_host(sorted.permutation);
    gs::check_bins(c, perm, to_host(sorted.offsets), buckets, "sort");
    gs::check_sorted(c, particles_to_host(work), original, perm);

    layout::cuda::aos_vector<float> rho_sorted(n, -1.0f);
    const gs::density<false> direct{sorted.offsets.view().storage().data, nullptr,
                                    rho_sorted.view().storage().data, cfg.grid, cfg.inv_h2()};
    layout::cuda::for_each_index(work.view(), direct); // warm-up
    r.sorted_ms = gs::median_ms(cfg.reps, [&] {
        return timer.ms([&] { layout::cuda::for_each_index(work.view(), direct); });
    });

    // Back to the particles' original order: rho_back[perm[k]] = rho_sorted[k].
    layout::cuda::aos_vector<float> rho_back(n, -1.0f);
    layout::cuda::scatter(rho_sorted, sorted.permutation, rho_back);
    check(cudaDeviceSynchronize(), "scatter");
    gs::check_density(c, to_host(rho_unsorted), to_host(rho_back), original, buckets, cfg);
    return r;
}

int run_gpu(gs::config cfg) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("GPU path on %s: %zu particles, %d^3 cells\n", prop.name, cfg.n, cfg.grid);
    const auto original = gs::random_particles(cfg.n, 42);
    const auto buckets = gs::reference_buckets(original, cfg.grid);
    gs::checker c;
    std::vector<gs::row> rows;
    rows.push_back(run_device_layout<layout::policy::aos>("aos", original, buckets, cfg, c));
    rows.push_back(run_device_layout<layout::policy::soa>("soa", original, buckets, cfg, c));
    rows.push_back(
        run_device_layout<layout::policy::aosoa<32>>("aosoa<32>", original, buckets, cfg, c));
    gs::print_table(rows, prop.name, cfg);
    if (c.failures) {
        std::printf("FAILED: %zu checks\n", c.failures);
        return 1;
    }
    std::printf("all checks passed\n");
    return 0;
}

bool have_gpu() {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    (void)cudaGetLastError();
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    try {
        if (!have_gpu()) {
            std::printf("no CUDA device: running the CPU path\n");
            return gs::run_cpu(gs::parse(argc, argv, gs::cpu_defaults));
        }
        return run_gpu(gs::parse(argc, argv, gs::config{std::size_t{1} << 24, 64, 20}));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
