/// \file config.hpp
/// Macros every layout header uses; each can be overridden by defining it first.
#pragma once

// __HIP__: clang compiling HIP (hipcc, or clang -x hip), in both passes.
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#  define LAYOUT_CUDA_COMPILER 1
#else
#  define LAYOUT_CUDA_COMPILER 0
#endif

#ifndef LAYOUT_HOST_DEVICE
#  if LAYOUT_CUDA_COMPILER
#    define LAYOUT_HOST_DEVICE __host__ __device__
#  else
#    define LAYOUT_HOST_DEVICE
#  endif
#endif

#ifndef LAYOUT_FORCEINLINE
// HIP's __forceinline__ comes from <hip/hip_runtime.h>, which may be included after this header
// (__host__ and __device__ come with the compiler): HIP gets what that macro says, below.
#  if LAYOUT_CUDA_COMPILER && !defined(__HIP__)
#    define LAYOUT_FORCEINLINE __forceinline__
#  elif defined(__GNUC__)
#    define LAYOUT_FORCEINLINE inline __attribute__((always_inline))
#  else
#    define LAYOUT_FORCEINLINE inline
#  endif
#endif

#ifndef LAYOUT_RESTRICT
#  define LAYOUT_RESTRICT __restrict__
#endif

#ifndef LAYOUT_UNROLL
#  if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#    define LAYOUT_UNROLL _Pragma("unroll")
#  elif defined(__GNUC__) && !defined(__CUDACC__)
#    define LAYOUT_UNROLL _Pragma("GCC unroll 16")
#  else
#    define LAYOUT_UNROLL // nvcc's host pass: the host compiler does not know nvcc's pragma
#  endif
#endif

// Templates that call user functors are host-device; nvcc warns when it instantiates one with a
// host-only functor even though that instantiation never runs on the device. CCCL silences this
// the same way.
#ifndef LAYOUT_EXEC_CHECK_DISABLE
#  if defined(__CUDACC__) && !defined(__clang__)
#    define LAYOUT_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#  else
#    define LAYOUT_EXEC_CHECK_DISABLE
#  endif
#endif

// Bounds checks on element access: on in debug builds, off under NDEBUG; force either way with
// -DLAYOUT_CHECK_BOUNDS=0/1.
#ifndef LAYOUT_CHECK_BOUNDS
#  ifdef NDEBUG
#    define LAYOUT_CHECK_BOUNDS 0
#  else
#    define LAYOUT_CHECK_BOUNDS 1
#  endif
#endif

/// Attributes of the out-of-line loop functions; define it (e.g. empty) to override.
#ifndef LAYOUT_HOST_LOOP
#  if defined(__GNUC__) || defined(__clang__)
#    define LAYOUT_HOST_LOOP __attribute__((noinline, flatten))
#  else
#    define LAYOUT_HOST_LOOP
#  endif
#endif

