// cuda/workspace.hpp and the device algorithms' stream and resource contract (issue: a step at
// hand-written speed): every algorithm given a container runs on the container's stream (a
// cudaStreamNonBlocking one here, which nothing orders with the default stream) and takes its
// temporaries and results from the container's resource on that stream; with a workspace, a
// steady-state step allocates nothing; the by-field sorts and the double-buffered remove_if give
// the host reference's result in every layout; a step without host waits can be captured in a
// CUDA graph; the one-name algorithms (layout::gather, layout::copy, ...) take the device path
// for device memory; the blocks the algorithms give the container have zeroed padding, as the
// container's own do. The resource records the stream of every allocation and poisons every
// block it hands out (0xab) and frees (0xff, on the freeing stream), so a temporary read before
// it is written, used after its free, or freed on another stream than the one that used it,
// shows up as wrong results (and under compute-sanitizer).
#include "gpu_test.hpp"

#include <layout/cuda/workspace.hpp>
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace workspace_test_support {

/// A user's device resource: stream-ordered, counting its allocations per stream, poisoning
/// what it hands out (0xab: reused pool memory holds anything) and what it frees (0xff).
struct counting_resource {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    std::map<void*, cudaStream_t>* streams; // stream of each allocation, over the test
    long* allocations;

    void* allocate_async(std::size_t bytes, std::size_t, layout::stream_ref stream) {
        void* p = nullptr;
        const cudaStream_t s = layout::cuda::native(stream);
        if (cudaMallocAsync(&p, bytes, s) != cudaSuccess) throw std::bad_alloc();
        cudaMemsetAsync(p, 0xab, bytes, s);
        (*streams)[p] = s;
        ++*allocations;
        return p;
    }
    void deallocate_async(void* p, std::size_t bytes, std::size_t,
                          layout::stream_ref stream) noexcept {
        const cudaStream_t s = layout::cuda::native(stream);
        cudaMemsetAsync(p, 0xff, bytes, s); // poison, in the order of the freeing stream
        cudaFreeAsync(p, s);
    }
    void* allocate(std::size_t bytes, std::size_t alignment) {
        return allocate_async(bytes, alignment, {});
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        deallocate_async(p, bytes, alignment, {});
        cudaStreamSynchronize(nullptr);
    }
    bool operator==(const counting_resource& o) const noexcept {
        return allocations == o.allocations;
    }
};

} // namespace workspace_test_support

namespace {

using layout_test::check_cuda;
using workspace_test_support::counting_resource;
namespace lp = layout::policy;

struct Particle {
    double x, y, z;
    float ux, uy, uz, weight;
    int id, cell;
};

bool same(const Particle& a, const Particle& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.ux == b.ux && a.uy == b.uy && a.uz == b.uz &&
           a.weight == b.weight && a.id == b.id && a.cell == b.cell;
}

std::vector<Particle> random_particles(std::size_t n, unsigned seed, int cells) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<Particle> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = {u(g),
                u(g),
                u(g),
                float(u(g)),
                float(u(g)),
                float(u(g)),
                float(u(g)),
                static_cast<int>(i),
                static_cast<int>(g() % static_cast<unsigned>(cells))};
    return v;
}

/// Left the box: what remove_if drops.
struct outside {
    template <class E>
    __host__ __device__ bool operator()(const E& e) const {
        return layout::get<&Particle::x>(e) > 0.6;
    }
};

/// A step's push, through for_each_index: x = x / 2 + ux / 4, whose products are exact, so that
/// a fused multiply-add on the device rounds as the host's separate operations do.
struct push {
    template <class V>
    __host__ __device__ void operator()(const V& v, std::size_t i) const {
        auto&& [x, y, z, ux, uy, uz, w, id, cell] = v[i];
        x = x * 0.5 + double(ux) * 0.25;
        cell = (cell * 7 + 3) % 64;
        (void)y, (void)z, (void)uy, (void)uz, (void)w, (void)id;
    }
};
void push_model(Particle& p) {
    p.x = p.x * 0.5 + double(p.ux) * 0.25;
    p.cell = (p.cell * 7 + 3) % 64;
}

