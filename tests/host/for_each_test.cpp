// layout::for_each_index on the host: every layout's loop (aos, soa, aosoa<N> with full blocks
// and a tail), serial and parallel, against a std::vector model updated element by element on
// random data; the parallel result bit for bit equal to the serial one; every index visited
// exactly once; the functor's v[i] and v.size() meaning what they mean on the whole view.
#include "host/test_types.hpp"

#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace {

using layout_test::Body;
using layout_test::Mixed;
using layout_test::Particle;

// ---- kernels: each with the same update on a plain struct, the model ---------------------------

/// Reads and writes most leaves, of several sizes, through structured bindings and get<>.
struct update_particle {
    float dt;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        q = m * q + static_cast<float>(i % 7);
    }
    void model(Particle& p, std::size_t i) const {
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
        p.charge = p.mass * p.charge + static_cast<float>(i % 7);
    }
};

struct update_mixed {
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [d, n, c, b, s] = p[i];
        d = d * 0.5 + n;
        n += static_cast<int>(i);
        c = static_cast<char>(c ^ 0x5a);
        b = !b;
        s = static_cast<short>(s + 3);
    }
    void model(Mixed& m, std::size_t i) const {
        m.d = m.d * 0.5 + m.i;
        m.i += static_cast<int>(i);
        m.c = static_cast<char>(m.c ^ 0x5a);
        m.b = !m.b;
        m.s = static_cast<short>(m.s + 3);
    }
};

struct update_body {
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [pos, vel, id, pair, w] = p[i];
        auto&& [x, y, z] = pos;
        x += vel[0];
        y += vel[1];
        z += vel[2];
        id = static_cast<int>(i);
        layout::get<&layout_test::Vec3::y>(layout::get<1>(pair)) = static_cast<float>(w);
        w *= 2;
    }
    void model(Body& b, std::size_t i) const {
        b.pos.x += b.vel[0];
        b.pos.y += b.vel[1];
        b.pos.z += b.vel[2];
        b.id = static_cast<int>(i);
        b.pair[1].y = static_cast<float>(b.w);
        b.w *= 2;
    }
};

template <class T>
struct kernel_for;
template <>
struct kernel_for<Particle> {
    static update_particle get() { return {0.25f}; }
};
template <>
struct kernel_for<Mixed> {
    static update_mixed get() { return {}; }
};
template <>
struct kernel_for<Body> {
    static update_body get() { return {}; }
};

template <class T, class L>
std::vector<T> values_of(const layout::vector<T, L>& c) {
    std::vector<T> out;
    for (std::size_t i = 0; i < c.size(); ++i) out.push_back(c[i]);
    return out;
}

// Sizes: empty, shorter than a block, exactly blocks, blocks plus a tail, more than one
// thread's grain, and above exec::parallel's default threshold.
const std::size_t sizes[] = {0, 1, 3, 31, 32, 33, 64, 100, 1000, 4099, 40000};

template <class Case>
class for_each_host : public ::testing::Test {};

template <class T, class L>
struct test_case {
    using element = T;
    using layout_type = L;
};

using cases = ::testing::Types<
    test_case<Particle, layout::policy::aos>, test_case<Particle, layout::policy::soa>,
    test_case<Particle, layout::policy::aosoa<32>>, test_case<Particle, layout::policy::aosoa<8>>,
    test_case<Mixed, layout::policy::aos>, test_case<Mixed, layout::policy::soa>,
    test_case<Mixed, layout::policy::aosoa<32>>, test_case<Mixed, layout::policy::aosoa<3>>,
    test_case<Body, layout::policy::aos>, test_case<Body, layout::policy::soa>,
    test_case<Body, layout::policy::aosoa<16>>, test_case<Body, layout::policy::aosoa<1>>,
    test_case<Particle, layout::policy::split<layout::policy::aos, layout::policy::soa, 0, 2>>,
    test_case<Body, layout::policy::split<layout::policy::aosoa<8>, layout::policy::soa, 0>>,
    // Splits in blocks: both parts of one size, the other part AoS, 3 lanes; and parts of two
    // sizes (no blocks: an element loop).
    test_case<Mixed, layout::policy::split<layout::policy::aosoa<8>, layout::policy::aosoa<8>, 1>>,
    test_case<Particle, layout::policy::split<layout::policy::soa, layout::policy::aosoa<3>, 0, 5>>,
    test_case<Mixed,
              layout::policy::split<layout::policy::aosoa<32>, layout::policy::aosoa<8>, 0, 2>>>;
TYPED_TEST_SUITE(for_each_host, cases);

