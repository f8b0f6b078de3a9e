// layout::to_dlpack on CUDA memory: device containers give kDLCUDA tensors with the current
// device's id and the column's device pointer and stride; a kernel that writes through the
// tensor's data, byte_offset and strides (as CuPy or PyTorch would) lands in the container;
// pinned and managed containers say kDLCUDAHost and kDLCUDAManaged; the owning form keeps a
// device container alive after its last C++ handle.

#include "gpu_test.hpp"

#include "common/shapes.hpp"

#include <layout/dlpack.hpp>
#include <layout/layout.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace {

using shapes::Mixed;
using shapes::Particle;

/// Value i of a 1-D tensor written as a consumer does: data + byte_offset + i * stride values.
template <class E>
__global__ void write_through(void* data, std::uint64_t byte_offset, std::int64_t n,
                              std::int64_t stride) {
    const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto* p = static_cast<char*>(data) + byte_offset + i * stride * std::int64_t(sizeof(E));
    *reinterpret_cast<E*>(p) = static_cast<E>(3 * i + 1);
}

template <class E>
bool launch_write(const DLTensor& t) {
    const std::int64_t n = t.shape[0];
    const unsigned blocks = unsigned((n + 127) / 128);
    if (n) write_through<E><<<blocks, 128>>>(t.data, t.byte_offset, n, t.strides[0]);
    return check_cuda(cudaGetLastError(), "write_through launch") &&
           check_cuda(cudaDeviceSynchronize(), "write_through");
}

Particle make(int i) {
    const float f = float(i);
    return {f, f + 0.5f, -f, 2 * f, 3 * f, 4 * f, 1 + f, -1 - f};
}

int current_device() {
    int d = -1;
    check_cuda(cudaGetDevice(&d), "cudaGetDevice");
    return d;
}

class dlpack_gpu : public gpu_test {};

/// A device container of layout L: export vy, check the fields, write through it on the GPU.
template <class L>
void check_device_particles(std::int64_t expected_stride) {
    const int n = 1000;
    layout::soa_vector<Particle> host(n);
    for (int i = 0; i < n; ++i) host[std::size_t(i)] = make(i);
    layout::vector<Particle, L, layout::cuda::device_memory> dev = host;
    const auto vy = dev.template column<&Particle::vy>();

    DLManagedTensor* m = layout::to_dlpack(vy);
    const DLTensor& t = m->dl_tensor;
    EXPECT_EQ(t.device.device_type, kDLCUDA);
    EXPECT_EQ(t.device.device_id, current_device());
    EXPECT_EQ(t.data, vy.data());
    EXPECT_EQ(t.ndim, 1);
    EXPECT_EQ(t.shape[0], n);
    EXPECT_EQ(t.strides[0], expected_stride);
    EXPECT_EQ(t.dtype.code, kDLFloat);
    EXPECT_EQ(t.dtype.bits, 32);
    EXPECT_EQ(t.dtype.lanes, 1);
    EXPECT_EQ(t.byte_offset, 0u);
    cudaPointerAttributes a{};
    ASSERT_TRUE(check_cuda(cudaPointerGetAttributes(&a, t.data), "cudaPointerGetAttributes"));
    EXPECT_EQ(a.type, cudaMemoryTypeDevice);

    ASSERT_TRUE(launch_write<float>(t));
    m->deleter(m);

    const layout::soa_vector<Particle> back = dev; // the container, after the kernel
    for (int i = 0; i < n; ++i) {
        Particle want = make(i);
        want.vy = float(3 * i + 1);
        const Particle got = back[std::size_t(i)];
        ASSERT_TRUE(got.x == want.x && got.y == want.y && got.z == want.z && got.vx == want.vx &&
                    got.vy == want.vy && got.vz == want.vz && got.m == want.m && got.q == want.q)
            << "element " << i;
    }
}

TEST_F(dlpack_gpu, soa_column_is_contiguous_device_memory) {
    check_device_particles<layout::policy::soa>(1);
}