/// New particles written after the kept ones: [from, to) of v.
template <class V>
__global__ void inject(V v, std::size_t from, std::size_t to, int step) {
    const std::size_t i = from + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= to) return;
    const int id = 1000000 + step * 100000 + static_cast<int>(i);
    v[i] = Particle{0.5, 0.25, 0.125, 0.5f, 0.f, 0.f, 1.f, id, id % 64};
}
Particle injected(std::size_t i, int step) {
    const int id = 1000000 + step * 100000 + static_cast<int>(i);
    return Particle{0.5, 0.25, 0.125, 0.5f, 0.f, 0.f, 1.f, id, id % 64};
}

template <class C>
std::vector<Particle> to_host(const C& c) {
    const layout::aos_vector<Particle> h = c;
    return {h.begin(), h.end()};
}

template <class L>
class workspace_test : public layout_test::gpu_test {
protected:
    void SetUp() override {
        layout_test::gpu_test::SetUp();
        if (IsSkipped()) return;
        ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                               "cudaStreamCreateWithFlags"));
    }
    void TearDown() override {
        if (stream) {
            check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
        }
        layout_test::gpu_test::TearDown();
    }
    /// Every allocation the resource made was on the test's stream.
    void expect_all_on_stream(const char* what) {
        for (const auto& [p, s] : streams) EXPECT_EQ(s, stream) << what << ": block " << p;
    }

    cudaStream_t stream = nullptr;
    std::map<void*, cudaStream_t> streams;
    long allocations = 0;
    counting_resource resource{&streams, &allocations};
};

using layouts =
    ::testing::Types<lp::aos, lp::soa, lp::aosoa<32>, lp::split<lp::aos, lp::soa, 0, 1, 2>>;
TYPED_TEST_SUITE(workspace_test, layouts);

template <class L>
using device = layout::vector<Particle, L, layout::cuda::device_memory>;

// A PIC-like step in every layout: push, remove_if, inject, bin by the element's own field,
// all on a non-blocking stream with a workspace: the host model's particles, no allocation once
// warm, every allocation on the container's stream.
TYPED_TEST(workspace_test, a_steady_state_step_allocates_nothing_and_matches_the_model) {
    constexpr int cells = 64;
    const std::size_t n = 20000;
    std::vector<Particle> model = random_particles(n, 1, cells);
    device<TypeParam> c(layout::stream_ref(this->stream), this->resource);
    {
        const layout::aos_vector<Particle> h(model.begin(), model.end());
        c = h;
    }
    layout::cuda::workspace ws(this->stream, this->resource);
    long warm = 0;
    for (int step = 0; step < 6; ++step) {
        if (step == 2) warm = this->allocations;
        layout::cuda::for_each_index(c.view(), push{}, this->stream);
        const std::size_t kept = layout::cuda::remove_if(c, outside{}, ws);
        c.resize(n, layout::for_overwrite);
        inject<<<(n - kept + 255) / 256 + 1, 256, 0, this->stream>>>(c.view(), kept, n, step);
        ASSERT_TRUE(check_cuda(cudaGetLastError(), "inject"));
        const auto bins = layout::cuda::bin_by_key<&Particle::cell>(c, cells, ws);

        for (Particle& p : model) push_model(p);
        std::erase_if(model, [](const Particle& p) { return p.x > 0.6; });
        ASSERT_EQ(kept, model.size()) << "step " << step;
        for (std::size_t i = kept; i < n; ++i) model.push_back(injected(i, step));
        std::stable_sort(model.begin(), model.end(),
                         [](const Particle& a, const Particle& b) { return a.cell < b.cell; });
        std::vector<std::uint32_t> offsets(cells + 1);
        ASSERT_TRUE(check_cuda(cudaMemcpyAsync(offsets.data(), bins.offsets.data(),
                                               offsets.size() * sizeof(std::uint32_t),
                                               cudaMemcpyDeviceToHost, this->stream),
                               "cudaMemcpyAsync"));
        ASSERT_TRUE(check_cuda(cudaStreamSynchronize(this->stream), "cudaStreamSynchronize"));
        for (int b = 0; b <= cells; ++b)
            ASSERT_EQ(offsets[b],
                      std::lower_bound(model.begin(), model.end(), b,
                                       [](const Particle& p, int k) { return p.cell < k; }) -
                          model.begin())
                << "bin " << b << ", step " << step;
        const auto got = to_host(c);
        ASSERT_EQ(got.size(), model.size());
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_TRUE(same(got[i], model[i])) << "element " << i << ", step " << step;
    }
    EXPECT_EQ(this->allocations, warm) << "steps 2-5 allocated from the resource";
    this->expect_all_on_stream("step");
}

