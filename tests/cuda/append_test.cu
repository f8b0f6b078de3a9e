// layout::cuda::appender (<layout/cuda/append.hpp>) on every (element type, layout) pair: threads
// of many warps and blocks append, some not at all and some twice, into the capacity reserved;
// what fits lands in [old size, old size + appended) (compared, as a multiset, with what the
// threads offered), what does not is counted and never written, and the elements that were
// there stay. Skips without a GPU.

#include <layout/cuda/append.hpp>
#include <layout/cuda/vector.hpp>

#include "gpu_test.hpp"
#include "host/test_types.hpp"

#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using namespace layout_test;

template <class T, class P>
using device_vector = layout::vector<T, P, layout::cuda::device_memory>;

/// Whether thread i offers its element (about two in three), and whether it offers it twice.
__host__ __device__ bool offers(std::size_t i) { return i % 3 != 1; }
__host__ __device__ bool offers_twice(std::size_t i) { return i % 7 == 0; }

/// Thread i appends offered[i] as offers() says; fitted[i] counts its successful appends.
template <class T, class L>
__global__ void
append_kernel(layout::cuda::append_view<T, L> out,
              layout::view<const T, layout::policy::aos, layout::cuda::device_memory> offered,
              unsigned char* fitted) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= offered.size()) return;
    unsigned char count = 0;
    if (offers(i)) {
        count += out.push_back(offered[i]) ? 1 : 0;
        if (offers_twice(i)) count += out.push_back(offered[i]) ? 1 : 0;
    }
    fitted[i] = count;
}

/// The elements thread i offers, for the model.
template <class T>
std::vector<T> offered_elements(const std::vector<T>& values) {
    std::vector<T> out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!offers(i)) continue;
        out.push_back(values[i]);
        if (offers_twice(i)) out.push_back(values[i]);
    }
    return out;
}

template <class T>
std::vector<T> sorted(std::vector<T> v) {
    std::sort(v.begin(), v.end(), [](const T& a, const T& b) { return less(a, b); });
    return v;
}

template <class C>
class cuda_append : public gpu_test {};
TYPED_TEST_SUITE(cuda_append, all_combos, combo_names);

/// Appends m threads' offers to a container of n elements with `room` free slots; checks the
/// result against the model. Returns the container's elements.
template <class T, class P>
void append_and_check(std::size_t n, std::size_t m, std::size_t room, std::mt19937& g,
                      cudaStream_t stream) {
    const auto old = random_values<T>(g, n);
    const auto values = random_values<T>(g, m);
    device_vector<T, P> c(layout::vector<T, P>(old.begin(), old.end()), stream);
    c.reserve(n + room);
    const std::size_t capacity = c.capacity(); // AoSoA rounds up to whole blocks
    const layout::cuda::aos_vector<T> offered(layout::aos_vector<T>(values.begin(), values.end()),
                                              stream);
    layout::cuda::aos_vector<unsigned char> fitted(m, 0, stream);

    layout::cuda::appender app(c);
    if (m) {
        append_kernel<<<unsigned((m + 127) / 128), 128, 0, app.stream()>>>(
            app.view(), offered.cview(), fitted.view().data());
        ASSERT_TRUE(check_cuda(cudaGetLastError(), "append_kernel launch"));
    }
    const auto result = app.finish();

    const auto offers_model = offered_elements(values);
    const std::size_t free = capacity - n;
    const std::size_t want_appended = std::min(offers_model.size(), free);
    EXPECT_EQ(result.appended, want_appended) << "n " << n << ", m " << m << ", room " << room;
    EXPECT_EQ(result.dropped, offers_model.size() - want_appended);
    ASSERT_EQ(c.size(), n + want_appended);
    EXPECT_EQ(c.capacity(), capacity);

    const layout::vector<T, P> back = c;
    const std::vector<T> all = to_std(back);
    EXPECT_TRUE(same_values(std::vector<T>(all.begin(), all.begin() + n), old));
    const auto appended = sorted(std::vector<T>(all.begin() + n, all.end()));
    const auto offered_sorted = sorted(offers_model);
    const auto by_value = [](const T& a, const T& b) { return less(a, b); };
    EXPECT_TRUE(std::includes(offered_sorted.begin(), offered_sorted.end(), appended.begin(),
                              appended.end(), by_value))
        << "an appended element was not offered, or was appended too often";
    if (want_appended == offers_model.size()) EXPECT_TRUE(same_values(appended, offered_sorted));

    const layout::aos_vector<unsigned char> fits = fitted;
    std::size_t fitted_total = 0;
    for (unsigned char f : fits) fitted_total += f;
    EXPECT_EQ(fitted_total, want_appended) << "push_back's answers disagree with finish()";
}

