// Device containers on streams and memory resources. Each operation (construction, resize,
// reserve, assign within and across layouts and memory spaces, fill, shrink, destruction, view
// copies) must (1) give the right elements, checked against a host model, and (2) never
// synchronize the device: they run on stream A while a kernel on stream B waits for the host to
// release it. An operation that synchronized the device would wait for that kernel, which gives up
// after two seconds and says so. Also: a user's device resource, written here, receives every
// allocation of a container with its stream; managed-memory containers; layout::cuda::copy
// between views of any memory. Skips where there is no GPU.

#include "../host/test_types.hpp"
#include "device_containers.hpp"
#include "gpu_test.hpp"

#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

namespace layout_test {

/// CUDA loads each kernel on its first launch (lazy loading, the default), and loading waits for
/// the device: the first launch of a kernel would wait for the blocked kernel below, whoever
/// launched it. This test is about the library's own synchronizations, so every kernel is loaded
/// when the program starts (the variable is read when the CUDA runtime initializes, in main).
inline const bool eager_module_loading = [] {
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    return true;
}();

// Outside the anonymous namespace: the synchronous forms are part of the concept but unused here.
/// A user's stream-ordered device resource: cudaMallocAsync on the device's default pool,
/// recording each live block with the stream it was allocated on.
struct recording_device_resource {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    struct refused : std::runtime_error {
        refused() : std::runtime_error("recording_device_resource refused an allocation") {}
    };

    std::map<void*, std::size_t> live;
    std::vector<cudaStream_t> streams_used;
    long allocations = 0;
    bool refuse_next = false;

    void* allocate_async(std::size_t bytes, std::size_t, layout::stream_ref stream) {
        if (refuse_next) {
            refuse_next = false;
            throw refused();
        }
        void* p = nullptr;
        if (cudaMallocAsync(&p, bytes, layout::cuda::native(stream)) != cudaSuccess)
            throw layout::cuda::bad_alloc(bytes, "recording_device_resource");
        live[p] = bytes;
        streams_used.push_back(layout::cuda::native(stream));
        ++allocations;
        return p;
    }
    void deallocate_async(void* p, std::size_t bytes, std::size_t,
                          layout::stream_ref stream) noexcept {
        if (const auto it = live.find(p); it != live.end() && it->second == bytes) live.erase(it);
        cudaFreeAsync(p, layout::cuda::native(stream));
    }
    void* allocate(std::size_t bytes, std::size_t alignment) {
        void* p = allocate_async(bytes, alignment, {});
        cudaStreamSynchronize(0);
        return p;
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        deallocate_async(p, bytes, alignment, {});
        cudaStreamSynchronize(0);
    }
    bool operator==(const recording_device_resource& o) const noexcept { return this == &o; }
};

} // namespace layout_test

