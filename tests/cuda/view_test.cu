// Views passed by value to kernels reach the same bytes the host mapping names, for each layout;
// and the mapping's constexpr offsets agree on the host and on the device. Skips without a GPU.
#include <layout/policies.hpp>
#include <layout/view.hpp>

#include "common/shapes.hpp"
#include "gpu_test.hpp"

#include <cstddef>
#include <vector>

namespace {

using shapes::Nested;
namespace policy = layout::policy;

template <class Layout>
__global__ void scale_velocity(layout::view<Nested, Layout> v, float factor) {
    const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.size()) return;
    auto&& [pos, vel, id] = v[i];
    vel[0] *= factor;
    vel[1] *= factor;
    vel[2] *= factor;
    layout::get<&shapes::Vec3::x>(pos) += static_cast<float>(id);
}

template <class Layout>
void expect_kernel_writes_through_view() {
    using map = layout::mapping<Nested, Layout>;
    constexpr std::size_t n = 100;
    const std::size_t bytes = map::bytes(n);

    void* block = nullptr;
    if (!check_cuda(cudaMalloc(&block, bytes), "cudaMalloc")) return;
    const auto storage = layout::detail::storage<Nested, Layout>::from_block(block, n);

    // Fill on the host through a view over a host block of the same layout, then copy.
    std::vector<std::byte> host(bytes);
    const layout::view<Nested, Layout> h(
        layout::detail::storage<Nested, Layout>::from_block(host.data(), n), n);
    for (std::size_t i = 0; i < n; ++i)
        h[i] = Nested{{1.0f, 2.0f, 3.0f}, {float(i), 1.0f, -1.0f}, int(i)};
    check_cuda(cudaMemcpy(block, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");

    scale_velocity<<<(n + 31) / 32, 32>>>(layout::view<Nested, Layout>(storage, n), 2.0f);
    check_cuda(cudaGetLastError(), "scale_velocity launch");
    check_cuda(cudaMemcpy(host.data(), block, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    check_cuda(cudaFree(block), "cudaFree");

    for (std::size_t i = 0; i < n; ++i) {
        const Nested e = h[i];
        EXPECT_EQ(e.pos.x, 1.0f + float(i)) << "element " << i;
        EXPECT_EQ(e.pos.y, 2.0f) << "element " << i;
        EXPECT_EQ(e.v[0], 2.0f * float(i)) << "element " << i;
        EXPECT_EQ(e.v[1], 2.0f) << "element " << i;
        EXPECT_EQ(e.v[2], -2.0f) << "element " << i;
        EXPECT_EQ(e.id, int(i)) << "element " << i;
    }
}

class device_access : public gpu_test {};

TEST_F(device_access, aos_kernel_writes_through_view) {
    expect_kernel_writes_through_view<policy::aos>();
}
TEST_F(device_access, soa_kernel_writes_through_view) {
    expect_kernel_writes_through_view<policy::soa>();
}
TEST_F(device_access, aosoa32_kernel_writes_through_view) {
    expect_kernel_writes_through_view<policy::aosoa<32>>();
}

// A functor, not a lambda: nvcc refuses an extended lambda inside a TEST body (TestBody is a
// private member function).
struct same_offsets {
    __host__ __device__ bool operator()() const {
        using soa = layout::mapping<Nested, policy::soa>;
        using aosoa = layout::mapping<Nested, policy::aosoa<32>>;
        return soa::offset(33, 6, 100) == 6 * (512 + 256) + 33 * 4 &&
               aosoa::offset(33, 6, 100) == aosoa::block_bytes + 6 * 128 + 1 * 4;
    }
};

TEST_F(device_access, mapping_is_the_same_on_host_and_device) {
    EXPECT_TRUE(layout_test::host_and_device(same_offsets{}));
}

} // namespace
