// The hooks of fault_injection.hpp. Compiled as C++ (not CUDA), so that the runtime's
// declarations are plain extern "C" functions; the real functions are found with
// dlsym(RTLD_NEXT), in the shared CUDA runtime the test executable is linked with.
#include "fault_injection.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

namespace {

struct state {
    std::mutex mutex;
    long countdown = 0; // 0: off; else the allocation that makes it 0 fails
    bool fired = false;
    std::size_t failed_bytes = 0;
    std::size_t total = 0;
    std::unordered_set<void*> live;
};

state& the_state() {
    static state s;
    return s;
}

template <class F>
F real(const char* name) {
    void* f = dlsym(RTLD_NEXT, name);
    if (!f) {
        std::fprintf(stderr, "fault_injection: %s not found in the CUDA runtime: %s\n", name,
                     dlerror());
        std::abort();
    }
    return reinterpret_cast<F>(f);
}

/// True if this allocation is to fail (and records it).
bool inject(std::size_t bytes) {
    state& s = the_state();
    std::lock_guard lock(s.mutex);
    if (s.countdown == 0 || --s.countdown != 0) return false;
    s.fired = true;
    s.failed_bytes = bytes;
    return true;
}

void allocated(void* p) {
    state& s = the_state();
    std::lock_guard lock(s.mutex);
    ++s.total;
    if (p) s.live.insert(p);
}

void freed(void* p) {
    state& s = the_state();
    std::lock_guard lock(s.mutex);
    s.live.erase(p);
}

template <class Alloc, class... Args>
cudaError_t allocate(Alloc alloc, void** p, std::size_t bytes, Args... args) {
    if (bytes != 0 && inject(bytes)) return cudaErrorMemoryAllocation;
    const cudaError_t e = alloc(p, bytes, args...);
    if (e == cudaSuccess) allocated(*p);
    return e;
}

} // namespace

extern "C" cudaError_t cudaMalloc(void** p, std::size_t bytes) {
    static const auto f = real<cudaError_t (*)(void**, std::size_t)>("cudaMalloc");
    return allocate(f, p, bytes);
}
extern "C" cudaError_t cudaMallocHost(void** p, std::size_t bytes) {
    static const auto f = real<cudaError_t (*)(void**, std::size_t)>("cudaMallocHost");
    return allocate(f, p, bytes);
}
extern "C" cudaError_t cudaMallocAsync(void** p, std::size_t bytes, cudaStream_t stream) {
    static const auto f =
        real<cudaError_t (*)(void**, std::size_t, cudaStream_t)>("cudaMallocAsync");
    return allocate(f, p, bytes, stream);
}
extern "C" cudaError_t cudaMallocFromPoolAsync(void** p, std::size_t bytes, cudaMemPool_t pool,
                                               cudaStream_t stream) {
    static const auto f = real<cudaError_t (*)(void**, std::size_t, cudaMemPool_t, cudaStream_t)>(
        "cudaMallocFromPoolAsync");
    return allocate(f, p, bytes, pool, stream);
}
extern "C" cudaError_t cudaMallocManaged(void** p, std::size_t bytes, unsigned flags) {
    static const auto f = real<cudaError_t (*)(void**, std::size_t, unsigned)>("cudaMallocManaged");
    return allocate(f, p, bytes, flags);
}
extern "C" cudaError_t cudaFree(void* p) {
    static const auto f = real<cudaError_t (*)(void*)>("cudaFree");
    freed(p);
    return f(p);
}
extern "C" cudaError_t cudaFreeHost(void* p) {
    static const auto f = real<cudaError_t (*)(void*)>("cudaFreeHost");
    freed(p);
    return f(p);
}
extern "C" cudaError_t cudaFreeAsync(void* p, cudaStream_t stream) {
    static const auto f = real<cudaError_t (*)(void*, cudaStream_t)>("cudaFreeAsync");
    freed(p);
    return f(p, stream);
}

namespace fault_injection {

void fail_nth(long n) {
    state& s = the_state();
    std::lock_guard lock(s.mutex);
    s.countdown = n;
    s.fired = false;
    s.failed_bytes = 0;
}
bool fired() {
    std::lock_guard lock(the_state().mutex);
    return the_state().fired;
}
std::size_t failed_bytes() {
    std::lock_guard lock(the_state().mutex);
    return the_state().failed_bytes;
}
std::size_t live_allocations() {
    std::lock_guard lock(the_state().mutex);
    return the_state().live.size();
}
std::size_t total_allocations() {
    std::lock_guard lock(the_state().mutex);
    return the_state().total;
}

} // namespace fault_injection