namespace {

using namespace layout_test;

/// Spins until *release is set by the host, or until about `limit` clock cycles have passed;
/// *timed_out says which.
__global__ void wait_for_host(volatile int* release, volatile int* timed_out, long long limit) {
    const long long start = clock64();
    while (*release == 0)
        if (clock64() - start > limit) {
            *timed_out = 1;
            return;
        }
}

/// A kernel on its own non-blocking stream that holds the device's attention until released.
class blocker {
public:
    blocker() {
        check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
        check_cuda(cudaHostAlloc(&flags_, 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
        flags_[0] = 0;
        flags_[1] = 0;
        int rate_khz = 0;
        if (cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0) != cudaSuccess ||
            rate_khz <= 0) {
            (void)cudaGetLastError();
            rate_khz = 2'000'000; // 2 GHz: H100s run below it, so this waits at least 2 s
        }
        const long long two_seconds = 2000LL * rate_khz;
        wait_for_host<<<1, 1, 0, stream_>>>(flags_, flags_ + 1, two_seconds);
        check_cuda(cudaGetLastError(), "wait_for_host launch");
    }
    /// True while the waiting kernel has neither been released nor given up.
    bool still_waiting() const { return cudaStreamQuery(stream_) == cudaErrorNotReady; }
    /// Releases the kernel; true if it had not given up before.
    bool release() {
        flags_[0] = 1;
        check_cuda(cudaStreamSynchronize(stream_), "blocker stream");
        return flags_[1] == 0;
    }
    ~blocker() {
        flags_[0] = 1;
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
        cudaFreeHost(const_cast<int*>(flags_));
    }

private:
    cudaStream_t stream_{};
    volatile int* flags_ = nullptr;
};

template <class T>
std::vector<T> random_elements(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<T> out(n);
    for (T& x : out) x = random_value<T>(rng);
    return out;
}

template <class T, class Policy, class Memory>
std::vector<T> contents(const layout::vector<T, Policy, Memory>& c) {
    const layout::vector<T, Policy, layout::host_memory> h = c;
    return to_std(h);
}

template <class L>
class stream_containers : public gpu_test {};
TYPED_TEST_SUITE(stream_containers, all_layouts, layout_names);

/// The other layout a cross-layout case converts to.
template <class L>
using other_layout = std::conditional_t<std::is_same_v<L, soa_layout>, aos_layout, soa_layout>;

/// Runs op (work enqueued on stream a, then a synchronization of a) while a kernel on another
/// stream waits for the host: if op waited for that kernel, the kernel gives up first and the
/// failure names op.
template <class Op>
void without_device_sync(const char* name, cudaStream_t a, Op op) {
    blocker b;
    op();
    EXPECT_TRUE(b.still_waiting()) << name << ": the host waited for the device";
    ASSERT_TRUE(check_cuda(cudaStreamSynchronize(a), "stream a"));
    EXPECT_TRUE(b.still_waiting()) << name << ": the work on stream a waited for another stream";
    EXPECT_TRUE(b.release()) << name << ": the blocked kernel gave up: something waited for it";
}

TYPED_TEST(stream_containers, operations_never_synchronize_the_device) {
    using D = device_container<TypeParam, Body>;
    using O = device_container<other_layout<TypeParam>, Body>;
    cudaStream_t a{};
    ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream a"));
    const std::vector<Body> model = random_elements<Body>(1000, 1);
    const std::vector<Body> more = random_elements<Body>(300, 2);
    const host_container<TypeParam, Body> host(model.begin(), model.end());
    const layout::aos_vector<Body> host_aos(model.begin(), model.end());
    std::optional<D> v, x;
    std::optional<O> w;
    std::vector<Body> got_v, got_w, got_x;
    without_device_sync("construction from the host, converted", a,
                        [&] { v.emplace(host_aos, a); });
    without_device_sync("resize with a value (grows)", a, [&] { v->resize(1300, more[0]); });
    without_device_sync("reserve", a, [&] { v->reserve(5000); });
    without_device_sync("construction from the device, converted", a, [&] { w.emplace(*v, a); });
    without_device_sync("resize (shrinks)", a, [&] { w->resize(1000); });
    without_device_sync("assignment from the host, same layout", a, [&] {
        x.emplace(a);
        *x = host;
    });
    without_device_sync("shrink_to_fit", a, [&] { x->shrink_to_fit(); });
    without_device_sync("assign(n, value)", a, [&] { v->assign(20, more[1]); });
    without_device_sync("assignment across layouts", a, [&] { *v = *w; });
    without_device_sync("resize with a value (fits)", a, [&] { v->resize(1100, more[3]); });
    without_device_sync("layout::cuda::copy of views", a,
                        [&] { layout::cuda::copy(x->view(), w->view(), a); });
    without_device_sync("construction and destruction", a, [&] { D doomed(4000, more[2], a); });
    // Copies back to pageable memory wait for stream a only.
    without_device_sync("copies to the host", a, [&] {
        got_v = contents(*v);
        got_w = contents(*w);
        got_x = contents(*x);
    });
    without_device_sync("destruction", a, [&] {
        v.reset();
        w.reset();
        x.reset();
    });
    std::vector<Body> want_v = model; // v = w (the first 1000 of v), then grown
    want_v.resize(1100, more[3]);
    EXPECT_TRUE(same_values(got_x, model));
    EXPECT_TRUE(same_values(got_w, model)) << "w = x through layout::cuda::copy";
    EXPECT_TRUE(same_values(got_v, want_v));
    cudaStreamDestroy(a);
}

TYPED_TEST(stream_containers, a_user_resource_gets_every_allocation_with_the_stream) {
    using D = device_container<TypeParam, Particle>;
    cudaStream_t a{};
    ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream a"));
    recording_device_resource mine;
    const std::vector<Particle> model = random_elements<Particle>(700, 3);
    {
        D v(model.size(), model[0], a, mine);
        EXPECT_EQ(v.resource(), layout::resource_ref(mine));
        EXPECT_EQ(v.stream(), layout::stream_ref(a));
        v = layout::aos_vector<Particle>(model.begin(), model.end());
        v.reserve(2000);
        v.shrink_to_fit();
        EXPECT_EQ(mine.live.size(), 1u);
        EXPECT_GE(mine.allocations, 3);
        for (cudaStream_t s : mine.streams_used) EXPECT_EQ(s, a);
        EXPECT_TRUE(same_values(contents(v), model));
    }
    EXPECT_TRUE(mine.live.empty()) << "a block was not given back (or with another size)";
    ASSERT_TRUE(check_cuda(cudaStreamSynchronize(a), "stream a"));
    cudaStreamDestroy(a);
}

TYPED_TEST(stream_containers, a_refusing_user_resource_changes_nothing) {
    using D = device_container<TypeParam, Particle>;
    recording_device_resource mine;
    const std::vector<Particle> model = random_elements<Particle>(300, 6);
    const std::vector<Particle> more = random_elements<Particle>(900, 7);
    const host_container<other_layout<TypeParam>, Particle> bigger(more.begin(), more.end());
    D v(layout::stream_ref{}, mine);
    v = host_container<TypeParam, Particle>(model.begin(), model.end());
    const std::size_t capacity = v.capacity();
    const auto refused = [&](auto op, const char* what) {
        mine.refuse_next = true;
        EXPECT_THROW(op(), recording_device_resource::refused) << what;
        EXPECT_EQ(v.capacity(), capacity) << what;
        EXPECT_EQ(mine.live.size(), 1u) << what;
        EXPECT_TRUE(same_values(contents(v), model)) << what;
    };
    refused([&] { v.reserve(4 * capacity); }, "reserve");
    refused([&] { v.resize(2 * capacity, more[0]); }, "resize");
    refused([&] { v = bigger; }, "converting assignment from the host");
    refused([&] { D w(10, model[0], layout::stream_ref{}, mine); }, "construction");
}

TYPED_TEST(stream_containers, managed_memory_containers) {
    using M = managed_container<TypeParam, Body>;
    const std::vector<Body> model = random_elements<Body>(500, 4);
    M m(model.begin(), model.end()); // host-accessible: written by the host
    EXPECT_TRUE(matches(m, model));
    const device_container<other_layout<TypeParam>, Body> dev = m; // converted on the GPU
    const M back = dev; // converted on the GPU into managed memory; readable on return
    EXPECT_TRUE(matches(back, model));
    M filled(300, model[7]); // filled by a kernel, readable on return
    EXPECT_TRUE(matches(filled, std::vector<Body>(300, model[7])));
    filled.push_back(model[8]); // grows: moved on the GPU, then the host writes
    EXPECT_TRUE(same(Body(filled[300]), model[8]));
}

TYPED_TEST(stream_containers, view_copies_between_any_memory) {
    using OP = typename other_layout<TypeParam>::policy;
    const std::vector<Mixed> model = random_elements<Mixed>(777, 5);
    const host_container<TypeParam, Mixed> host(model.begin(), model.end());
    layout::vector<Mixed, OP> host_other(model.size());
    device_container<TypeParam, Mixed> dev(model.size());
    device_container<other_layout<TypeParam>, Mixed> dev_other(model.size());
    pinned_container<other_layout<TypeParam>, Mixed> pinned(model.size());
    cudaStream_t a{};
    ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream a"));
    // The containers were filled on the default stream, which a non-blocking stream does not
    // wait for: the fills must be done before stream a writes the same elements.
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "the containers' fills"));
    layout::cuda::copy(host.view(), dev.view(), a);         // pageable -> device, same layout
    layout::cuda::copy(dev.view(), dev_other.view(), a);    // device -> device, converted
    layout::cuda::copy(dev_other.view(), pinned.view(), a); // device -> pinned: waits for a
    ASSERT_TRUE(check_cuda(cudaStreamSynchronize(a), "stream a"));
    EXPECT_TRUE(matches(pinned, model));
    layout::cuda::copy(dev.view(), host_other.view(), a); // device -> pageable, converted; waits
    EXPECT_TRUE(matches(host_other, model));
    EXPECT_THROW(
        layout::cuda::copy(dev.view(), layout::view<Mixed, OP>(host_other.view().storage(), 3), a),
        std::length_error);
    cudaStreamDestroy(a);
}

} // namespace
