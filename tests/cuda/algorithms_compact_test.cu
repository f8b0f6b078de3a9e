// layout::cuda::remove_if and layout::cuda::stable_partition (<layout/cuda/algorithms.hpp>) on
// every (element type, layout) pair, containers and views, on the container's stream, a given
// stream and the default one, against std::erase_if and std::stable_partition on a std::vector<T>
// model of random elements, with none, some and all of them chosen: the cases every memory space
// shares (common/compact_cases.hpp, which the host test runs too, here through layout::remove_if
// and layout::stable_partition on device containers), and the device's own (views on a given
// stream, a predicate on one field). Skips without a GPU.

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/vector.hpp>

#include "common/compact_cases.hpp"
#include "gpu_test.hpp"
#include "host/test_types.hpp"

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace {

using namespace layout_test;
using compact_cases::below;
using layout::cuda::device_memory;

constexpr std::size_t sizes[] = {0, 1, 31, 33, 1000, 100000};

template <class Combo>
using cases = compact_cases::cases<Combo, device_memory>;

template <class C>
class cuda_compact : public gpu_test {};
TYPED_TEST_SUITE(cuda_compact, all_combos, combo_names);

TYPED_TEST(cuda_compact, remove_if_container_matches_erase_if) {
    std::mt19937 g(31);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    cases<TypeParam>::remove_if_container(g, sizes, stream);
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
        auto c = in_memory<T, P, device_memory>(model, {});
        const std::size_t kept = layout::cuda::remove_if(c.view(), below<T>{0.0}, stream);
        std::erase_if(model, below<T>{0.0});
        ASSERT_EQ(kept, model.size());
        EXPECT_EQ(c.size(), n);
        auto front = elements(c);
        front.resize(kept);
        EXPECT_TRUE(same_values(front, model)) << "n " << n;
    }
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TYPED_TEST(cuda_compact, stable_partition_matches_std) {
    std::mt19937 g(33);
    cases<TypeParam>::stable_partition(g, sizes);
}

TYPED_TEST(cuda_compact, stable_partition_of_a_view_on_a_stream) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(34);
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate"));
    { // the container frees its block on its stream: gone before the stream is
        auto model = random_values<T>(g, 5000);
        auto c = in_memory<T, P, device_memory>(model, stream);
        const std::size_t k = layout::cuda::stable_partition(c.view(), below<T>{0.0}, stream);
        const auto point = std::stable_partition(model.begin(), model.end(), below<T>{0.0});
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
