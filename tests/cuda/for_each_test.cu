// layout::cuda::for_each_index<PerThread> against the host's layout::for_each_index with the
// same functor, for every layout, three element types, PerThread 1, 2, 4, 8 and the layout's
// default, and sizes that PerThread does not divide; and SoA views whose columns are not aligned
// to PerThread elements (the launch gives each thread elements a block apart instead), and AoS
// and AoSoA views over memory aligned only as the element needs (the launch makes no alignment
// claim there, so the compiler keeps scalar accesses). layout::cuda::for_each_element against the
// same host loop: every layout (AoS staged through shared memory), block-sized and ragged sizes,
// views aligned only to the element, elements it cannot stage, read-only views. Skips where there
// is no GPU.

#include "../host/test_types.hpp"
#include "gpu_test.hpp"

#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace layout_test;

/// Changes every leaf of element i from the others and from i: a thread that ran the wrong
/// element, ran one twice or skipped one leaves a difference.
struct update {
    LAYOUT_HOST_DEVICE void apply(Particle& p, std::size_t i) const {
        p.x += p.vx * 0.25f;
        p.y += p.vy * 0.25f;
        p.z += p.vz * 0.25f;
        p.mass = static_cast<float>(i % 1000);
        p.charge = -p.charge;
    }
    LAYOUT_HOST_DEVICE void apply(Mixed& m, std::size_t i) const {
        m.d += static_cast<double>(i);
        m.i = m.i / 2 + static_cast<int>(i % 7);
        m.c = static_cast<char>(m.c ^ 1);
        m.b = !m.b;
        m.s = static_cast<short>(m.s / 2 + 3);
    }
    LAYOUT_HOST_DEVICE void apply(Body& b, std::size_t i) const {
        b.pos.x += b.vel[0] * 0.5f;
        b.id = static_cast<int>(i);
        b.pair[1].z = b.pos.y;
        b.w *= 2.0;
    }
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& v, std::size_t i) const {
        auto value = v[i].load();
        apply(value, i);
        v[i] = value;
    }
};

template <class C>
class cuda_for_each : public gpu_test {};
TYPED_TEST_SUITE(cuda_for_each, all_combos, combo_names);

template <std::size_t PerThread, class T, class Policy>
void check_per_thread(const std::vector<T>& values) {
    SCOPED_TRACE("PerThread " + std::to_string(PerThread) + ", n " + std::to_string(values.size()));
    layout::vector<T, Policy> host(values.begin(), values.end());
    layout::vector<T, Policy, layout::cuda::device_memory> dev = host;
    layout::for_each_index(host.view(), update{});
    layout::cuda::for_each_index<PerThread>(dev.view(), update{});
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "for_each_index"));
    const layout::vector<T, Policy> back = dev;
    EXPECT_TRUE(view_matches(back, to_std(host)));
}

TYPED_TEST(cuda_for_each, every_element_once_for_every_per_thread_count) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(31);
    for (const std::size_t n : {0, 1, 7, 33, 1000, 4099}) {
        const auto values = random_values<T>(g, n);
        check_per_thread<1, T, P>(values);
        check_per_thread<2, T, P>(values);
        check_per_thread<4, T, P>(values);
        check_per_thread<8, T, P>(values);
        check_per_thread<layout::cuda::per_thread_auto, T, P>(values); // the layout's default
    }
}

/// A SoA view of elements 1 .. n-1 of a container: every column starts one element past an
/// aligned address, so no PerThread > 1 is aligned and the launch takes the block-strided kernel.
template <std::size_t PerThread, class T>
void check_unaligned_soa(const std::vector<T>& values) {
    SCOPED_TRACE("PerThread " + std::to_string(PerThread) + ", unaligned columns");
    using soa = layout::policy::soa;
    layout::vector<T, soa, layout::cuda::device_memory> dev =
        layout::vector<T, soa>(values.begin(), values.end());
    auto storage = dev.view().storage();
    for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
        storage.columns[l] =
            static_cast<std::byte*>(storage.columns[l]) + layout::detail::leaf_table<T>[l].size;
    const layout::view<T, soa> tail(storage, values.size() - 1);
    layout::cuda::for_each_index<PerThread>(tail, update{});
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "for_each_index"));

    std::vector<T> want = values; // element 0 untouched, element k + 1 updated as index k
    for (std::size_t k = 0; k + 1 < want.size(); ++k) update{}.apply(want[k + 1], k);
    const layout::vector<T, soa> back = dev;
    EXPECT_TRUE(view_matches(back, want));
}

