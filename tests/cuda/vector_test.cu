// The view and proxy checks of view_test.cpp, run inside <<<1, 1>>> kernels under every layout and
// compared with the same code on the host and with a plain-struct model; device containers:
// copies host -> device -> host within and across layouts, a drift kernel, resize / reserve /
// shrink_to_fit, device out-of-memory, and pinned host memory. Skips where there is no GPU.

#include "../host/test_types.hpp"
#include "device_containers.hpp"
#include "gpu_test.hpp"

#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace layout_test;

static_assert(
    std::is_same_v<layout::cuda::soa_vector<Particle>, device_container<soa_layout, Particle>>);
static_assert(
    std::is_same_v<layout::cuda::aosoa<Body, 32>, device_container<aosoa_layout<32>, Body>>);

/// Element access is for host-accessible memory only.
template <class C>
concept host_indexable = requires(C c) { c[0]; };
static_assert(!host_indexable<layout::cuda::soa_vector<Particle>>);
static_assert(host_indexable<pinned_container<soa_layout, Particle>>);

/// Calls f(std::type_identity<L>{}) for every layout.
template <class F>
void for_each_layout(F f) {
    f(std::type_identity<aos_layout>{});
    f(std::type_identity<soa_layout>{});
    f(std::type_identity<aosoa_layout<4>>{});
    f(std::type_identity<aosoa_layout<32>>{});
    f(std::type_identity<aosoa_layout<3>>{});
}

// ---- the view and proxy checks, one source for host and device ---------------------------------

/// Structured bindings, get by member pointer and index, nested and std::array proxies,
/// whole-element load and store, proxy swap and equality on p (Particles) and b (Bodies); reads
/// through a read-only view r (other memory than b, as the restrict contract of views asks).
/// sums[0..1]: totals over r; sums[2]: 1 if every stored element compared equal.
struct exercise {
    template <class PV, class BV, class RV>
    __host__ __device__ void operator()(PV p, BV b, RV r, double* sums) const {
        for (std::size_t i = 0; i < p.size(); ++i) {
            auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
            x += vx * 0.25f;
            y += vy * 0.25f;
            z += vz * 0.25f;
            m = m + 1.0f;
            layout::get<&Particle::mass>(p[i]) *= 2.0f;
            layout::get<7>(p[i]) = -q;
        }
        if (p.size() > 1) swap(p[0], p[p.size() - 1]);

        bool all_equal = true;
        for (std::size_t i = 0; i < b.size(); ++i) {
            auto&& [pos, vel, id, pair, w] = b[i];
            layout::get<&Vec3::y>(pos) += vel[i % 3];
            layout::get<&Vec3::z>(layout::get<1>(pair)) = static_cast<float>(id % 7);
            w = w * 2.0;
            Body t = b[i]; // whole-element load
            t.id += 1;
            t.pair[0] = t.pos;
            b[i] = t; // whole-element store
            all_equal = all_equal && b[i] == t && layout::get<&Body::pos>(b[i]) == t.pos;
        }

        double s = 0, s2 = 0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            const Body t = r[i];
            auto&& [pos, vel, id, pair, w] = r[i];
            s += t.w + static_cast<double>(layout::get<&Vec3::x>(pos)) + vel[2] + id +
                 layout::get<&Vec3::y>(layout::get<1>(pair)) + w;
        }
        const auto z = r.template column<&Body::pos, &Vec3::z>();
        for (std::size_t i = 0; i < z.size(); ++i) s2 += z[i];
        sums[0] = s;
        sums[1] = s2;
        sums[2] = all_equal ? 1.0 : 0.0;
    }
};

/// The same on plain structs.
void exercise_model(std::vector<Particle>& p, std::vector<Body>& b, const std::vector<Body>& r,
                    double* sums) {
    for (auto& e : p) {
        e.x += e.vx * 0.25f;
        e.y += e.vy * 0.25f;
        e.z += e.vz * 0.25f;
        e.mass = (e.mass + 1.0f) * 2.0f;
        e.charge = -e.charge;
    }
    if (p.size() > 1) std::swap(p.front(), p.back());
    for (std::size_t i = 0; i < b.size(); ++i) {
        Body& e = b[i];
        e.pos.y += e.vel[i % 3];
        e.pair[1].z = static_cast<float>(e.id % 7);
        e.w = e.w * 2.0;
        e.id += 1;
        e.pair[0] = e.pos;
    }
    double s = 0, s2 = 0;
    for (const Body& e : r) {
        s += e.w + static_cast<double>(e.pos.x) + e.vel[2] + e.id + e.pair[1].y + e.w;
        s2 += e.pos.z;
    }
    sums[0] = s;
    sums[1] = s2;
    sums[2] = 1.0;
}

