/// \file gpu_test.hpp
/// What every GPU test needs: a fixture that skips, with a message, where there is no CUDA
/// device, a check of CUDA calls that fails the test with the error's name and text, and a way
/// to run one check both on the host and inside a <<<1, 1>>> kernel; and spin(), which holds a
/// stream busy so that a test can catch work that is not ordered after it.
///
///     struct adds_up { __host__ __device__ bool operator()() const { return 1 + 1 == 2; } };
///     class view_gpu : public gpu_test {};   // layout_test::gpu_test
///     TEST_F(view_gpu, writes_through_soa) {
///         check_cuda(cudaMalloc(&p, n), "cudaMalloc");
///         EXPECT_TRUE(layout_test::host_and_device(adds_up{}));
///     }
///
/// Pass a functor (or a __host__ __device__ lambda written in a free function): nvcc rejects an
/// extended lambda written directly in a TEST body, a private member function of gtest's class.
///
/// On a machine without a GPU each such test prints "no CUDA device: GPU test skipped", and the
/// test executable's main (gpu_test_main.cu) exits with 77 if nothing failed, which CTest reports
/// as skipped rather than passed. A failure still fails.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace layout_test {

/// Base fixture of GPU tests: skips the test when no CUDA device can be used.
class gpu_test : public ::testing::Test {
protected:
    void SetUp() override {
        int n = 0;
        const cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess || n == 0) {
            (void)cudaGetLastError(); // clear the "no device" error
            GTEST_SKIP() << "no CUDA device: GPU test skipped ("
                         << (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") << ")";
        }
        has_device_ = true;
    }
    void TearDown() override {
        if (!has_device_) return;
        // A kernel fault surfaces at the next synchronization: make it fail this test, not the
        // next one.
        const cudaError_t e = cudaDeviceSynchronize();
        EXPECT_EQ(e, cudaSuccess) << "after the test: " << cudaGetErrorName(e) << ": "
                                  << cudaGetErrorString(e);
    }

private:
    bool has_device_ = false;
};

/// True when a CUDA device can be used (what gpu_test checks before each test).
inline bool cuda_device_available() {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    return ok;
}

/// Adds a failure naming the call and the CUDA error unless e is cudaSuccess; returns whether it
/// succeeded, so a test can stop: `if (!check_cuda(cudaMalloc(...), "cudaMalloc")) return;`.
inline bool check_cuda(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    ADD_FAILURE() << what << " failed: " << cudaGetErrorName(e) << ": " << cudaGetErrorString(e);
    return false;
}

namespace detail {
template <class F>
__global__ void run_on_device(F f, bool* result) {
    *result = f();
}

// static: a __global__ function cannot be inline, and a test executable includes this header
// in two translation units (its test and gpu_test_main.cu).
static __global__ void spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
} // namespace detail

/// Keeps stream s busy for about `cycles` clock cycles (one thread): work queued behind it on s
/// starts late, work on an unordered stream does not wait. Returns whether the launch succeeded
/// (a test failure if not).
inline bool spin(cudaStream_t s, long long cycles) {
    detail::spin<<<1, 1, 0, s>>>(cycles);
    return check_cuda(cudaGetLastError(), "spin launch");
}

/// Runs f() inside a <<<1, 1>>> kernel and returns what it returned (false, with a test
/// failure, if the launch or the kernel failed). f must be a __host__ __device__ or __device__
/// callable returning bool: a functor, or an extended lambda (tests build with --extended-lambda)
/// defined outside TEST bodies.
template <class F>
bool on_device(F f) {
    bool* result = nullptr;
    if (!check_cuda(cudaMallocManaged(&result, sizeof(bool)), "cudaMallocManaged")) return false;
    *result = false;
    detail::run_on_device<<<1, 1>>>(f, result);
    bool ok = check_cuda(cudaGetLastError(), "kernel launch") &&
              check_cuda(cudaDeviceSynchronize(), "kernel execution") && *result;
    check_cuda(cudaFree(result), "cudaFree");
    return ok;
}

/// f() on the host and on the device (mdspan's offload tests): true only if both are true.
template <class F>
bool host_and_device(F f) {
    const bool host = f();
    EXPECT_TRUE(host) << "the check failed on the host";
    const bool device = on_device(f);
    EXPECT_TRUE(device) << "the check failed on the device";
    return host && device;
}

} // namespace layout_test

// The two names every GPU test uses, unqualified as well.
using layout_test::check_cuda;
using layout_test::gpu_test;
