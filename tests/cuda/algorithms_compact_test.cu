// layout::cuda::remove_if and layout::cuda::stable_partition (<layout/cuda/algorithms.hpp>) on
// every (element type, layout) pair, containers and views, on the container's stream, a given
// stream and the default one, against std::erase_if and std::stable_partition on a std::vector<T>
// model of random elements, with none, some and all of them chosen. Skips without a GPU.

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/vector.hpp>

#include "gpu_test.hpp"
#include "host/test_types.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace layout_test;

template <class T, class P>
using device_vector = layout::vector<T, P, layout::cuda::device_memory>;

constexpr std::size_t sizes[] = {0, 1, 31, 33, 1000, 100000};

/// The first leaf, on the host and the device (test_types.hpp's key() is host-only).
__host__ __device__ double first_leaf(const Particle& p) { return p.x; }
__host__ __device__ double first_leaf(const Mixed& m) { return m.d; }
__host__ __device__ double first_leaf(const Body& b) { return b.pos.x; }

/// Chooses the elements whose first leaf is below a threshold, through the element proxy.
template <class T>
struct below {
    double threshold;
    template <class Ref>
    __host__ __device__ bool operator()(const Ref& e) const {
        return first_leaf(T(e)) < threshold;
    }
};

/// none, about half, all
constexpr double thresholds[] = {-std::numeric_limits<double>::infinity(), 0.0,
                                 std::numeric_limits<double>::infinity()};

template <class T, class P>
device_vector<T, P> device_from(const std::vector<T>& values, cudaStream_t stream = nullptr) {
    return device_vector<T, P>(layout::vector<T, P>(values.begin(), values.end()), stream);
}
template <class T, class P>
std::vector<T> elements(const device_vector<T, P>& d) {
    const layout::vector<T, P> h = d;
    return to_std(h);
}

template <class C>
class cuda_compact : public gpu_test {};
TYPED_TEST_SUITE(cuda_compact, all_combos, combo_names);

TYPED_TEST(cuda_compact, remove_if_container_matches_erase_if) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(31);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    for (std::size_t n : sizes) {
        for (double t : thresholds) {
            auto model = random_values<T>(g, n);
            auto c = device_from<T, P>(model, stream); // on the container's stream
            const std::size_t kept = layout::cuda::remove_if(c, below<T>{t});
            std::erase_if(model, [&](const T& e) { return first_leaf(e) < t; });
            EXPECT_EQ(kept, model.size());
            EXPECT_EQ(c.size(), model.size());
            EXPECT_TRUE(same_values(elements(c), model)) << "n " << n << ", threshold " << t;
        }
    }
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TYPED_TEST(cuda_compact, remove_if_view_returns_the_new_size) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(32);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    for (std::size_t n : sizes) {
        auto model = random_values<T>(g, n);
        auto c = device_from<T, P>(model);
        const std::size_t kept = layout::cuda::remove_if(c.view(), below<T>{0.0}, stream);
        std::erase_if(model, [&](const T& e) { return first_leaf(e) < 0.0; });
        ASSERT_EQ(kept, model.size());
        EXPECT_EQ(c.size(), n);
        auto front = elements(c);
        front.resize(kept);
        EXPECT_TRUE(same_values(front, model)) << "n " << n;
    }
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TYPED_TEST(cuda_compact, stable_partition_matches_std) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(33);
    for (std::size_t n : sizes) {
        for (double t : thresholds) {
            auto model = random_values<T>(g, n);
            auto c = device_from<T, P>(model);
            const std::size_t k = layout::cuda::stable_partition(c, below<T>{t});
            const auto point = std::stable_partition(model.begin(), model.end(),
                                                     [&](const T& e) { return first_leaf(e) < t; });
            EXPECT_EQ(k, static_cast<std::size_t>(point - model.begin()));
            EXPECT_EQ(c.size(), n);
            EXPECT_TRUE(same_values(elements(c), model)) << "n " << n << ", threshold " << t;
        }
    }
}

TYPED_TEST(cuda_compact, stable_partition_of_a_view_on_a_stream) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(34);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    { // the container frees its block on its stream: gone before the stream is
        auto model = random_values<T>(g, 5000);
        auto c = device_from<T, P>(model, stream);
        const std::size_t k = layout::cuda::stable_partition(c.view(), below<T>{0.0}, stream);
        const auto point = std::stable_partition(model.begin(), model.end(),
                                                 [](const T& e) { return first_leaf(e) < 0.0; });
        EXPECT_EQ(k, static_cast<std::size_t>(point - model.begin()));
        EXPECT_TRUE(same_values(elements(c), model));
    }
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

/// A predicate that reads one field through the proxy (no whole-element load).
struct light {
    template <class Ref>
    __host__ __device__ bool operator()(const Ref& p) const {
        return layout::get<&Particle::mass>(p) <= 0;
    }
};

class cuda_compact_fields : public gpu_test {};

TEST_F(cuda_compact_fields, predicate_on_one_field_in_every_layout) {
    std::mt19937 g(35);
    auto model = random_values<Particle>(g, 4097);
    layout::cuda::aos_vector<Particle> aos =
        layout::aos_vector<Particle>(model.begin(), model.end());
    layout::cuda::soa_vector<Particle> soa = aos;
    layout::cuda::aosoa<Particle, 32> blocks = aos;
    const std::size_t a = layout::cuda::remove_if(aos, light{});
    const std::size_t s = layout::cuda::remove_if(soa, light{});
    const std::size_t b = layout::cuda::remove_if(blocks, light{});
    std::erase_if(model, [](const Particle& p) { return p.mass <= 0; });
    EXPECT_EQ(a, model.size());
    EXPECT_EQ(s, model.size());
    EXPECT_EQ(b, model.size());
    EXPECT_TRUE(same_values(elements(aos), model));
    EXPECT_TRUE(same_values(elements(soa), model));
    EXPECT_TRUE(same_values(elements(blocks), model));
}

} // namespace