template <class PV, class BV, class RV>
__global__ void exercise_kernel(PV p, BV b, RV r, double* sums) {
    exercise{}(p, b, r, sums);
}

template <class L>
class device_views : public gpu_test {};
TYPED_TEST_SUITE(device_views, all_layouts, layout_names);

TYPED_TEST(device_views, proxies_in_a_kernel_match_host_and_model) {
    std::mt19937 g(1);
    std::vector<Particle> pm = random_values<Particle>(g, 41);
    std::vector<Body> bm = random_values<Body>(g, 37);
    const std::vector<Body> rm = random_values<Body>(g, 35);

    // on the device
    device_container<TypeParam, Particle> dp =
        host_container<TypeParam, Particle>(pm.begin(), pm.end());
    device_container<TypeParam, Body> db = host_container<TypeParam, Body>(bm.begin(), bm.end());
    const device_container<TypeParam, Body> dr =
        host_container<TypeParam, Body>(rm.begin(), rm.end());
    double* sums = nullptr;
    ASSERT_TRUE(check_cuda(cudaMallocManaged(&sums, 3 * sizeof(double)), "cudaMallocManaged"));
    sums[0] = sums[1] = sums[2] = -1;
    exercise_kernel<<<1, 1>>>(dp.view(), db.view(), dr.view(), sums);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "exercise_kernel launch"));
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "exercise_kernel"));
    const double device_sums[3] = {sums[0], sums[1], sums[2]};
    check_cuda(cudaFree(sums), "cudaFree");
    const host_container<TypeParam, Particle> dp_back = dp;
    const host_container<TypeParam, Body> db_back = db;

    // on the host, the same code
    host_container<TypeParam, Particle> hp(pm.begin(), pm.end());
    host_container<TypeParam, Body> hb(bm.begin(), bm.end());
    const host_container<TypeParam, Body> hr(rm.begin(), rm.end());
    double host_sums[3];
    exercise{}(hp.view(), hb.view(), hr.view(), host_sums);

    // the model
    double model_sums[3];
    exercise_model(pm, bm, rm, model_sums);

    EXPECT_TRUE(container_matches(hp, pm)) << "host";
    EXPECT_TRUE(container_matches(hb, bm)) << "host";
    EXPECT_TRUE(container_matches(dp_back, pm)) << "device";
    EXPECT_TRUE(container_matches(db_back, bm)) << "device";
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(host_sums[k], model_sums[k]) << "host sum " << k;
        EXPECT_EQ(device_sums[k], model_sums[k]) << "device sum " << k;
    }
}

/// Views in kernels are trivially copyable handles: what a kernel receives by value.
static_assert(std::is_trivially_copyable_v<layout::view<Body, layout::policy::soa>>);
static_assert(std::is_trivially_copyable_v<layout::view<const Body, layout::policy::aosoa<3>>>);

// ---- device containers: copies ------------------------------------------------------------------

constexpr std::size_t copy_sizes[] = {0, 1, 33, 100003};

template <class L>
class device_containers : public gpu_test {};
TYPED_TEST_SUITE(device_containers, all_layouts, layout_names);