TEST_F(dlpack_gpu, aos_column_is_strided_device_memory) {
    check_device_particles<layout::policy::aos>(8);
}

TEST_F(dlpack_gpu, mixed_leaves_through_a_kernel) {
    const int n = 300;
    layout::aos_vector<Mixed> host(n, Mixed{1.5, -2, 'q', true});
    layout::cuda::aos_vector<Mixed> dev = host; // 16 B: d stride 2, i stride 4
    DLManagedTensor* d = layout::to_dlpack(dev.column<&Mixed::d>());
    DLManagedTensor* i = layout::to_dlpack(dev.column<&Mixed::i>());
    EXPECT_EQ(d->dl_tensor.strides[0], 2);
    EXPECT_EQ(d->dl_tensor.dtype.code, kDLFloat);
    EXPECT_EQ(d->dl_tensor.dtype.bits, 64);
    EXPECT_EQ(i->dl_tensor.strides[0], 4);
    EXPECT_EQ(i->dl_tensor.dtype.code, kDLInt);
    ASSERT_TRUE(launch_write<double>(d->dl_tensor));
    ASSERT_TRUE(launch_write<int>(i->dl_tensor));
    d->deleter(d);
    i->deleter(i);
    host = dev;
    for (int k = 0; k < n; ++k) {
        const Mixed e = host[std::size_t(k)];
        ASSERT_TRUE(e.d == 3 * k + 1 && e.i == 3 * k + 1 && e.c == 'q' && e.b) << "element " << k;
    }
}

TEST_F(dlpack_gpu, owner_keeps_the_device_container) {
    int destroyed = 0;
    using C = layout::cuda::aos_vector<Particle>;
    std::shared_ptr<C> owner(new C(500, Particle{}), [&destroyed](C* c) {
        ++destroyed;
        delete c;
    });
    DLManagedTensor* m = layout::to_dlpack(owner->column<&Particle::q>(), owner);
    owner.reset();
    EXPECT_EQ(destroyed, 0);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDA);
    ASSERT_TRUE(launch_write<float>(m->dl_tensor));
    // Read the strided column back the way a consumer without the container would.
    std::vector<float> q(500);
    ASSERT_TRUE(check_cuda(cudaMemcpy2D(q.data(), sizeof(float), m->dl_tensor.data,
                                        std::size_t(m->dl_tensor.strides[0]) * sizeof(float),
                                        sizeof(float), q.size(), cudaMemcpyDeviceToHost),
                           "cudaMemcpy2D"));
    for (int i = 0; i < 500; ++i) ASSERT_EQ(q[std::size_t(i)], float(3 * i + 1)) << i;
    m->deleter(m);
    EXPECT_EQ(destroyed, 1);
}

TEST_F(dlpack_gpu, pinned_managed_and_empty_containers) {
    layout::vector<Particle, layout::policy::soa, layout::cuda::pinned_memory> pinned(8);
    DLManagedTensor* m = layout::to_dlpack(pinned.column<&Particle::x>());
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDAHost);
    EXPECT_EQ(m->dl_tensor.data, pinned.column<&Particle::x>().data());
    m->deleter(m);

    auto managed = std::make_shared<
        layout::vector<Particle, layout::policy::aos, layout::cuda::managed_memory>>(8);
    m = layout::to_dlpack(managed->column<&Particle::z>(), managed);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDAManaged);
    EXPECT_EQ(m->dl_tensor.device.device_id, current_device());
    EXPECT_EQ(m->dl_tensor.strides[0], 8);
    m->deleter(m);

    auto empty = std::make_shared<layout::cuda::soa_vector<Particle>>();
    m = layout::to_dlpack(empty->column<&Particle::x>(), empty);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(m->dl_tensor.device.device_id, current_device());
    EXPECT_EQ(m->dl_tensor.shape[0], 0);
    m->deleter(m);
}

} // namespace
