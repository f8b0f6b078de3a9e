// Columns of device containers with thrust, CUB and libcu++: thrust::transform and
// cub::DeviceReduce::Sum on raw SoA column pointers, and kernels that read and write columns of
// every layout through cuda::std::span and cuda::std::mdspan; each compared with host results.
// The mapping checks (interop_host.*) need no GPU; the rest skip without one.
#include <layout/layout.hpp>

#include "gpu_test.hpp"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include <cuda/std/mdspan>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace {

namespace policy = layout::policy;

struct Vec2 {
    float a, b;
};

/// Leaves of 4 and 8 bytes and a nested struct: x, y, id, pos.a, pos.b, w (sizeof 32).
struct P {
    float x, y;
    int id;
    Vec2 pos;
    double w;
};
static_assert(sizeof(P) == 32);

/// Exactly representable values, so sums and doubled values compare exactly.
P value(std::size_t i) {
    const float f = static_cast<float>(i % 1000) / 8.0f;
    return P{f,
             2.0f * f - 3.0f,
             static_cast<int>(i % 977),
             {f + 0.5f, -f},
             static_cast<double>(i) / 64.0};
}

template <class C>
C make(std::size_t n) {
    C c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = value(i);
    return c;
}

/// A contiguous (SoA) column as a cuda::std::span, for code that takes one.
template <class Column>
cuda::std::span<typename Column::element_type> cuda_span(const Column& c) {
    return {c.data(), c.size()};
}

// ---- types and mappings, on the host ----------------------------------------------------------

using ext = cuda::std::dextents<std::size_t, 1>;
using soa_view = layout::view<P, policy::soa>;
using aos_view = layout::view<P, policy::aos>;
using aosoa_view = layout::view<P, policy::aosoa<32>>;

static_assert(std::is_same_v<decltype(cuda_span(std::declval<soa_view>().column<&P::x>())),
                             cuda::std::span<float>>);
static_assert(std::is_same_v<decltype(cuda_span(std::declval<layout::view<const P, policy::soa>>()
                                                    .column<&P::w>())),
                             cuda::std::span<const double>>);
static_assert(std::is_same_v<decltype(std::declval<soa_view>().column<&P::x>().mdspan()),
                             cuda::std::mdspan<float, ext>>);
static_assert(std::is_same_v<decltype(std::declval<aos_view>().column<&P::w>().mdspan()),
                             cuda::std::mdspan<double, ext, cuda::std::layout_stride>>);
// AoSoA<32> block of P: 32 lanes x (5 x 4 + 8) bytes = 896 bytes = 224 floats = 112 doubles.
static_assert(std::is_same_v<decltype(std::declval<aosoa_view>().column<&P::x>().mdspan()),
                             cuda::std::mdspan<float, ext, layout::cuda::layout_aosoa<32, 224>>>);
static_assert(std::is_same_v<decltype(std::declval<aosoa_view>().column<&P::w>().mdspan()),
                             cuda::std::mdspan<double, ext, layout::cuda::layout_aosoa<32, 112>>>);
static_assert(
    std::is_trivially_copyable_v<decltype(std::declval<aos_view>().column<&P::w>().mdspan())>);
static_assert(
    std::is_trivially_copyable_v<decltype(std::declval<aosoa_view>().column<&P::w>().mdspan())>);

// A container's column binds to a named container (a view or span of it lives as long as the
// name) but not to a temporary, whose block is freed at the end of the statement: the rvalue
// overload is deleted (tests/compile_fail/cuda_column_mdspan_temporary.cpp shows the message).
// Views are not owners: a temporary view is fine.
template <class C>
concept has_column_span = requires(C&& c) { std::forward<C>(c).template column<&P::x>().data(); };
template <class C>
concept has_column_mdspan =
    requires(C&& c) { std::forward<C>(c).template column<&P::x>().mdspan(); };
using device_soa = layout::cuda::soa_vector<P>;
using device_aos = layout::cuda::aos_vector<P>;
static_assert(has_column_span<device_soa&> && has_column_span<const device_soa&>);
static_assert(!has_column_span<device_soa> && !has_column_span<const device_soa>);
static_assert(has_column_span<soa_view>);
static_assert(has_column_mdspan<device_aos&> && has_column_mdspan<const device_aos&>);
static_assert(!has_column_mdspan<device_aos> && !has_column_mdspan<const device_aos>);
static_assert(!has_column_mdspan<layout::soa_vector<P>>); // host containers too
static_assert(has_column_mdspan<aos_view>);

// The documented example of layout_aosoa, in constant evaluation.
constexpr bool aosoa_mapping_example() {
    const layout::cuda::layout_aosoa<32, 256>::mapping<ext> m(ext(70));
    return m(0) == 0 && m(31) == 31 && m(32) == 256 && m(69) == 2 * 256 + 5 &&
           m.required_span_size() == 518 && !m.is_exhaustive() && !m.is_strided() &&
           layout::cuda::layout_aosoa<32, 256>::mapping<ext>(ext(0)).required_span_size() == 0;
}
static_assert(aosoa_mapping_example());