/// host (layout S) -> device (TypeParam) -> host (layout S and TypeParam), for every S. With
/// every_pair_large false, the largest size runs only for S = AoS and S = the device layout (the
/// host side of the check is what takes the time).
template <class T, class DeviceLayout>
void copies_through_the_device(bool every_pair_large) {
    for (const std::size_t n : copy_sizes) {
        std::mt19937 g(static_cast<unsigned>(n) + 5);
        const std::vector<T> model = random_values<T>(g, n);
        for_each_layout([&]<class S>(std::type_identity<S>) {
            if (n > 1000 && !every_pair_large && !std::is_same_v<S, aos_layout> &&
                !std::is_same_v<S, DeviceLayout>)
                return;
            SCOPED_TRACE(type_name<T>() + ", n = " + std::to_string(n) + ", host " + S::name() +
                         ", device " + DeviceLayout::name());
            const host_container<S, T> host(model.begin(), model.end());
            const device_container<DeviceLayout, T> dev = host; // upload, converting if needed
            EXPECT_EQ(dev.size(), n);
            const host_container<S, T> back = dev; // download, converting back
            EXPECT_TRUE(view_matches(back, model));
            const host_container<DeviceLayout, T> same_layout = dev;
            EXPECT_TRUE(view_matches(same_layout, model));
            device_container<S, T> dev2(3); // device -> device, converting, by assignment
            dev2 = dev;
            const host_container<aos_layout, T> via_dev2 = dev2;
            EXPECT_TRUE(view_matches(via_dev2, model));
        });
    }
}

TYPED_TEST(device_containers, copies_particle) {
    copies_through_the_device<Particle, TypeParam>(true);
}
TYPED_TEST(device_containers, copies_mixed) { copies_through_the_device<Mixed, TypeParam>(false); }
TYPED_TEST(device_containers, copies_nested) { copies_through_the_device<Body, TypeParam>(false); }

TYPED_TEST(device_containers, copy_and_move_of_device_containers) {
    using D = device_container<TypeParam, Body>;
    std::mt19937 g(6);
    const auto model = random_values<Body>(g, 1000);
    D a = host_container<TypeParam, Body>(model.begin(), model.end());
    D b = a; // device copy
    D c = std::move(a);
    EXPECT_EQ(a.size(), 0u);
    const host_container<TypeParam, Body> hb = b, hc = c;
    EXPECT_TRUE(container_matches(hb, model));
    EXPECT_TRUE(container_matches(hc, model));
    D e(5);
    e = b;
    const host_container<TypeParam, Body> he = e;
    EXPECT_TRUE(container_matches(he, model));
    const D zeros(17); // value-initialized on the device
    const host_container<TypeParam, Body> hz = zeros;
    EXPECT_TRUE(container_matches(hz, std::vector<Body>(17)));
    const D filled(9, model[3]);
    const host_container<TypeParam, Body> hf = filled;
    EXPECT_TRUE(container_matches(hf, std::vector<Body>(9, model[3])));
}

// ---- assignment reuses the destination's block --------------------------------------------------

/// The address of a container's block (its first leaf), from the pointers only: unchanged by an
/// assignment that reuses the block, whatever memory it is in.
template <class C>
std::uintptr_t block_of(const C& c) {
    return layout::detail::leaf_address(c.view(), 0, 0);
}

/// dst = src into a destination whose capacity holds the source: device <- device across every
/// pair of layouts, device <- host, host <- device and device <- pinned. Each time the block
/// and capacity stay what they were (no cudaMalloc, no zeroing pass) and the contents are the
/// source's, checked on the host against the model.
template <class T, class DeviceLayout>
void assigns_into_capacity(std::size_t n) {
    std::mt19937 g(static_cast<unsigned>(n) + 31);
    const std::vector<T> old = random_values<T>(g, n + 50);
    device_container<DeviceLayout, T> dst = host_container<DeviceLayout, T>(old.begin(), old.end());
    const std::size_t capacity = dst.capacity();
    const std::uintptr_t block = block_of(dst);
    const auto same_block = [&](const char* what) {
        EXPECT_EQ(dst.capacity(), capacity) << what;
        EXPECT_EQ(block_of(dst), block) << what << ": the block was replaced";
    };
    const auto holds = [&](const std::vector<T>& model, const char* what) {
        const host_container<aos_layout, T> back = dst;
        EXPECT_TRUE(view_matches(back, model)) << what;
    };
    for_each_layout([&]<class S>(std::type_identity<S>) {
        SCOPED_TRACE(type_name<T>() + ", n = " + std::to_string(n) + ", source " + S::name() +
                     ", device " + DeviceLayout::name());
        const std::vector<T> a = random_values<T>(g, n), b = random_values<T>(g, n - n / 3);
        const device_container<S, T> dev_src = host_container<S, T>(a.begin(), a.end());
        dst = dev_src; // device -> device
        same_block("device to device");
        holds(a, "device to device");

        const host_container<S, T> host_src(b.begin(), b.end());
        dst = host_src; // host -> device (shrinks: the next check must not see a's tail)
        same_block("host to device");
        holds(b, "host to device");

        host_container<S, T> host_dst(old.begin(), old.end()); // device -> host, reusing
        const std::uintptr_t host_block = block_of(host_dst);
        const std::size_t host_capacity = host_dst.capacity();
        host_dst = dst;
        EXPECT_EQ(host_dst.capacity(), host_capacity);
        EXPECT_EQ(block_of(host_dst), host_block);
        EXPECT_TRUE(view_matches(host_dst, b)) << "device to host";

        const pinned_container<S, T> pinned_src(a.begin(), a.end());
        dst = pinned_src; // pinned -> device
        same_block("pinned to device");
        holds(a, "pinned to device");

        const device_container<DeviceLayout, T>& alias = dst;
        dst = alias; // self-assignment
        same_block("self-assignment");
        holds(a, "self-assignment");
    });
    dst.assign(n + 10, old[4]); // fill on the device, in place
    same_block("assign(n, value)");
    holds(std::vector<T>(n + 10, old[4]), "assign(n, value)");

    // Past capacity: a new block, and still the right contents.
    const std::vector<T> more = random_values<T>(g, capacity + 1);
    const device_container<soa_layout, T> big =
        host_container<soa_layout, T>(more.begin(), more.end());
    dst = big;
    EXPECT_GE(dst.capacity(), more.size());
    holds(more, "past capacity");
}