/// The pragma on the host loops (host_loop.hpp, layouts/aosoa.hpp) that says their iterations are independent. With OpenMP,
/// `omp simd`: it also overrides g++'s -O2 cost model ("very cheap", which vectorizes no loop
/// that needs a remainder), so that a SoA drift vectorizes at -O2 as at -O3 (the hand-written
/// loop at -O2 stays scalar).
/// LAYOUT_IVDEP_STRIDED: the same claim without forcing vectorization, for loops over whole
/// elements (AoS). Forced, g++ -O2 turns their strided accesses into shuffles: AoS drift 1.17x and
/// wide_drift 1.46x the hand-written loop, which g++'s cost model leaves scalar at -O2.
#ifndef LAYOUT_IVDEP_STRIDED
#  if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#    define LAYOUT_IVDEP_STRIDED _Pragma("GCC ivdep")
#  else
#    define LAYOUT_IVDEP_STRIDED
#  endif
#endif
/// LAYOUT_IVDEP_MAY_THROW: the same claim for a serial loop whose functor may throw (its
/// operator() is not noexcept). No exception may leave an `omp simd` loop (the program would
/// end), so such a loop never gets it, and the exception reaches the caller under every layout.
#ifndef LAYOUT_IVDEP_MAY_THROW
#  if defined(__clang__)
#    define LAYOUT_IVDEP_MAY_THROW _Pragma("clang loop vectorize(assume_safety)")
#  elif defined(__GNUC__) && !defined(__CUDACC__)
#    define LAYOUT_IVDEP_MAY_THROW _Pragma("GCC ivdep")
#  else
#    define LAYOUT_IVDEP_MAY_THROW
#  endif
#endif
#ifndef LAYOUT_IVDEP
#  if defined(_OPENMP)
#    define LAYOUT_IVDEP _Pragma("omp simd")
#  elif defined(__clang__)
#    define LAYOUT_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#  elif defined(__GNUC__) && !defined(__CUDACC__)
#    define LAYOUT_IVDEP _Pragma("GCC ivdep")
#  else
#    define LAYOUT_IVDEP
#  endif
#endif

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#if defined(__HIP_DEVICE_COMPILE__)
// HIP's device printf, declared as <hip/hip_runtime.h> declares it (that header may come later).
extern "C" __device__ int printf(const char* format, ...);
#endif

namespace layout::detail {
/// Prints "layout: <what>" and stops: std::abort on the host, a trap on the device (the kernel
/// fails with cudaErrorLaunchFailure / illegal instruction and the host sees it at the next sync;
/// under HIP, device printf and __builtin_trap, compiled but never run here: no AMD GPU).
/// negative: the index is -index (a signed index below zero, printed as such rather than as
/// 18446744073709551615).
[[noreturn]] LAYOUT_HOST_DEVICE inline void fail(const char* what, unsigned long long index,
                                                 unsigned long long size, bool negative = false) {
    const char* sign = negative ? "-" : "";
#if defined(__CUDA_ARCH__)
    std::printf("layout: %s (index %s%llu, size %llu)\n", what, sign, index, size);
    __trap();
#elif defined(__HIP_DEVICE_COMPILE__)
    printf("layout: %s (index %s%llu, size %llu)\n", what, sign, index, size);
    __builtin_trap();
#else
    std::fprintf(stderr, "layout: %s (index %s%llu, size %llu)\n", what, sign, index, size);
    std::abort();
#endif
}

/// index < size for an index of any integer type; a negative one is out of range.
template <class Index, class Size>
LAYOUT_HOST_DEVICE constexpr bool index_in_range(Index index, Size size) noexcept {
    if constexpr (std::is_signed_v<Index>)
        if (index < 0) return false;
    return static_cast<unsigned long long>(index) < static_cast<unsigned long long>(size);
}

/// fail() for an index of any integer type, printed with its sign.
template <class Index, class Size>
[[noreturn]] LAYOUT_HOST_DEVICE void fail_index(const char* what, Index index, Size size) {
    bool negative = false;
    if constexpr (std::is_signed_v<Index>) negative = index < 0;
    // 0 - x in unsigned arithmetic is |x| for every x, the most negative value included.
    const auto magnitude = static_cast<unsigned long long>(index);
    fail(what, negative ? 0 - magnitude : magnitude, static_cast<unsigned long long>(size),
         negative);
}
} // namespace layout::detail

#if LAYOUT_CHECK_BOUNDS
#  define LAYOUT_BOUNDS_CHECK(index, size)                                                         \
      do {                                                                                         \
          const auto layout_checked_index = (index);                                               \
          const auto layout_checked_size = (size);                                                 \
          if (!::layout::detail::index_in_range(layout_checked_index, layout_checked_size))        \
              ::layout::detail::fail_index("index out of range", layout_checked_index,             \
                                           layout_checked_size);                                   \
      } while (0)
#else
#  define LAYOUT_BOUNDS_CHECK(index, size) ((void)0)
#endif