TYPED_TEST(cuda_for_each, soa_columns_not_aligned_to_per_thread_still_run_every_element) {
    using T = typename TypeParam::value_type;
    if (!std::is_same_v<typename TypeParam::policy, layout::policy::soa>)
        GTEST_SKIP() << "SoA only";
    std::mt19937 g(32);
    const auto values = random_values<T>(g, 1001);
    check_unaligned_soa<2, T>(values);
    check_unaligned_soa<4, T>(values);
    check_unaligned_soa<8, T>(values);
}

/// An AoS or AoSoA view at alignof(T) bytes past an aligned device address: the element
/// alignment is all the memory has, so the kernel that assumes 16-byte alignment must not run.
template <std::size_t PerThread, class T, class Policy, bool Element = false>
void check_offset_view(const std::vector<T>& values) {
    SCOPED_TRACE(
        (Element ? std::string("for_each_element") : "PerThread " + std::to_string(PerThread)) +
        ", view at alignof(T) past 256");
    using map = layout::mapping<T, Policy>;
    const std::size_t bytes = map::bytes(map::rounded_capacity(values.size()));
    const layout::vector<T, Policy> host(values.begin(), values.end());
    std::byte* block = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&block, bytes + alignof(T)), "cudaMalloc"));
    std::byte* const at = block + alignof(T);
    ASSERT_TRUE(check_cuda(
        cudaMemcpy(at, host.view().storage().first_byte(), bytes, cudaMemcpyHostToDevice),
        "cudaMemcpy"));
    using storage = layout::detail::storage<T, Policy>;
    using pointer = layout::detail::first_argument_t<decltype(&storage::from_pointer)>;
    const layout::view<T, Policy> dev(static_cast<pointer>(static_cast<void*>(at)), values.size());
    if constexpr (Element)
        layout::cuda::for_each_element(dev, update{});
    else
        layout::cuda::for_each_index<PerThread>(dev, update{});
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "for_each_index"));

    layout::vector<T, Policy> want = host;
    layout::for_each_index(want.view(), update{});
    layout::vector<T, Policy> back = host;
    ASSERT_TRUE(check_cuda(
        cudaMemcpy(back.view().storage().first_byte(), at, bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy"));
    cudaFree(block);
    EXPECT_TRUE(view_matches(back, to_std(want)));
}

TYPED_TEST(cuda_for_each, views_aligned_only_to_the_element_still_run_every_element) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    if constexpr (!requires { &layout::detail::storage<T, P>::from_pointer; }) {
        GTEST_SKIP() << "layouts over one pointer only (AoS, AoSoA)";
    } else {
        std::mt19937 g(33);
        for (const std::size_t n : {1, 33, 1001}) {
            const auto values = random_values<T>(g, n);
            check_offset_view<1, T, P>(values);
            check_offset_view<2, T, P>(values);
            check_offset_view<4, T, P>(values);
            check_offset_view<layout::cuda::per_thread_auto, T, P>(values);
            check_offset_view<1, T, P, true>(values);
        }
    }
}

// ---- for_each_element: the same functor, each AoS block's elements through shared memory ----

template <class T, class Policy>
void check_element(const std::vector<T>& values) {
    SCOPED_TRACE("for_each_element, n " + std::to_string(values.size()));
    layout::vector<T, Policy> host(values.begin(), values.end());
    layout::vector<T, Policy, layout::cuda::device_memory> dev = host;
    layout::for_each_index(host.view(), update{});
    layout::cuda::for_each_element(dev.view(), update{});
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "for_each_element"));
    const layout::vector<T, Policy> back = dev;
    EXPECT_TRUE(view_matches(back, to_std(host)));
}

TYPED_TEST(cuda_for_each, for_each_element_runs_every_element_once) {
    using T = typename TypeParam::value_type;
    std::mt19937 g(34);
    // Whole blocks of 256 elements, a last block of 1 and of 255, and one block short of one.
    for (const std::size_t n : {0, 1, 7, 255, 256, 257, 511, 1000, 4099})
        check_element<T, typename TypeParam::policy>(random_values<T>(g, n));
}

/// An element of a size that is not a multiple of 4 bytes, and one over 128 bytes: not staged,
/// for_each_index runs them.
struct Odd {
    char a, b, c;
};
struct Large {
    std::array<double, 19> d;
    double e;
};
struct bump {
    LAYOUT_HOST_DEVICE void operator()(const layout::view<Odd, layout::policy::aos>& v,
                                       std::size_t i) const {
        auto&& [a, b, c] = v[i];
        a = static_cast<char>(a + 1);
        c = static_cast<char>(b + static_cast<char>(i));
    }
    LAYOUT_HOST_DEVICE void operator()(const layout::view<Large, layout::policy::aos>& v,
                                       std::size_t i) const {
        auto&& [d, e] = v[i];
        d[3] += static_cast<double>(i);
        e = d[0] * 2;
    }
};