// The algorithms without a workspace take their temporaries and results from the container's
// resource, on its stream; sort_by_key by a field matches std::stable_sort.
TYPED_TEST(workspace_test, temporaries_and_results_come_from_the_containers_resource_and_stream) {
    const std::size_t n = 5000;
    std::vector<Particle> model = random_particles(n, 2, 1000);
    device<TypeParam> c(layout::stream_ref(this->stream), this->resource);
    {
        const layout::aos_vector<Particle> h(model.begin(), model.end());
        c = h;
    }
    const long before = this->allocations;
    // Keys apart from the container, in the container's resource too.
    layout::vector<int, lp::aos, layout::cuda::device_memory> keys(layout::stream_ref(this->stream),
                                                                   this->resource);
    {
        std::vector<int> k(n);
        for (std::size_t i = 0; i < n; ++i) k[i] = model[i].cell;
        const layout::aos_vector<int> hk(k.begin(), k.end());
        keys = hk;
    }
    const auto perm = layout::cuda::sort_by_key(keys, c);
    EXPECT_EQ(perm.resource(), layout::resource_ref(this->resource));
    EXPECT_EQ(perm.stream(), layout::stream_ref(this->stream));
    std::stable_sort(model.begin(), model.end(),
                     [](const Particle& a, const Particle& b) { return a.cell < b.cell; });
    auto got = to_host(c);
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same(got[i], model[i])) << "sort " << i;

    // The sorted keys again: bin_by_key leaves the order (and the offsets come back).
    const auto bins = layout::cuda::bin_by_key(keys, 1000, c);
    EXPECT_EQ(bins.offsets.resource(), layout::resource_ref(this->resource));
    EXPECT_EQ(bins.offsets.size(), 1001u);
    got = to_host(c);
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same(got[i], model[i])) << "bin " << i;

    const std::size_t kept = layout::cuda::remove_if(c, outside{});
    std::erase_if(model, [](const Particle& p) { return p.x > 0.6; });
    ASSERT_EQ(kept, model.size());
    got = to_host(c);
    for (std::size_t i = 0; i < kept; ++i) ASSERT_TRUE(same(got[i], model[i])) << "remove " << i;
    EXPECT_GT(this->allocations, before) << "nothing came from the container's resource";
    this->expect_all_on_stream("algorithms");

    // By the element's own field: sort_by_key<&Particle::id> gives the id order back.
    layout::cuda::workspace ws(this->stream, this->resource);
    const auto p = layout::cuda::sort_by_key<&Particle::id>(c, ws);
    EXPECT_EQ(p.size(), c.size());
    std::sort(model.begin(), model.end(),
              [](const Particle& a, const Particle& b) { return a.id < b.id; });
    got = to_host(c);
    ASSERT_EQ(got.size(), model.size());
    for (std::size_t i = 0; i < kept; ++i) ASSERT_TRUE(same(got[i], model[i])) << "by id " << i;

    // By a floating-point field that is a contiguous column in no layout here but SoA (under the
    // split, x sits in the AoS part): the keys copied out, sorted, written back in order.
    const auto px = layout::cuda::sort_by_key<&Particle::x>(c, ws);
    EXPECT_EQ(px.size(), c.size());
    std::stable_sort(model.begin(), model.end(),
                     [](const Particle& a, const Particle& b) { return a.x < b.x; });
    got = to_host(c);
    for (std::size_t i = 0; i < kept; ++i) ASSERT_TRUE(same(got[i], model[i])) << "by x " << i;
}

// A workspace serves one stream: given another, the algorithm throws before anything runs.
TYPED_TEST(workspace_test, a_workspace_of_another_stream_is_refused) {
    device<TypeParam> c(100, Particle{}, layout::stream_ref(this->stream));
    layout::cuda::workspace other; // the default stream
    EXPECT_THROW(layout::cuda::remove_if(c, outside{}, other), std::invalid_argument);
    EXPECT_THROW((layout::cuda::bin_by_key<&Particle::cell>(c, 64, other)), std::invalid_argument);
    EXPECT_EQ(c.size(), 100u);
}

