// Selections on the GPU, for every layout: a kernel that receives only the chosen fields
// (select<x, y, z> and select<vx, vy, vz>), and layout::cuda::copy of chosen fields between
// host and device and between device layouts, which must leave every other field of the
// destination as it was; and nested members (layout::path) as split and selection keys.
// Checked against a std::vector model; skips where there is no GPU.

#include "../host/test_types.hpp"
#include "gpu_test.hpp"

#include <layout/cuda/workspace.hpp>
#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <random>
#include <vector>

namespace {

using namespace layout_test;

template <class T, class L>
using device_vector = layout::vector<T, L, layout::cuda::device_memory>;

std::vector<Particle> random_particles(std::mt19937& g, std::size_t n) {
    std::vector<Particle> model(n);
    for (auto& p : model) p = random_value<Particle>(g);
    return model;
}

template <class Pos, class Vel>
__global__ void drift(Pos pos, Vel vel, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= pos.size()) return;
    auto&& [x, y, z] = pos[i];
    const auto [vx, vy, vz] = vel[i].load();
    x += vx * dt;
    y += vy * dt;
    z += vz * dt;
}

template <class L>
class selection_gpu : public gpu_test {};
TYPED_TEST_SUITE(selection_gpu, all_layouts, layout_names);

TYPED_TEST(selection_gpu, kernel_over_chosen_fields) {
    using L = typename TypeParam::policy;
    std::mt19937 g(3);
    const std::size_t n = 1000;
    auto model = random_particles(g, n);
    const layout::vector<Particle, L> host(model.begin(), model.end());
    device_vector<Particle, L> dev = host;
    const auto pos = dev.template select<&Particle::x, &Particle::y, &Particle::z>();
    const auto vel = dev.template select<&Particle::vx, &Particle::vy, &Particle::vz>();
    drift<<<(n + 127) / 128, 128>>>(pos, vel, 0.5f);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "drift launch"));
    const layout::vector<Particle, L> back = dev;
    for (auto& p : model) p.x += p.vx * 0.5f, p.y += p.vy * 0.5f, p.z += p.vz * 0.5f;
    EXPECT_TRUE(matches(back, model));
}

/// x, y, z of `from`, every other field of `to`.
std::vector<Particle> positions_of(std::vector<Particle> to, const std::vector<Particle>& from) {
    for (std::size_t i = 0; i < to.size(); ++i) {
        to[i].x = from[i].x;
        to[i].y = from[i].y;
        to[i].z = from[i].z;
    }
    return to;
}

TYPED_TEST(selection_gpu, copies_chosen_fields_between_host_and_device) {
    using L = typename TypeParam::policy;
    std::mt19937 g(9);
    for (std::size_t n : {1u, 33u, 5000u}) {
        const auto on_host = random_particles(g, n), on_device = random_particles(g, n);
        layout::vector<Particle, L> host(on_host.begin(), on_host.end());
        const layout::vector<Particle, L> initial(on_device.begin(), on_device.end());
        device_vector<Particle, L> dev = initial;
        // Host -> device: the device's other fields stay.
        layout::cuda::copy(host.template select<&Particle::x, &Particle::y, &Particle::z>(),
                           dev.template select<&Particle::x, &Particle::y, &Particle::z>());
        const layout::vector<Particle, L> after = dev;
        EXPECT_TRUE(matches(after, positions_of(on_device, on_host))) << "host to device, n " << n;
        // Device -> host (into a SoA container): the host's other fields stay.
        layout::soa_vector<Particle> target(on_device.begin(), on_device.end());
        const device_vector<Particle, L> source(host);
        layout::cuda::copy(source.template select<&Particle::x, &Particle::y, &Particle::z>(),
                           target.select<&Particle::x, &Particle::y, &Particle::z>());
        EXPECT_TRUE(matches(target, positions_of(on_device, on_host))) << "device to host, n " << n;
        // Device -> pinned memory, SoA (column by column through the copy engine where the
        // source is SoA too) and the source's layout: there when copy returns, the other fields
        // as they were.
        using pinned_soa =
            layout::vector<Particle, layout::policy::soa, layout::cuda::pinned_memory>;
        using pinned_same = layout::vector<Particle, L, layout::cuda::pinned_memory>;
        pinned_soa to_soa(layout::soa_vector<Particle>(on_device.begin(), on_device.end()));
        pinned_same to_same(layout::vector<Particle, L>(on_device.begin(), on_device.end()));
        layout::cuda::copy(source.template select<&Particle::x, &Particle::y, &Particle::z>(),
                           to_soa.select<&Particle::x, &Particle::y, &Particle::z>());
        EXPECT_TRUE(matches(to_soa, positions_of(on_device, on_host))) << "to pinned SoA, n " << n;
        layout::cuda::copy(source.template select<&Particle::z, &Particle::x>(),
                           to_same.template select<&Particle::z, &Particle::x>());
        auto zx = on_device;
        for (std::size_t i = 0; i < n; ++i) zx[i].z = on_host[i].z, zx[i].x = on_host[i].x;
        EXPECT_TRUE(matches(to_same, zx)) << "to pinned, same layout, n " << n;
    }
}

