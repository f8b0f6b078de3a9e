/// \file gpu_common.cuh
/// What every GPU benchmark program shares (gpu_bench.cuh, algorithms_bench.cuh, convert_gpu.cu):
/// device containers, CUDA-event timing as Google Benchmark's manual time, and a main() that skips
/// cleanly where there is no CUDA device. It needs the library and Google Benchmark only, not the
/// examples/ include path, so convert_gpu.cu and the gather/scatter benchmarks build stand-alone.
///
///     benchmark::RegisterBenchmark("copy", [](benchmark::State& state) {
///         bench::time_launches(state, [&] { kernel<<<blocks, threads>>>(...); });
///     })->UseManualTime();
///
/// A program that turns layout's bounds checks off defines LAYOUT_CHECK_BOUNDS before including
/// this header (it includes the library).
#pragma once

#include "bench_main.hpp"

#include <layout/cuda/error.hpp>
#include <layout/cuda/vector.hpp>
#include <layout/layout.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <vector>

namespace bench {

template <class T, class L>
using device_vector = layout::vector<T, L, layout::cuda::device_memory>;

/// A start and a stop event on the default stream: seconds(launch) is the GPU time, in seconds,
/// of what launch() enqueues there.
class event_timer {
public:
    event_timer() {
        layout::cuda::check(cudaEventCreate(&start_), "cudaEventCreate");
        if (const cudaError_t e = cudaEventCreate(&stop_); e != cudaSuccess) {
            cudaEventDestroy(start_);
            layout::cuda::check(e, "cudaEventCreate");
        }
    }
    event_timer(const event_timer&) = delete;
    event_timer& operator=(const event_timer&) = delete;
    ~event_timer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }

    template <class Launch>
    double seconds(Launch&& launch) {
        layout::cuda::check(cudaEventRecord(start_), "cudaEventRecord");
        launch();
        layout::cuda::check(cudaEventRecord(stop_), "cudaEventRecord");
        layout::cuda::check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
        float ms = 0;
        layout::cuda::check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
        return ms * 1e-3;
    }

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

/// The median of times (the upper one of an even count; 0 where there are none). Reorders them.
inline double median(std::vector<double>& times) {
    if (times.empty()) return 0;
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
}

/// The timing of every GPU benchmark: one warm-up launch(), then one launch() per iteration,
/// timed with CUDA events and reported with SetIterationTime (register it with UseManualTime()).
/// Returns the median iteration time in seconds.
template <class Launch>
double time_launches(benchmark::State& state, Launch&& launch) {
    event_timer timer;
    launch(); // warm-up
    layout::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after warm-up");
    std::vector<double> times;
    for (auto _ : state) {
        const double s = timer.seconds(launch);
        state.SetIterationTime(s);
        times.push_back(s);
    }
    layout::cuda::check(cudaGetLastError(), "after the timed launches");
    return median(times);
}

/// Whether the CUDA runtime finds a device; where it finds none, says that the benchmark is
/// skipped.
inline bool device_present() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::printf("no CUDA device: GPU benchmark skipped\n");
        return false;
    }
    return true;
}

/// main() of a GPU benchmark: parses --n=N (default_n), exits 0 without a device, then
/// register_all(n) and runs (bench_main.hpp: register_all may return a non-zero exit status).
template <class Register>
int gpu_main(int argc, char** argv, std::size_t default_n, Register&& register_all) {
    const auto n = initialize(argc, argv, default_n);
    if (!n) return 1;
    if (!device_present()) return 0;
    return register_and_run(*n, register_all);
}

} // namespace bench