// A step that needs no host wait (push, sort by a field through a warm workspace, a copy into
// another layout) captured in a CUDA graph and replayed three times: the same particles as three
// direct steps (while captured, the sort keeps the container's block, so replays stay valid).
TYPED_TEST(workspace_test, a_step_without_host_waits_is_captured_in_a_graph) {
    const std::size_t n = 10000;
    const std::vector<Particle> start = random_particles(n, 3, 64);
    const layout::aos_vector<Particle> h(start.begin(), start.end());
    const layout::stream_ref s(this->stream);
    device<TypeParam> direct(h, s), captured(h, s);
    device<lp::soa> direct_out(n, Particle{}, s), captured_out(n, Particle{}, s);
    layout::cuda::workspace ws_direct(s), ws_captured(s);
    auto step = [&](auto& c, auto& out, layout::cuda::workspace& ws) {
        layout::cuda::for_each_index(c.view(), push{}, this->stream);
        layout::cuda::sort_by_key<&Particle::cell>(c, ws);
        layout::cuda::copy(c.view(), out.view(), this->stream);
    };
    step(captured, captured_out, ws_captured); // warm: the workspace holds its blocks
    step(direct, direct_out, ws_direct);
    ASSERT_TRUE(check_cuda(cudaStreamSynchronize(this->stream), "warm-up"));

    cudaGraph_t graph = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamBeginCapture(this->stream, cudaStreamCaptureModeThreadLocal),
                           "cudaStreamBeginCapture"));
    step(captured, captured_out, ws_captured);
    ASSERT_TRUE(check_cuda(cudaStreamEndCapture(this->stream, &graph), "cudaStreamEndCapture"));
    cudaGraphExec_t exec = nullptr;
    ASSERT_TRUE(check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate"));
    for (int k = 0; k < 3; ++k) {
        ASSERT_TRUE(check_cuda(cudaGraphLaunch(exec, this->stream), "cudaGraphLaunch"));
        step(direct, direct_out, ws_direct);
    }
    ASSERT_TRUE(check_cuda(cudaStreamSynchronize(this->stream), "replay"));
    check_cuda(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    check_cuda(cudaGraphDestroy(graph), "cudaGraphDestroy");
    const auto a = to_host(direct), b = to_host(captured);
    const auto ao = to_host(direct_out), bo = to_host(captured_out);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(same(a[i], b[i])) << "container, element " << i;
        ASSERT_TRUE(same(ao[i], bo[i])) << "copy, element " << i;
    }
    // And the direct steps are the model's: four pushes, each followed by a stable sort by cell.
    std::vector<Particle> model = start;
    for (int k = 0; k < 4; ++k) {
        for (Particle& p : model) push_model(p);
        std::stable_sort(model.begin(), model.end(),
                         [](const Particle& x, const Particle& y) { return x.cell < y.cell; });
    }
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same(a[i], model[i])) << "model " << i;
}

// The block an algorithm writes the elements into and gives the container (the workspace's
// element block, double buffering) is prepared as a block the container allocates itself: the
// bytes between an AoSoA block's lane runs zeroed. Copies move whole blocks, so a block given to
// the container with garbage there gave the host bytes that differ from run to run, and every
// such copy was a read of uninitialized memory (compute-sanitizer's initcheck).
struct Padded {
    double key;
    int bin;
};

struct bin_is_odd {
    template <class E>
    __host__ __device__ bool operator()(const E& e) const {
        return layout::get<&Padded::bin>(e) % 2 == 1;
    }
};