TYPED_TEST(cuda_append, appends_what_fits_and_counts_the_rest) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(21);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    // (old size, threads, room): nothing offered, all fit, exactly full, overflow, no room at all.
    const std::size_t cases[][3] = {{0, 0, 10},        {0, 1, 1},       {5, 100, 200},
                                    {33, 1000, 2000},  {31, 3000, 100}, {100, 5000, 0},
                                    {0, 100000, 50000}};
    for (const auto& c : cases) append_and_check<T, P>(c[0], c[1], c[2], g, stream);
    // An exact fit: as many slots as offers (AoS and SoA capacities are exact).
    append_and_check<T, P>(7, 30, offered_elements(std::vector<T>(30)).size(), g, nullptr);
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TYPED_TEST(cuda_append, finish_again_after_more_kernels) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(22);
    const auto values = random_values<T>(g, 300);
    const layout::cuda::aos_vector<T> offered = layout::aos_vector<T>(values.begin(), values.end());
    layout::cuda::aos_vector<unsigned char> fitted(values.size());
    device_vector<T, P> c;
    c.reserve(250);
    const std::size_t room = c.capacity();
    layout::cuda::appender app(c);
    append_kernel<<<3, 128>>>(app.view(), offered.cview(), fitted.view().data());
    const auto first = app.finish();
    const std::size_t offers_per_kernel = offered_elements(values).size();
    EXPECT_EQ(first.appended, std::min(room, offers_per_kernel));
    append_kernel<<<3, 128>>>(app.view(), offered.cview(), fitted.view().data());
    const auto second = app.finish(); // totals since the appender was made
    EXPECT_EQ(second.appended, std::min(room, 2 * offers_per_kernel));
    EXPECT_EQ(second.appended + second.dropped, 2 * offers_per_kernel);
    EXPECT_EQ(c.size(), second.appended);
}

TYPED_TEST(cuda_append, finish_refuses_a_container_changed_meanwhile) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    device_vector<T, P> c(10);
    c.reserve(100);
    layout::cuda::appender app(c);
    c.resize(20);
    EXPECT_THROW((void)app.finish(), std::logic_error);
    device_vector<T, P> d(10);
    layout::cuda::appender grows(d);
    d.reserve(1000); // reallocates
    EXPECT_THROW((void)grows.finish(), std::logic_error);
}

/// One thread per element: emplaces {i, 0, ...} from its fields.
__global__ void emplace_kernel(layout::cuda::append_view<Particle, layout::policy::soa> out,
                               std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) out.emplace_back(float(i), 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f);
}

class cuda_append_fields : public gpu_test {};

TEST_F(cuda_append_fields, emplace_back_from_fields) {
    layout::cuda::soa_vector<Particle> c;
    c.reserve(1000);
    layout::cuda::appender app(c);
    emplace_kernel<<<4, 256>>>(app.view(), 1000);
    const auto result = app.finish();
    EXPECT_EQ(result.appended, 1000u);
    EXPECT_EQ(result.dropped, 0u);
    const layout::soa_vector<Particle> back = c;
    auto xs = back.column<&Particle::x>();
    std::vector<float> got(xs.begin(), xs.end());
    std::sort(got.begin(), got.end());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], float(i));
    EXPECT_EQ(Particle(back[0]).charge, 7.f);
}

} // namespace
