/// \file cuda/error.hpp
/// CUDA errors as exceptions that name the call, the file and the line.
///
///     layout::cuda::check(cudaMemcpy(...), "cudaMemcpy");
///     // throws layout::cuda::error: "layout: cudaMemcpy failed at copy.hpp:42: invalid argument
///     //                              (cudaErrorInvalidValue)"
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/error.hpp needs a CUDA compiler (nvcc)"
#endif

#include <cuda_runtime.h>

#include <new>
#include <stdexcept>
#include <string>
#include <version>
#if defined(__cpp_lib_source_location)
#  include <source_location>
#endif

namespace layout::cuda {

/// A failed CUDA runtime call.
class error : public std::runtime_error {
public:
    error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

/// A device allocation that could not be satisfied; says how much was asked for.
class bad_alloc : public std::bad_alloc {
public:
    bad_alloc(std::size_t bytes, const std::string& what) : bytes_(bytes), what_(what) {}
    const char* what() const noexcept override { return what_.c_str(); }
    std::size_t bytes() const noexcept { return bytes_; }

private:
    std::size_t bytes_;
    std::string what_;
};

namespace detail {
#if defined(__cpp_lib_source_location)
using source_location = std::source_location;
#else
/// Where std::source_location is missing: nvcc with clang 14 as its host compiler, whose
/// libstdc++ 12 header needs a builtin clang 14 lacks. __builtin_FILE and __builtin_LINE in
/// default arguments name the caller's line, as current() does.
struct source_location {
    static constexpr source_location current(const char* file = __builtin_FILE(),
                                             unsigned line = __builtin_LINE()) noexcept {
        return {file, line};
    }
    constexpr const char* file_name() const noexcept { return file; }
    constexpr unsigned line() const noexcept { return line_number; }
    const char* file;
    unsigned line_number;
};
#endif

inline std::string where(const source_location& at) {
    std::string file = at.file_name();
    const auto slash = file.find_last_of('/');
    if (slash != std::string::npos) file.erase(0, slash + 1);
    return file + ":" + std::to_string(at.line());
}
} // namespace detail

/// Throws layout::cuda::error unless code is cudaSuccess.
inline void check(cudaError_t code, const char* call,
                  const detail::source_location& at = detail::source_location::current()) {
    if (code == cudaSuccess) return;
    throw error(code, std::string("layout: ") + call + " failed at " + detail::where(at) + ": " +
                          cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + ")");
}

/// Checks the launch that just happened (configuration errors) without waiting for it.
inline void check_launch(const char* kernel,
                         const detail::source_location& at = detail::source_location::current()) {
    check(cudaGetLastError(), kernel, at);
}

} // namespace layout::cuda