TYPED_TEST(selection_gpu, copies_chosen_fields_between_device_layouts) {
    using L = typename TypeParam::policy;
    std::mt19937 g(11);
    const std::size_t n = 777;
    const auto a = random_particles(g, n), b = random_particles(g, n);
    const device_vector<Particle, L> src(layout::vector<Particle, L>(a.begin(), a.end()));
    using hot_cold = layout::policy::split<layout::policy::aos, layout::policy::soa, &Particle::x,
                                           &Particle::y, &Particle::z>;
    device_vector<Particle, hot_cold> dst(layout::vector<Particle, hot_cold>(b.begin(), b.end()));
    layout::cuda::copy(src.template select<&Particle::x, &Particle::y, &Particle::z>(),
                       dst.select<&Particle::x, &Particle::y, &Particle::z>());
    const layout::aos_vector<Particle> back = dst;
    EXPECT_TRUE(matches(back, positions_of(b, a)));
    // Overlapping selections on the device: a swap of two fields.
    layout::cuda::copy(dst.select<&Particle::vx, &Particle::mass>(),
                       dst.select<&Particle::mass, &Particle::vx>());
    auto expected = positions_of(b, a);
    for (auto& p : expected) std::swap(p.vx, p.mass);
    const layout::aos_vector<Particle> swapped = dst;
    EXPECT_TRUE(matches(swapped, expected));
}

/// Sets x = i + 0.5 of every element: queued behind spin(), a copy ordered after it on that
/// stream must see the new values.
template <class V>
__global__ void set_x(V v) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < v.size()) layout::get<&Particle::x>(v[i]) = static_cast<float>(i) + 0.5f;
}

// Through a workspace, device -> pinned SoA (staged chunk by chunk on the GPU where the source's
// fields are not columns): on a non-blocking stream behind a slow kernel, sizes of one chunk,
// of three (the stages reused) and a partial last one; there when copy returns, the other fields
// as they were, and nothing allocated by a second copy.
TYPED_TEST(selection_gpu, copies_chosen_fields_to_pinned_columns_through_a_workspace) {
    using L = typename TypeParam::policy;
    std::mt19937 g(17);
    cudaStream_t raw = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), "stream"));
    const layout::stream_ref stream(raw);
    {
        layout::cuda::workspace ws(stream);
        constexpr std::size_t chunk = layout::cuda::detail::stage_chunk;
        for (std::size_t n : {std::size_t{33}, chunk, 2 * chunk + 5}) {
            auto on_device = random_particles(g, n);
            const auto on_host = random_particles(g, n);
            device_vector<Particle, L> dev(
                layout::vector<Particle, L>(on_device.begin(), on_device.end()), stream);
            using pinned_soa =
                layout::vector<Particle, layout::policy::soa, layout::cuda::pinned_memory>;
            pinned_soa to(layout::soa_vector<Particle>(on_host.begin(), on_host.end()));
            ASSERT_TRUE(spin(raw, 20'000'000));
            set_x<<<static_cast<unsigned>((n + 255) / 256), 256, 0, raw>>>(dev.view());
            ASSERT_TRUE(check_cuda(cudaGetLastError(), "set_x"));
            for (std::size_t i = 0; i < n; ++i) on_device[i].x = static_cast<float>(i) + 0.5f;
            for (int round = 0; round < 2; ++round) {
                const std::size_t before = ws.allocations();
                layout::cuda::copy(dev.template select<&Particle::z, &Particle::x>(),
                                   to.template select<&Particle::z, &Particle::x>(), ws);
                auto expected = on_host;
                for (std::size_t i = 0; i < n; ++i)
                    expected[i].z = on_device[i].z, expected[i].x = on_device[i].x;
                EXPECT_TRUE(matches(to, expected)) << "n " << n << ", copy " << round;
                if (round == 1) EXPECT_EQ(ws.allocations(), before) << "n " << n;
            }
        }
    }
    ASSERT_TRUE(check_cuda(cudaStreamDestroy(raw), "cudaStreamDestroy"));
}

/// Nested members as keys (layout::path) in a split layout and a selection under nvcc, whose
/// host pass once refused them: pos.y and id in AoS, the rest SoA; kernels over the selection
/// of pos.y and id (all in the first part) and of w (all in the second), each a kernel argument
/// whose other part is dropped (an empty member once put the size where the device did not
/// look for it); the result against the model, every other leaf untouched.
template <class Sel>
__global__ void shift_y(Sel sel) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= sel.size()) return;
    auto&& [y, id] = sel[i];
    y += static_cast<float>(id);
}