/// Every element's leaf through the mdspan is the same object as through the view, for every
/// leaf of every layout (host containers: cuda::std::mdspan works on the host too).
template <class C>
void expect_mdspan_addresses(std::size_t n) {
    C c = make<C>(n);
    const auto v = c.view();
    const auto x = c.template column<&P::x>().mdspan();
    const auto id = v.template column<&P::id>().mdspan();
    const auto pos_b = v.template column<&P::pos, &Vec2::b>().mdspan();
    const auto w = std::as_const(c).template column<&P::w>().mdspan();
    static_assert(std::is_same_v<typename decltype(w)::element_type, const double>);
    ASSERT_EQ(x.extent(0), n);
    ASSERT_EQ(w.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(&x(i), &layout::get<&P::x>(v[i])) << i;
        EXPECT_EQ(&id(i), &layout::get<&P::id>(v[i])) << i;
        EXPECT_EQ(&pos_b(i), &layout::get<&Vec2::b>(layout::get<&P::pos>(v[i]))) << i;
        EXPECT_EQ(&w(i), &layout::get<&P::w>(v[i])) << i;
    }
}

TEST(interop_host, mdspan_of_every_layout_reaches_the_views_leaves) {
    for (std::size_t n : std::initializer_list<std::size_t>{0, 1, 31, 32, 33, 100}) {
        expect_mdspan_addresses<layout::soa_vector<P>>(n);
        expect_mdspan_addresses<layout::aos_vector<P>>(n);
        expect_mdspan_addresses<layout::aosoa<P, 32>>(n);
        expect_mdspan_addresses<layout::aosoa<P, 3>>(n);
    }
}

TEST(interop_host, span_of_a_soa_column) {
    auto c = make<layout::soa_vector<P>>(50);
    const cuda::std::span<float> y = cuda_span(c.column<&P::y>());
    const cuda::std::span<const double> w = cuda_span(std::as_const(c).column<&P::w>());
    const auto a = cuda_span(c.view().column<&P::pos, &Vec2::a>());
    ASSERT_EQ(y.size(), c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(y[i], value(i).y);
        EXPECT_EQ(w[i], value(i).w);
        EXPECT_EQ(a[i], value(i).pos.a);
    }
    const auto m = c.column<&P::y>().mdspan();
    EXPECT_EQ(m.data_handle(), y.data());
    EXPECT_EQ(m.stride(0), 1u);
    const layout::aos_vector<P> aos(c); // named: an mdspan of a temporary would dangle
    const auto s = aos.column<&P::y>().mdspan();
    EXPECT_EQ(s.stride(0), sizeof(P) / sizeof(float));
}

// ---- thrust and CUB on raw column pointers of device containers -------------------------------

class interop_gpu : public gpu_test {};

TEST_F(interop_gpu, thrust_transform_on_soa_columns) {
    constexpr std::size_t n = 10000;
    const auto host = make<layout::soa_vector<P>>(n);
    layout::cuda::soa_vector<P> dev = host;

    const auto v = dev.view();
    float* x = v.column<&P::x>().data();
    float* y = v.column<&P::y>().data();
    thrust::transform(thrust::device, x, x + n, y, x, thrust::plus<float>()); // x += y
    const cuda::std::span<float> b = cuda_span(dev.column<&P::pos, &Vec2::b>());
    thrust::transform(thrust::device, b.data(), b.data() + b.size(), b.data(),
                      thrust::negate<float>());
    check_cuda(cudaDeviceSynchronize(), "thrust::transform");

    const layout::soa_vector<P> back = dev;
    for (std::size_t i = 0; i < n; ++i) {
        const P p = back[i], q = value(i);
        ASSERT_EQ(p.x, q.x + q.y) << i;
        ASSERT_EQ(p.y, q.y) << i;
        ASSERT_EQ(p.pos.b, -q.pos.b) << i;
        ASSERT_EQ(p.pos.a, q.pos.a) << i;
        ASSERT_EQ(p.w, q.w) << i;
    }
}

/// cub::DeviceReduce::Sum over [in, in + n) into a device scalar, read back.
template <class E>
E cub_sum(const E* in, std::size_t n) {
    E* out = nullptr;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    E result{};
    if (!check_cuda(cudaMalloc(&out, sizeof(E)), "cudaMalloc")) return result;
    check_cuda(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, static_cast<int>(n)),
               "cub::DeviceReduce::Sum (size query)");
    if (check_cuda(cudaMalloc(&temp, temp_bytes), "cudaMalloc")) {
        check_cuda(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<int>(n)),
                   "cub::DeviceReduce::Sum");
        check_cuda(cudaMemcpy(&result, out, sizeof(E), cudaMemcpyDeviceToHost), "cudaMemcpy");
        check_cuda(cudaFree(temp), "cudaFree");
    }
    check_cuda(cudaFree(out), "cudaFree");
    return result;
}