template <class T, class Fill>
void check_unstaged(Fill fill) {
    std::vector<T> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i) fill(values[i], i);
    layout::aos_vector<T> host(values.begin(), values.end());
    layout::vector<T, layout::policy::aos, layout::cuda::device_memory> dev = host;
    layout::for_each_index(host.view(), bump{});
    layout::cuda::for_each_element(dev.view(), bump{});
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "for_each_element"));
    const layout::aos_vector<T> back = dev;
    EXPECT_EQ(std::memcmp(back.data(), host.data(), sizeof(T) * values.size()), 0);
}

class cuda_for_each_element : public gpu_test {};

TEST_F(cuda_for_each_element, elements_it_cannot_stage_run_under_for_each_index) {
    check_unstaged<Odd>([](Odd& o, std::size_t i) {
        o = {static_cast<char>(i), static_cast<char>(i * 3), 0};
    });
    check_unstaged<Large>([](Large& l, std::size_t i) {
        for (std::size_t k = 0; k < 19; ++k) l.d[k] = static_cast<double>(i * 20 + k);
        l.e = 0;
    });
}

/// A user's layout of whole elements sizeof(T) apart behind one T* (AoS under its own name):
/// staged like AoS, chosen by the layout's facts rather than its name. A staged functor sees a
/// view whose size is i + 1 (only element i is there, says for_each_element); under
/// for_each_index it would see all n.
struct my_aos : layout::policy::aos {
    static std::string name() { return "my_aos"; }
};
static_assert(layout::layout_policy<my_aos, Particle>);

struct record_size {
    unsigned* sizes;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& v, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, mass, charge] = v[i];
        x += vx;
        sizes[i] = static_cast<unsigned>(v.size());
    }
};

template <class Policy>
void check_staged(std::size_t n) {
    SCOPED_TRACE(Policy::name());
    std::mt19937 g(36);
    const auto values = random_values<Particle>(g, n);
    layout::vector<Particle, Policy> host(values.begin(), values.end());
    layout::vector<Particle, Policy, layout::cuda::device_memory> dev = host;
    unsigned* sizes = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&sizes, n * sizeof(unsigned)), "cudaMalloc"));
    layout::cuda::for_each_element(dev.view(), record_size{sizes});
    std::vector<unsigned> got(n);
    ASSERT_TRUE(check_cuda(
        cudaMemcpy(got.data(), sizes, n * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy"));
    cudaFree(sizes);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i + 1) << "element " << i;
    std::vector<unsigned> host_sizes(n);
    layout::for_each_index(host.view(), record_size{host_sizes.data()});
    const layout::vector<Particle, Policy> back = dev;
    EXPECT_TRUE(view_matches(back, to_std(host)));
}

TEST_F(cuda_for_each_element, layouts_of_whole_elements_are_staged_whatever_their_name) {
    check_staged<layout::policy::aos>(1000);
    check_staged<my_aos>(1000);
}

/// A read-only view: nothing is written back; the functor writes its result elsewhere.
struct weigh {
    float* out;
    LAYOUT_HOST_DEVICE void operator()(const layout::view<const Particle, layout::policy::aos>& v,
                                       std::size_t i) const {
        const Particle p = v[i];
        out[i] = p.mass + p.x; // one rounding: no contraction to an FMA to tell host from device
    }
};

TEST_F(cuda_for_each_element, read_only_views_are_read_and_not_written) {
    std::mt19937 g(35);
    const auto values = random_values<Particle>(g, 3001);
    const layout::vector<Particle, layout::policy::aos, layout::cuda::device_memory> dev =
        layout::aos_vector<Particle>(values.begin(), values.end());
    float* out = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&out, values.size() * sizeof(float)), "cudaMalloc"));
    layout::cuda::for_each_element(dev.cview(), weigh{out});
    std::vector<float> got(values.size());
    ASSERT_TRUE(
        check_cuda(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost),
                   "cudaMemcpy"));
    cudaFree(out);
    for (std::size_t i = 0; i < values.size(); ++i)
        ASSERT_EQ(got[i], values[i].mass + values[i].x) << "element " << i;
    const layout::aos_vector<Particle> back = dev;
    EXPECT_TRUE(view_matches(back, values));
}

// ---- tabulate: new elements v[i] = f(i), staged through shared memory where whole --------------

/// Element i for the tabulate tests: each leaf its own function of i, exact in every leaf type.
template <class T>
struct element_of_index {
    LAYOUT_HOST_DEVICE T operator()(std::size_t i) const {
        T t{};
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            ((layout::detail::leaf_ref<L>(t) =
                  static_cast<layout::leaf_t<T, L>>((i * 7 + L * 13) % 101)),
             ...);
        }(std::make_index_sequence<layout::leaf_count_v<T>>{});
        return t;
    }
};