TYPED_TEST(for_each_host, serial_and_parallel_match_the_model) {
    using T = typename TypeParam::element;
    using L = typename TypeParam::layout_type;
    const auto f = kernel_for<T>::get();
    std::mt19937 gen(1234);
    for (std::size_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const std::vector<T> input = layout_test::random_values<T>(gen, n);
        std::vector<T> model = input;
        for (std::size_t i = 0; i < n; ++i) f.model(model[i], i);

        layout::vector<T, L> serial(input.begin(), input.end());
        layout::for_each_index(layout::exec::serial, serial.view(), f);
        // min_elements 0: threads even for a few elements, so that the shares' edges (and the
        // tail block of an aosoa share) are exercised at every size.
        layout::vector<T, L> parallel(input.begin(), input.end());
        layout::for_each_index(layout::exec::parallel_policy{0}, parallel.view(), f);
        layout::vector<T, L> by_default(input.begin(), input.end());
        layout::for_each_index(by_default.view(), f);

        const auto s = values_of(serial), p = values_of(parallel), d = values_of(by_default);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(layout_test::same(s[i], model[i])) << "serial, element " << i;
            ASSERT_TRUE(layout_test::same(p[i], s[i])) << "parallel, element " << i;
            ASSERT_TRUE(layout_test::same(d[i], s[i])) << "default policy, element " << i;
        }
    }
}

/// Each index exactly once, and the view the functor gets has the whole view's size.
struct count_visits {
    std::atomic<int>* visits;
    std::size_t* seen_size;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        visits[i].fetch_add(1, std::memory_order_relaxed);
        if (p.size() != seen_size[i]) seen_size[i] = p.size();
    }
};

TYPED_TEST(for_each_host, every_index_once) {
    using T = typename TypeParam::element;
    using L = typename TypeParam::layout_type;
    for (std::size_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        layout::vector<T, L> c(n);
        for (int policy = 0; policy < 2; ++policy) {
            std::vector<std::atomic<int>> visits(n);
            std::vector<std::size_t> seen(n, n);
            const count_visits f{visits.data(), seen.data()};
            if (policy == 0)
                layout::for_each_index(layout::exec::serial, c.view(), f);
            else
                layout::for_each_index(layout::exec::parallel_policy{0}, c.view(), f);
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(visits[i].load(), 1) << "policy " << policy << ", index " << i;
                ASSERT_EQ(seen[i], n) << "v.size() in the functor, index " << i;
            }
        }
    }
}

/// A read-only functor that reads another element than i: v[j] must be element j of the whole
/// view, also under aosoa, where the functor gets a view of one block (the cursor falls back to
/// the whole view's arithmetic for a j outside that block).
struct reverse_read {
    float* out;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        const std::size_t j = p.size() - 1 - i;
        const Particle e = p[j];
        out[i] = e.x + layout::get<&Particle::charge>(p[(i * 7) % p.size()]);
    }
};

template <class L>
class for_each_host_reach : public ::testing::Test {};
using particle_layouts =
    ::testing::Types<layout::policy::aos, layout::policy::soa, layout::policy::aosoa<32>,
                     layout::policy::aosoa<8>, layout::policy::aosoa<1>,
                     layout::policy::split<layout::policy::aosoa<8>, layout::policy::aos, 0, 7>>;
TYPED_TEST_SUITE(for_each_host_reach, particle_layouts);

TYPED_TEST(for_each_host_reach, functor_reaches_other_elements) {
    using L = TypeParam;
    std::mt19937 gen(99);
    for (std::size_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const std::vector<Particle> input = layout_test::random_values<Particle>(gen, n);
        const layout::vector<Particle, L> c(input.begin(), input.end());
        for (int policy = 0; policy < 2; ++policy) {
            std::vector<float> out(n, -1.0f);
            const reverse_read f{out.data()};
            if (policy == 0)
                layout::for_each_index(layout::exec::serial, c.cview(), f);
            else
                layout::for_each_index(layout::exec::parallel_policy{0}, c.view(), f);
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_EQ(out[i], input[n - 1 - i].x + input[(i * 7) % n].charge)
                    << "policy " << policy << ", index " << i;
        }
    }
}

// ---- exceptions: one rule for every layout, with or without OpenMP ---------------------------

#if defined(__SANITIZE_THREAD__)
#  define LAYOUT_TEST_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define LAYOUT_TEST_TSAN 1
#  endif
#endif

/// Adds 1 to x, and throws at element `at`.
struct throws_at {
    std::size_t at;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        if (i == at) throw std::runtime_error("the functor threw");
        layout::get<&Particle::x>(p[i]) += 1.0f;
    }
};

template <class L>
class for_each_host_throw : public ::testing::Test {};
TYPED_TEST_SUITE(for_each_host_throw, particle_layouts);