TEST_F(interop_gpu, cub_reduce_sum_over_soa_columns) {
    constexpr std::size_t n = 123457;
    const auto host = make<layout::soa_vector<P>>(n);
    const layout::cuda::soa_vector<P> dev = host;

    long long ids = 0;
    double ws = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ids += value(i).id;
        ws += value(i).w; // multiples of 1/64, sums below 2^27: exact in any order
    }
    const auto v = dev.view(); // read-only: const leaves
    EXPECT_EQ(cub_sum(v.column<&P::id>().data(), n), ids);
    EXPECT_EQ(cub_sum(cuda_span(dev.column<&P::w>()).data(), n), ws);
}

// ---- kernels over cuda::std::span and cuda::std::mdspan ---------------------------------------

/// out[i] = 2 * m(i), and m(i) += 1: reads and writes through the mdspan.
template <class Mdspan>
__global__ void double_and_increment(Mdspan m, cuda::std::span<double> out) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= m.extent(0)) return;
    out[i] = 2.0 * static_cast<double>(m(i));
    m(i) += 1;
}

template <class Mdspan>
void run_double_and_increment(Mdspan m, layout::cuda::aos_vector<double>& out) {
    const unsigned blocks = static_cast<unsigned>((m.extent(0) + 127) / 128);
    double_and_increment<<<blocks ? blocks : 1, 128>>>(
        m, cuda::std::span<double>(out.view().data(), out.size()));
    check_cuda(cudaGetLastError(), "double_and_increment launch");
    check_cuda(cudaDeviceSynchronize(), "double_and_increment");
}

template <class DeviceContainer>
void expect_kernel_through_mdspan(std::size_t n) {
    const auto host = make<layout::aos_vector<P>>(n);
    DeviceContainer dev = host;
    layout::cuda::aos_vector<double> x2(n), id2(n), a2(n), w2(n);

    run_double_and_increment(dev.template column<&P::x>().mdspan(), x2);
    run_double_and_increment(dev.view().template column<&P::id>().mdspan(), id2);
    run_double_and_increment(dev.template column<&P::pos, &Vec2::a>().mdspan(), a2);
    run_double_and_increment(dev.template column<&P::w>().mdspan(), w2);

    const layout::aos_vector<double> hx2 = x2, hid2 = id2, ha2 = a2, hw2 = w2;
    const layout::aos_vector<P> back = dev;
    for (std::size_t i = 0; i < n; ++i) {
        const P p = back[i], q = value(i);
        ASSERT_EQ(hx2[i], 2.0 * q.x) << i;
        ASSERT_EQ(hid2[i], 2.0 * q.id) << i;
        ASSERT_EQ(ha2[i], 2.0 * q.pos.a) << i;
        ASSERT_EQ(hw2[i], 2.0 * q.w) << i;
        ASSERT_EQ(p.x, q.x + 1) << i;
        ASSERT_EQ(p.id, q.id + 1) << i;
        ASSERT_EQ(p.pos.a, q.pos.a + 1) << i;
        ASSERT_EQ(p.w, q.w + 1) << i;
        ASSERT_EQ(p.y, q.y) << i; // untouched leaves stay
        ASSERT_EQ(p.pos.b, q.pos.b) << i;
    }
}

TEST_F(interop_gpu, kernel_through_mdspan_soa) {
    expect_kernel_through_mdspan<layout::cuda::soa_vector<P>>(1000);
}
TEST_F(interop_gpu, kernel_through_mdspan_aos) {
    expect_kernel_through_mdspan<layout::cuda::aos_vector<P>>(1000);
}
TEST_F(interop_gpu, kernel_through_mdspan_aosoa) {
    expect_kernel_through_mdspan<layout::cuda::aosoa<P, 32>>(1000); // a partial last block
    expect_kernel_through_mdspan<layout::cuda::aosoa<P, 8>>(77);
}

/// y[i] = x[i] * s through spans, on a SoA column pair.
__global__ void scale_into(cuda::std::span<const float> x, cuda::std::span<float> y, float s) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < x.size()) y[i] = x[i] * s;
}

TEST_F(interop_gpu, kernel_through_span_soa) {
    constexpr std::size_t n = 4099;
    layout::cuda::soa_vector<P> dev = make<layout::soa_vector<P>>(n);
    const layout::view<const P, policy::soa, layout::cuda::device_memory> read_only = dev.view();
    scale_into<<<(n + 255) / 256, 256>>>(cuda_span(read_only.column<&P::x>()),
                                         cuda_span(dev.column<&P::y>()), 4.0f);
    check_cuda(cudaGetLastError(), "scale_into launch");
    const layout::soa_vector<P> back = dev;
    for (std::size_t i = 0; i < n; ++i) {
        const P p = back[i];
        ASSERT_EQ(p.y, 4.0f * value(i).x) << i;
        ASSERT_EQ(p.x, value(i).x) << i;
    }
}

} // namespace
