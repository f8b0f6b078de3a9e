// layout::cuda::check and check_launch: a failed call becomes layout::cuda::error with its code,
// the call's name, the error's name and text, and the file and line of the caller (the line of
// the check, not of error.hpp), whichever source_location the host compiler has (std's, or
// error.hpp's own where it has none: nvcc with clang 14 as its host compiler).
// These need no GPU: they run, and can fail, where the GPU tests skip.
#include "gpu_test.hpp"

#include <layout/cuda/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace {

__global__ void no_op() {}

/// The message of the layout::cuda::error that f throws; fails the test if f throws nothing.
template <class F>
std::string message_of(F f, cudaError_t* code = nullptr) {
    try {
        f();
    } catch (const layout::cuda::error& e) {
        if (code != nullptr) *code = e.code();
        return e.what();
    }
    ADD_FAILURE() << "no layout::cuda::error thrown";
    return {};
}

} // namespace

TEST(cuda_error, success_throws_nothing) {
    EXPECT_NO_THROW(layout::cuda::check(cudaSuccess, "cudaMemcpy"));
}

TEST(cuda_error, a_failed_call_names_itself_the_error_and_the_callers_line) {
    cudaError_t code = cudaSuccess;
    const int line = __LINE__ + 2;
    const std::string what =
        message_of([] { layout::cuda::check(cudaErrorInvalidValue, "cudaMemcpy"); }, &code);
    EXPECT_EQ(code, cudaErrorInvalidValue);
    const std::string expected =
        "layout: cudaMemcpy failed at error_test.cu:" + std::to_string(line) + ": ";
    EXPECT_EQ(what.substr(0, expected.size()), expected) << what;
    EXPECT_NE(what.find(cudaGetErrorString(cudaErrorInvalidValue)), std::string::npos) << what;
    EXPECT_NE(what.find("(cudaErrorInvalidValue)"), std::string::npos) << what;
}

TEST(cuda_error, a_failed_launch_names_the_kernel_and_the_callers_line) {
    (void)cudaGetLastError();
    no_op<<<1, 0>>>(); // no threads: refused, with or without a device
    const int line = __LINE__ + 1;
    const std::string what = message_of([] { layout::cuda::check_launch("no_op"); });
    const std::string expected =
        "layout: no_op failed at error_test.cu:" + std::to_string(line) + ": ";
    EXPECT_EQ(what.substr(0, expected.size()), expected) << what;
    // Without a device the runtime's error stays (it is the driver's, not the launch's).
    if (layout_test::cuda_device_available())
        EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the check consumed the launch's error";
}
