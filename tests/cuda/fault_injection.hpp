/// \file fault_injection.hpp
/// Simulated allocation failures for the GPU tests: fault_injection.cpp defines cudaMalloc,
/// cudaMallocHost, cudaMallocAsync, cudaMallocFromPoolAsync and cudaMallocManaged (and the frees) in the test executable, which is linked
/// with the shared CUDA runtime, so every allocation the library makes goes through them. They
/// count, can fail the n-th allocation with cudaErrorMemoryAllocation, and track what is live.
///
///     fault_injection::fail_nth(2);      // the second allocation from now fails
///     try { dev.reserve(1000); } catch (const layout::cuda::bad_alloc&) { ... }
///     fault_injection::fired();          // true if that failure happened
#pragma once

#include <cstddef>

namespace fault_injection {

/// Makes the n-th allocation from now fail (n >= 1); n = 0 turns injection off.
void fail_nth(long n);
/// Whether a failure was injected since the last fail_nth.
bool fired();
/// The size of the request that was failed.
std::size_t failed_bytes();
/// Allocations made through the hooks and not yet freed: a failed operation must not change it.
std::size_t live_allocations();
/// Allocations made through the hooks since the program started (proves the hooks are in use).
std::size_t total_allocations();

} // namespace fault_injection