TYPED_TEST(device_containers, assignment_reuses_capacity) {
    for (std::size_t n : {std::size_t{3}, std::size_t{33}, std::size_t{5000}}) {
        assigns_into_capacity<Particle, TypeParam>(n);
        assigns_into_capacity<Body, TypeParam>(n);
    }
    assigns_into_capacity<Mixed, TypeParam>(100003);
}

// ---- a drift kernel -----------------------------------------------------------------------------

template <class View>
__global__ void drift_kernel(View p, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
    x += vx * dt;
    y += vy * dt;
    z += vz * dt;
    (void)m, (void)q;
}

TYPED_TEST(device_containers, drift_kernel_matches_host_reference) {
    const std::size_t n = 100003;
    std::mt19937 g(7);
    std::vector<Particle> model = random_values<Particle>(g, n);
    device_container<TypeParam, Particle> dev =
        host_container<TypeParam, Particle>(model.begin(), model.end());
    constexpr unsigned block = 256;
    for (int step = 0; step < 3; ++step) {
        drift_kernel<<<static_cast<unsigned>((n + block - 1) / block), block>>>(dev.view(), 0.25f);
        ASSERT_TRUE(check_cuda(cudaGetLastError(), "drift_kernel launch"));
    }
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "drift_kernel"));
    for (int step = 0; step < 3; ++step)
        for (auto& p : model) {
            p.x += p.vx * 0.25f; // exact: values are k/16, so FMA or not gives the same bits
            p.y += p.vy * 0.25f;
            p.z += p.vz * 0.25f;
        }
    const host_container<TypeParam, Particle> back = dev;
    EXPECT_TRUE(view_matches(back, model));
}

// ---- resize, reserve, shrink_to_fit ------------------------------------------------------------

TYPED_TEST(device_containers, resize_reserve_shrink_preserve_contents) {
    using D = device_container<TypeParam, Mixed>;
    std::mt19937 g(8);
    std::vector<Mixed> model = random_values<Mixed>(g, 1000);
    D dev = host_container<TypeParam, Mixed>(model.begin(), model.end());
    const auto check = [&](const char* what) {
        const host_container<TypeParam, Mixed> back = dev;
        EXPECT_TRUE(container_matches(back, model)) << what;
        EXPECT_GE(dev.capacity(), dev.size()) << what;
    };
    dev.reserve(5000);
    EXPECT_GE(dev.capacity(), 5000u);
    check("reserve");
    dev.resize(1100); // grows inside the capacity: value-initialized on the device
    model.resize(1100);
    check("resize up");
    dev.resize(300);
    model.resize(300);
    check("resize down");
    dev.shrink_to_fit();
    EXPECT_LT(dev.capacity(), 5000u);
    check("shrink_to_fit");
    const Mixed v = random_value<Mixed>(g);
    dev.resize(700, v); // past the capacity, with a value
    model.resize(700, v);
    check("resize(n, value)");
    dev.clear();
    model.clear();
    check("clear");
    dev.shrink_to_fit();
    check("shrink_to_fit when empty");
}

