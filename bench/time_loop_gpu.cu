// A simulation's time loop on device containers, against the same kernels on preallocated views,
// and two containers on two streams. Prints one table; every ratio is from this run.
//
//   time_loop_gpu [--n N] [--steps S] [--reps R]        (defaults: 33554432, 50, 5)
//
// Each step, on one stream: 10% of the particles die (resize down), 10% are born (resize up with
// a value: the fill kernel), every particle drifts (for_each_index), and the SoA particles are
// copied into an AoSoA<32> container (a cross-layout copy on the GPU: the tile kernel).
//   views      the same launches on views of blocks allocated once, outside the loop: the floor
//   reused     the containers: resize, resize(n, value), drift, w = v (w's block reused)
//   fresh      the same, with a new AoSoA container each step (`aosoa w(v, stream)`, from the
//              stream-ordered pool) and the old one destroyed
// outside_kernels = 1 - views / containers: the share of a container step spent outside the
// kernels (host work, allocation). Target: <= 5%.
//
// Two streams: two containers of n/4 particles, one drifting (compute) on stream A while the other
// is copied to pinned host memory (layout::cuda::copy, the copy engine) on stream B. Each alone,
// then both at once: overlap shows as both < alone_a + alone_b, and in the event timestamps.
#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

struct drift {
    float dt;
    template <class View>
    __device__ void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
    }
};

using soa = layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;
template <class L>
using device = layout::vector<Particle, L, layout::cuda::device_memory>;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "time_loop_gpu: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Milliseconds between two events.
float between(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms;
}

/// Runs f() `steps` times on stream, timed from the host (host work included) after a warm-up
/// run; milliseconds per step.
template <class F>
double per_step_ms(int steps, cudaStream_t stream, F f) {
    f(); // warm-up: first allocations from the pool, kernel loading
    check(cudaStreamSynchronize(stream), "warm-up");
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    for (int s = 0; s < steps; ++s) f();
    cudaEventRecord(stop, stream);
    check(cudaEventSynchronize(stop), "time loop");
    const double ms = between(start, stop) / steps;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t n = std::size_t{32} << 20;
    int steps = 50, reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--n")) n = std::strtoull(argv[i + 1], nullptr, 10);
        if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("time_loop_gpu: no CUDA device, nothing measured\n");
        return 0;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    const std::size_t born = n / 10;
    const Particle newborn{0, 0, 0, 1, 1, 1, 1, 0};
    const drift step_drift{0.001f};
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");

    std::vector<double> views_ms, reused_ms, fresh_ms;
    {
        device<soa> v(n, newborn, stream);
        device<aosoa32> w(n, newborn, stream);
        for (int r = 0; r < reps; ++r) {
            // The floor: the same kernels on views of the containers' blocks, which never change.
            const auto vv = v.view();
            const auto wv = w.view();
            using on_device =
                layout::transfer<layout::cuda::device_memory, layout::cuda::device_memory>;
            views_ms.push_back(per_step_ms(steps, stream, [&] {
                on_device::fill(vv, n - born, n, newborn, stream);
                layout::cuda::for_each_index(vv, step_drift, stream);
                on_device::copy(layout::view<const Particle, soa, layout::cuda::device_memory>(vv),
                                wv, stream);
            }));
            reused_ms.push_back(per_step_ms(steps, stream, [&] {
                v.resize(n - born);
                v.resize(n, newborn);
                layout::cuda::for_each_index(v.view(), step_drift, stream);
                w = v;
            }));
            fresh_ms.push_back(per_step_ms(steps, stream, [&] {
                v.resize(n - born);
                v.resize(n, newborn);
                layout::cuda::for_each_index(v.view(), step_drift, stream);
                device<aosoa32> fresh(v, stream);
                fresh.swap(w); // the old w is destroyed here: its block goes back to the pool
            }));
        }
    }
    const double views = median(views_ms), reused = median(reused_ms), fresh = median(fresh_ms);
    std::printf("device: %s; n = %zu particles (%zu bytes each), %d steps x %d repetitions, "
                "medians\n",
                prop.name, n, sizeof(Particle), steps, reps);
    std::printf("%-8s %12s %16s %18s\n", "loop", "ms/step", "views/loop", "outside_kernels");
    std::printf("%-8s %12.3f %16.4f %17.2f%%\n", "views", views, 1.0, 0.0);
    std::printf("%-8s %12.3f %16.4f %17.2f%%\n", "reused", reused, views / reused,
                100 * (1 - views / reused));
    std::printf("%-8s %12.3f %16.4f %17.2f%%\n", "fresh", fresh, views / fresh,
                100 * (1 - views / fresh));

    // ---- two containers on two streams ----------------------------------------------------------
    const std::size_t m = n / 4;
    cudaStream_t a_stream, b_stream;
    check(cudaStreamCreateWithFlags(&a_stream, cudaStreamNonBlocking), "stream a");
    check(cudaStreamCreateWithFlags(&b_stream, cudaStreamNonBlocking), "stream b");
    device<soa> a(m, newborn, a_stream), b(m, newborn, b_stream);
    layout::vector<Particle, soa, layout::cuda::pinned_memory> pinned(m);
    cudaEvent_t origin, a_start, a_stop, b_start, b_stop;
    for (cudaEvent_t* e : {&origin, &a_start, &a_stop, &b_start, &b_stop}) cudaEventCreate(e);
    const int drifts = 20;
    auto a_work = [&] {
        cudaEventRecord(a_start, a_stream);
        for (int k = 0; k < drifts; ++k)
            layout::cuda::for_each_index(a.view(), step_drift, a_stream);
        cudaEventRecord(a_stop, a_stream);
    };
    auto b_work = [&] {
        cudaEventRecord(b_start, b_stream);
        layout::cuda::copy(b.view(), pinned.view(), b_stream); // pinned: asynchronous
        cudaEventRecord(b_stop, b_stream);
    };
    auto wall = [&](auto work) {
        check(cudaDeviceSynchronize(), "before");
        cudaEventRecord(origin, 0);
        cudaStreamWaitEvent(a_stream, origin);
        cudaStreamWaitEvent(b_stream, origin);
        work();
        check(cudaDeviceSynchronize(), "after");
    };
    std::vector<double> alone_a, alone_b, both;
    float a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    for (int r = 0; r < reps + 1; ++r) {
        wall(a_work);
        const float ta = between(a_start, a_stop);
        wall(b_work);
        const float tb = between(b_start, b_stop);
        wall([&] {
            a_work();
            b_work();
        });
        const float t_end = std::max(between(origin, a_stop), between(origin, b_stop));
        const float t_begin = std::min(between(origin, a_start), between(origin, b_start));
        if (r == 0) continue; // warm-up
        alone_a.push_back(ta);
        alone_b.push_back(tb);
        both.push_back(t_end - t_begin);
        a0 = between(origin, a_start);
        a1 = between(origin, a_stop);
        b0 = between(origin, b_start);
        b1 = between(origin, b_stop);
    }
    const double ta = median(alone_a), tb = median(alone_b), tab = median(both);
    std::printf("\ntwo streams, %zu particles each: A = %d drifts, B = device -> pinned copy\n", m,
                drifts);
    std::printf("alone_a %.3f ms, alone_b %.3f ms, both %.3f ms: both / (a + b) = %.3f, "
                "both / max(a, b) = %.3f\n",
                ta, tb, tab, tab / (ta + tb), tab / std::max(ta, tb));
    std::printf("last run's timestamps (ms from a common origin): A [%.3f, %.3f], B [%.3f, %.3f]\n",
                a0, a1, b0, b1);
    return 0;
}
