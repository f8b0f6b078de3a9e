// The bound: a float4 device-to-device copy of 1 GiB, one float4 per thread, 256 threads per
// block (particles::copy_float4). Bytes processed: read + written (2 GiB per iteration).
#include "gpu_bench.cuh"

namespace {
void copy_1gib(benchmark::State& state) {
    try {
        const std::size_t bytes = std::size_t{1} << 30, n4 = bytes / sizeof(float4);
        float4 *src = nullptr, *dst = nullptr;
        layout::cuda::check(cudaMalloc(&src, bytes), "cudaMalloc");
        layout::cuda::check(cudaMalloc(&dst, bytes), "cudaMalloc");
        layout::cuda::check(cudaMemset(src, 0x3f, bytes), "cudaMemset"); // 0.75f-ish, not zeros
        bench::time_launches(state, [&] {
            particles::copy_float4<<<particles::blocks_for(n4), particles::threads_per_block>>>(
                src, dst, n4);
            layout::cuda::check_launch("copy_float4");
        });
        cudaFree(src);
        cudaFree(dst);
        state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                                static_cast<std::int64_t>(bytes));
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}
} // namespace

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, 0, [](std::size_t) {
        benchmark::RegisterBenchmark("copy_float4/1GiB", copy_1gib)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    });
}
