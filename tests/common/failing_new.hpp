/// \file common/failing_new.hpp
/// A replaced global operator new that fails on demand, for tests of what an allocation failure
/// leaves behind: failing_new::countdown = n makes the n-th allocation from now throw
/// std::bad_alloc (0: never); failing_new::allocations counts them. Include it in exactly one
/// source file of a test executable (it defines the global allocation functions).
///
///     failing_new::allocations = 0;
///     failing_new::countdown = 3;   // the third allocation from here throws
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace failing_new {
inline long countdown = 0;
inline long allocations = 0;

inline void* allocate(std::size_t bytes, std::size_t alignment, bool may_fail = true) {
    if (may_fail) {
        ++allocations;
        if (countdown > 0 && --countdown == 0) throw std::bad_alloc();
    }
    if (bytes == 0) bytes = 1;
    void* p = alignment <= alignof(std::max_align_t)
                  ? std::malloc(bytes)
                  : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (!p) throw std::bad_alloc();
    return p;
}
} // namespace failing_new

// Every form, so that each allocation and its release go through malloc and free (sanitizers
// check that they match).
void* operator new(std::size_t n) { return failing_new::allocate(n, 1); }
void* operator new[](std::size_t n) { return failing_new::allocate(n, 1); }
void* operator new(std::size_t n, std::align_val_t a) {
    return failing_new::allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
    return failing_new::allocate(n, static_cast<std::size_t>(a));
}
// The nothrow forms never fail here: their callers (std::stable_sort's buffer) cope with a
// null by design, so a failure there would not be a failure of the algorithm.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return failing_new::allocate(n, 1, false);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return failing_new::allocate(n, 1, false);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
