/// \file config.hpp
/// Macros every layout header uses; each can be overridden by defining it first.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
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
#  if LAYOUT_CUDA_COMPILER
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

#include <cstdio>
#include <cstdlib>

namespace layout::detail {
/// Prints "layout: <what>" and stops: std::abort on the host, a trap on the device (the kernel
/// fails with cudaErrorLaunchFailure / illegal instruction and the host sees it at the next sync).
[[noreturn]] LAYOUT_HOST_DEVICE inline void fail(const char* what, unsigned long long index,
                                                 unsigned long long size) {
#if defined(__CUDA_ARCH__)
    std::printf("layout: %s (index %llu, size %llu)\n", what, index, size);
    __trap();
#else
    std::fprintf(stderr, "layout: %s (index %llu, size %llu)\n", what, index, size);
    std::abort();
#endif
}
} // namespace layout::detail

#if LAYOUT_CHECK_BOUNDS
#  define LAYOUT_BOUNDS_CHECK(index, size)                                                    \
      do {                                                                                    \
          if (!(static_cast<unsigned long long>(index) < static_cast<unsigned long long>(size))) \
              ::layout::detail::fail("index out of range", static_cast<unsigned long long>(index), \
                                     static_cast<unsigned long long>(size));                 \
      } while (0)
#else
#  define LAYOUT_BOUNDS_CHECK(index, size) ((void)0)
#endif