/// Layouts where tabulate stages whole elements (AoS: 16-byte units), a split's first part
/// (one float: 4-byte units; one double: 8) or its second (7 floats: 4; 48 bytes: 16), and where
/// it stages nothing (SoA, AoSoA).
using tabulate_combos = ::testing::Types<
    combo<Particle, aos_layout>, combo<Particle, soa_layout>, combo<Particle, aosoa_layout<32>>,
    combo<Particle, split_aos_soa>, combo<Particle, split_aosoa_aos>, combo<Mixed, aos_layout>,
    combo<Mixed, split_aos_soa>, combo<Body, aos_layout>, combo<Body, split_aosoa_aos>>;
template <class C>
class cuda_tabulate : public gpu_test {};
TYPED_TEST_SUITE(cuda_tabulate, tabulate_combos, combo_names);

// Ranges that start and end inside a block of 256 and on its edges, through the container (its
// stream: a non-blocking one, held busy first, so that work on any other stream would run
// before the values it overwrites arrive); the elements outside the range as they were.
TYPED_TEST(cuda_tabulate, writes_its_range_on_the_containers_stream_and_nothing_else) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    static_assert(
        !std::is_void_v<typename layout::cuda::detail::staged_part<T, P>::part> ==
        (!std::is_same_v<P, layout::policy::soa> && !std::is_same_v<P, layout::policy::aosoa<32>>));
    std::mt19937 g(37);
    cudaStream_t raw = nullptr;
    ASSERT_TRUE(check_cuda(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), "stream"));
    for (const std::size_t n : {1, 255, 256, 257, 1000, 4099}) {
        const std::pair<std::size_t, std::size_t> ranges[] = {
            {0, n}, {1, n}, {n / 3, n - n / 5}, {n, n}, {0, n / 2}};
        for (const auto [first, last] : ranges) {
            SCOPED_TRACE("n " + std::to_string(n) + ", [" + std::to_string(first) + ", " +
                         std::to_string(last) + ")");
            auto expected = random_values<T>(g, n);
            layout::vector<T, P, layout::cuda::device_memory> dev(n, T{}, layout::stream_ref(raw));
            ASSERT_TRUE(spin(raw, 2'000'000));
            const layout::vector<T, P> host(expected.begin(), expected.end());
            layout::cuda::copy(host.view(), dev.view(), layout::stream_ref(raw));
            layout::cuda::tabulate(dev, first, last, element_of_index<T>{});
            for (std::size_t i = first; i < last; ++i) expected[i] = element_of_index<T>{}(i);
            const layout::vector<T, P> back = dev;
            EXPECT_TRUE(view_matches(back, expected));
        }
    }
    ASSERT_TRUE(check_cuda(cudaStreamDestroy(raw), "cudaStreamDestroy"));
}

TYPED_TEST(cuda_tabulate, a_range_outside_the_view_throws_and_writes_nothing) {
    using T = typename TypeParam::value_type;
    using P = typename TypeParam::policy;
    std::mt19937 g(38);
    const auto values = random_values<T>(g, 100);
    layout::vector<T, P, layout::cuda::device_memory> dev =
        layout::vector<T, P>(values.begin(), values.end());
    EXPECT_THROW(layout::cuda::tabulate(dev, 50, 101, element_of_index<T>{}), std::out_of_range);
    EXPECT_THROW(layout::cuda::tabulate(dev.view(), 60, 50, element_of_index<T>{}),
                 std::out_of_range);
    const layout::vector<T, P> back = dev;
    EXPECT_TRUE(view_matches(back, values));
}

// A view whose AoS pointer is only 4-byte aligned: 4-byte units instead of 16.
TEST_F(cuda_for_each_element, tabulate_writes_aos_views_aligned_only_to_the_element) {
    constexpr std::size_t n = 1001;
    std::byte* block = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&block, n * sizeof(Particle) + 4), "cudaMalloc"));
    const layout::view<Particle, layout::policy::aos, layout::cuda::device_memory> dev(
        reinterpret_cast<Particle*>(block + 4), n);
    layout::cuda::tabulate(dev, element_of_index<Particle>{});
    std::vector<Particle> got(n);
    ASSERT_TRUE(
        check_cuda(cudaMemcpy(got.data(), block + 4, n * sizeof(Particle), cudaMemcpyDeviceToHost),
                   "cudaMemcpy"));
    cudaFree(block);
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_TRUE(same(got[i], element_of_index<Particle>{}(i))) << "element " << i;
}

} // namespace