template <class Sel>
__global__ void double_w(Sel sel) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= sel.size()) return;
    auto&& [w] = sel[i];
    w *= 2;
}

class selection_gpu_paths : public gpu_test {};

TEST_F(selection_gpu_paths, split_and_select_by_nested_member) {
    using y_and_id = layout::policy::split<layout::policy::aos, layout::policy::soa,
                                           layout::path<&Body::pos, &Vec3::y>, &Body::id>;
    std::mt19937 g(12);
    std::vector<Body> model(3001);
    for (auto& b : model) b = random_value<Body>(g);
    const layout::vector<Body, y_and_id> host(model.begin(), model.end());
    device_vector<Body, y_and_id> dev = host;
    const auto sel = dev.select<layout::path<&Body::pos, &Vec3::y>, &Body::id>();
    shift_y<<<(model.size() + 127) / 128, 128>>>(sel);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "shift_y launch"));
    double_w<<<(model.size() + 127) / 128, 128>>>(dev.select<&Body::w>());
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "double_w launch"));
    const layout::vector<Body, y_and_id> back = dev;
    for (auto& b : model) b.pos.y += static_cast<float>(b.id), b.w *= 2;
    EXPECT_TRUE(matches(back, model));
}

/// Proxies inside a kernel argument, each followed by a member whose offset depends on the
/// proxy's size (as in a device lambda that captures a proxy and a scale): a read-only proxy of
/// a SoA element (its kept value an empty base) and a proxy of a split selection whose other
/// part is dropped (an empty cursor member). A layout that differed between nvcc's host and
/// device passes would make the kernel read the scale, or the column pointer, from the wrong
/// place, as the split selection above did with an empty [[no_unique_address]] member. (With
/// that attribute on these members, nvcc 13.0 laid them out alike: this test passes with the
/// headers before they lost it too; they lost it so as not to depend on that.)
template <class Ref>
struct proxy_and_scale {
    Ref ref;
    float scale;
};

template <class Ref>
__global__ void scaled_x(proxy_and_scale<Ref> a, float* out) {
    auto&& [x, y, z] = a.ref;
    out[0] = x * a.scale;
    out[1] = y * a.scale;
    out[2] = z * a.scale;
}

template <class Ref>
__global__ void scaled_w(proxy_and_scale<Ref> a, float* out) {
    auto&& [w] = a.ref;
    out[0] = static_cast<float>(w) * a.scale;
}

// Through a function template: nvcc's host pass cannot spell a decltype of these proxies in a
// launch.
template <class Ref>
void launch_scaled_x(Ref ref, float scale, float* out) {
    scaled_x<<<1, 1>>>(proxy_and_scale<Ref>{ref, scale}, out);
}
template <class Ref>
void launch_scaled_w(Ref ref, float scale, float* out) {
    scaled_w<<<1, 1>>>(proxy_and_scale<Ref>{ref, scale}, out);
}

class proxy_arguments_gpu : public gpu_test {};

TEST_F(proxy_arguments_gpu, proxies_passed_by_value_to_kernels) {
    std::mt19937 g(21);
    const auto model = random_particles(g, 100);
    const device_vector<Particle, layout::policy::soa> dev(
        layout::soa_vector<Particle>(model.begin(), model.end()));
    float* out = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&out, 3 * sizeof(float)), "cudaMalloc"));
    const auto pos = dev.select<&Particle::x, &Particle::y, &Particle::z>();
    // Made on the host: a cursor into device memory, not read here.
    launch_scaled_x(pos[42], 3.0f, out);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "scaled_x launch"));
    float back[3] = {};
    ASSERT_TRUE(check_cuda(cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost), "copy"));
    EXPECT_EQ(back[0], model[42].x * 3.0f);
    EXPECT_EQ(back[1], model[42].y * 3.0f);
    EXPECT_EQ(back[2], model[42].z * 3.0f);

    using y_and_id = layout::policy::split<layout::policy::aos, layout::policy::soa,
                                           layout::path<&Body::pos, &Vec3::y>, &Body::id>;
    std::vector<Body> bodies(50);
    for (auto& b : bodies) b = random_value<Body>(g);
    const device_vector<Body, y_and_id> split_dev(
        layout::vector<Body, y_and_id>(bodies.begin(), bodies.end()));
    const auto w = split_dev.select<&Body::w>(); // only in the second part
    launch_scaled_w(w[17], 0.5f, out);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "scaled_w launch"));
    ASSERT_TRUE(check_cuda(cudaMemcpy(back, out, sizeof(float), cudaMemcpyDeviceToHost), "copy"));
    EXPECT_EQ(back[0], static_cast<float>(bodies[17].w) * 0.5f);
    cudaFree(out);
}

} // namespace