// ---- device out of memory ------------------------------------------------------------------------

TYPED_TEST(device_containers, out_of_memory_throws_bad_alloc_naming_the_size) {
    using D = device_container<TypeParam, Particle>;
    const std::size_t n = std::size_t{1} << 40; // 32 TiB of Particles
    using policy = typename TypeParam::policy;
    std::size_t capacity_asked = n; // AoSoA capacities round up to whole blocks
    if constexpr (requires { policy::lanes; })
        capacity_asked = (n + policy::lanes - 1) / policy::lanes * policy::lanes;
    const std::size_t bytes = layout::mapping<Particle, policy>::bytes(capacity_asked);
    try {
        D huge(n);
        ADD_FAILURE() << "constructing " << n << " Particles on the device did not throw";
    } catch (const layout::cuda::bad_alloc& e) {
        EXPECT_EQ(e.bytes(), bytes);
        EXPECT_NE(std::string(e.what()).find(std::to_string(bytes)), std::string::npos) << e.what();
        const std::bad_alloc& base = e; // catchable as std::bad_alloc
        (void)base;
    }

    // a failed reserve leaves the container as it was, and the device usable
    std::mt19937 g(9);
    const auto model = random_values<Particle>(g, 1000);
    D dev = host_container<TypeParam, Particle>(model.begin(), model.end());
    const std::size_t capacity = dev.capacity();
    EXPECT_THROW(dev.reserve(n), layout::cuda::bad_alloc);
    EXPECT_THROW(dev.resize(n), std::bad_alloc);
    EXPECT_EQ(dev.size(), 1000u);
    EXPECT_EQ(dev.capacity(), capacity);
    const host_container<TypeParam, Particle> back = dev;
    EXPECT_TRUE(container_matches(back, model));
    EXPECT_TRUE(check_cuda(cudaGetLastError(), "after the failed allocations"));
    D more = dev; // still allocates
    EXPECT_EQ(more.size(), 1000u);
}

// ---- pinned host memory --------------------------------------------------------------------------

TYPED_TEST(device_containers, pinned_memory_containers) {
    using P = pinned_container<TypeParam, Body>;
    std::mt19937 g(10);
    std::vector<Body> model = random_values<Body>(g, 100);
    P pinned(model.begin(), model.end()); // host-accessible: the std::vector interface
    EXPECT_TRUE(container_matches(pinned, model));
    pinned.push_back(model[3]);
    model.push_back(model[3]);
    pinned.erase(pinned.begin() + 10);
    model.erase(model.begin() + 10);
    pinned[4] = model[9];
    model[4] = model[9];
    EXPECT_TRUE(container_matches(pinned, model));

    // pinned -> device (same layout and converted on the GPU in place) -> pinned
    const device_container<TypeParam, Body> dev = pinned;
    const device_container<aosoa_layout<32>, Body> dev32 = pinned;
    const P from_dev = dev;
    const P from_dev32 = dev32;
    EXPECT_TRUE(container_matches(from_dev, model));
    EXPECT_TRUE(container_matches(from_dev32, model));
    const pinned_container<soa_layout, Body> pinned_soa = pinned; // pinned -> pinned, converted
    EXPECT_TRUE(container_matches(pinned_soa, model));
    const host_container<aos_layout, Body> host = pinned_soa; // pinned -> pageable
    EXPECT_TRUE(container_matches(host, model));

    // a kernel writes through a view of pinned memory
    pinned_container<TypeParam, Particle> particles(64);
    for (std::size_t i = 0; i < 64; ++i) particles[i] = Particle{float(i), 0, 0, 1, 2, 3, 1, 0};
    drift_kernel<<<1, 64>>>(particles.view(), 0.5f);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "drift_kernel launch"));
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "drift_kernel on pinned memory"));
    for (std::size_t i = 0; i < 64; ++i) {
        const Particle p = particles[i];
        EXPECT_EQ(p.x, float(i) + 0.5f);
        EXPECT_EQ(p.y, 1.0f);
        EXPECT_EQ(p.z, 1.5f);
    }
}

} // namespace