// Under exec::serial the exception reaches the caller (an omp simd loop would end the program);
// the elements before the throwing one were updated, the others not.
TYPED_TEST(for_each_host_throw, serial_lets_the_exception_reach_the_caller) {
    std::mt19937 gen(5);
    const std::size_t n = 100, at = 57;
    const std::vector<Particle> input = layout_test::random_values<Particle>(gen, n);
    layout::vector<Particle, TypeParam> c(input.begin(), input.end());
    EXPECT_THROW(layout::for_each_index(layout::exec::serial, c.view(), throws_at{at}),
                 std::runtime_error);
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(layout::get<&Particle::x>(c[i]), input[i].x + (i < at ? 1.0f : 0.0f))
            << "element " << i;
}

// Under exec::parallel a throw ends the program, whatever the size and thread count.
TYPED_TEST(for_each_host_throw, parallel_ends_the_program) {
#if defined(LAYOUT_TEST_TSAN)
    GTEST_SKIP() << "death tests fork; ThreadSanitizer builds run the serial rule only";
#else
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    layout::vector<Particle, TypeParam> c(100);
    EXPECT_DEATH(layout::for_each_index(layout::exec::parallel_policy{0}, c.view(), throws_at{57}),
                 "");
    EXPECT_DEATH(layout::for_each_index(c.view(), throws_at{3}), ""); // below min_elements
#endif
}

/// exec::parallel runs on more than one thread where OpenMP gives it more than one, and only
/// from min_elements on.
TEST(for_each_host_threads, parallel_uses_threads_serial_does_not) {
#if defined(_OPENMP)
    if (omp_get_max_threads() < 2) GTEST_SKIP() << "OpenMP gives one thread here";
    const std::size_t n = 1 << 16;
    layout::soa_vector<Particle> c(n);
    std::vector<int> thread(n, -1);
    auto record = [&](const auto&, std::size_t i) { thread[i] = omp_get_thread_num(); };
    layout::for_each_index(layout::exec::parallel, c.view(), record);
    EXPECT_GT(std::set<int>(thread.begin(), thread.end()).size(), 1u);
    layout::for_each_index(layout::exec::serial, c.view(), record);
    EXPECT_EQ(std::set<int>(thread.begin(), thread.end()), std::set<int>{0});
    layout::for_each_index(layout::exec::parallel_policy{n + 1}, c.view(), record);
    EXPECT_EQ(std::set<int>(thread.begin(), thread.end()), std::set<int>{0})
        << "below min_elements the loop runs on the calling thread";
#else
    GTEST_SKIP() << "built without OpenMP: exec::parallel runs serially";
#endif
}

/// A mutable functor passed as an lvalue is called in place (as before exec policies existed):
/// with exec::serial its state is the caller's.
struct counter {
    std::size_t calls = 0;
    template <class V>
    void operator()(const V&, std::size_t) {
        ++calls;
    }
};

TEST(for_each_host_threads, serial_calls_the_callers_functor) {
    counter f;
    layout::aosoa<Particle, 4> c(10);
    layout::for_each_index(layout::exec::serial, c.view(), f);
    EXPECT_EQ(f.calls, 10u);
}

/// Which loop ran: the functor records the layout of the view it was handed.
template <class Expected>
struct records_view_layout {
    bool* all_expected;
    template <class View>
    void operator()(const View&, std::size_t) const {
        if (!std::is_same_v<typename View::layout_type, Expected>) *all_expected = false;
    }
};

TEST(for_each_host_split, a_part_in_blocks_makes_the_loop_run_in_blocks) {
    using layout::policy::aos;
    using layout::policy::aosoa;
    using layout::policy::soa;
    using layout::policy::split;
    bool all = true;
    // A split with an aosoa part: views of one block, each part through its view of the block.
    layout::vector<Particle, split<aosoa<8>, soa, 0, 1>> blocked(100);
    layout::for_each_index(
        layout::exec::serial, blocked.view(),
        records_view_layout<split<layout::detail::aosoa_block<8>, soa, 0, 1>>{&all});
    EXPECT_TRUE(all);
    // Parts in blocks of two sizes: the whole view, element by element.
    using uneven = split<aosoa<32>, aosoa<8>, 0>;
    layout::vector<Particle, uneven> whole(100);
    layout::for_each_index(layout::exec::serial, whole.view(), records_view_layout<uneven>{&all});
    EXPECT_TRUE(all);
    // And no blocks at all.
    using hot_cold = split<aos, soa, 0>;
    layout::vector<Particle, hot_cold> plain(100);
    layout::for_each_index(layout::exec::serial, plain.view(), records_view_layout<hot_cold>{&all});
    EXPECT_TRUE(all);
}

} // namespace