TEST(element_block, gaps_are_zero_in_the_blocks_the_algorithms_give_the_container) {
    if (!layout_test::cuda_device_available()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
    constexpr std::size_t lanes = 3;
    using L = lp::aosoa<lanes>;
    using map = L::mapping<Padded>;
    constexpr std::array<std::size_t, 2> leaf_bytes = {sizeof(double), sizeof(int)};
    static_assert(map::block_bytes > lanes * (leaf_bytes[0] + leaf_bytes[1]), "no gap to check");
    std::map<void*, cudaStream_t> streams;
    long allocations = 0;
    counting_resource resource{&streams, &allocations}; // new blocks hold 0xab
    const std::size_t n = 3001;
    std::vector<Padded> start(n);
    std::mt19937 g(5);
    for (Padded& p : start) p = {double(g() % 1000), int(g() % 7)};
    layout::vector<Padded, L, layout::cuda::device_memory> c(layout::stream_ref{}, resource);
    c = layout::aos_vector<Padded>(start.begin(), start.end());
    auto expect_zero_gaps = [&](const char* what) {
        const std::size_t blocks = (c.size() + lanes - 1) / lanes;
        std::vector<unsigned char> bytes(blocks * map::block_bytes);
        ASSERT_TRUE(check_cuda(
            cudaMemcpy(bytes.data(), c.view().storage().data, bytes.size(), cudaMemcpyDefault),
            "cudaMemcpy"));
        for (std::size_t k = 0; k < blocks; ++k)
            for (std::size_t b = 0; b < map::block_bytes; ++b) {
                bool in_leaf = false;
                for (std::size_t l = 0; l < leaf_bytes.size(); ++l)
                    in_leaf |= b >= map::lane_offsets[l] &&
                               b < map::lane_offsets[l] + lanes * leaf_bytes[l];
                if (!in_leaf)
                    ASSERT_EQ(bytes[k * map::block_bytes + b], 0)
                        << what << ": block " << k << ", byte " << b;
            }
    };
    expect_zero_gaps("the container's own block");
    const long own = allocations;
    layout::cuda::workspace ws(c);
    layout::cuda::sort_by_key<&Padded::key>(c, ws);
    EXPECT_GT(allocations, own) << "the workspace allocated no element block";
    expect_zero_gaps("sort_by_key through a workspace");
    layout::cuda::sort_by_key<&Padded::bin>(c, ws); // into the container's old block
    expect_zero_gaps("sort_by_key again");
    layout::cuda::remove_if(c, bin_is_odd{}); // a workspace of its own
    expect_zero_gaps("remove_if without a workspace");
    layout::cuda::bin_by_key<&Padded::bin>(c, 7, ws);
    expect_zero_gaps("bin_by_key");
    // The same steps on the host.
    const auto by_bin = [](const Padded& a, const Padded& b) { return a.bin < b.bin; };
    std::stable_sort(start.begin(), start.end(),
                     [](const Padded& a, const Padded& b) { return a.key < b.key; });
    std::stable_sort(start.begin(), start.end(), by_bin);
    std::erase_if(start, [](const Padded& p) { return p.bin % 2 == 1; });
    std::stable_sort(start.begin(), start.end(), by_bin);
    const layout::aos_vector<Padded> back = c;
    ASSERT_EQ(back.size(), start.size());
    for (std::size_t i = 0; i < start.size(); ++i) {
        const Padded e = back[i];
        ASSERT_TRUE(e.key == start[i].key && e.bin == start[i].bin) << i;
    }
}

// One name for host and device: layout::gather, layout::copy and layout::for_each_index given
// device containers and views run on the GPU; raw device memory is spelled by the user.
TEST(one_name, device_arguments_take_the_device_path) {
    if (!layout_test::cuda_device_available()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
    const std::size_t n = 3000;
    const std::vector<Particle> start = random_particles(n, 4, 64);
    const layout::aos_vector<Particle> h(start.begin(), start.end());
    const device<lp::soa> src = h;
    device<lp::aosoa<32>> dst(n);
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    std::reverse(idx.begin(), idx.end());
    const layout::aos_vector<std::uint32_t> hidx(idx.begin(), idx.end());
    const layout::vector<std::uint32_t, lp::aos, layout::cuda::device_memory> didx = hidx;
    layout::gather(src, didx, dst);
    layout::for_each_index(dst.view(), push{});
    Particle* raw = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&raw, n * sizeof(Particle)), "cudaMalloc"));
    const layout::view<Particle, lp::aos, layout::cuda::device_memory> raw_view(raw, n);
    layout::copy(dst.view(), raw_view);
    std::vector<Particle> got(n);
    ASSERT_TRUE(check_cuda(cudaMemcpy(got.data(), raw, n * sizeof(Particle), cudaMemcpyDefault),
                           "cudaMemcpy"));
    check_cuda(cudaFree(raw), "cudaFree");
    for (std::size_t i = 0; i < n; ++i) {
        Particle e = start[n - 1 - i];
        push_model(e);
        ASSERT_TRUE(same(got[i], e)) << i;
    }
}

} // namespace
