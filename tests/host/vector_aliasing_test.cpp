// Container operations whose argument lives in the container itself, or whose iterators outlive
// a growth, against a std::vector model (issue 11, items 1, 11, 12; emplace_back(v[0])):
//
//   v.push_back(v.data()[0]) when it reallocates     std::vector reads the value first
//   v.insert(pos, v.data()[k]), insert(pos, n, ...)  the gap moves the element being inserted
//   v.resize(n, v.data()[k])                         reallocation frees it
//   auto it = v.begin(); v.push_back(x); *(it + n)   valid: no reallocation happened
//   a byte copy that throws during reallocation      the new block must not leak
//
// Bounds checks are forced on, so that a debug-only check (a stale size bound in an iterator)
// fails here in every build type.
#define LAYOUT_CHECK_BOUNDS 1

#include "test_types.hpp"

#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace {

using namespace layout_test;

template <class C>
class aliasing : public ::testing::Test {};
TYPED_TEST_SUITE(aliasing, all_combos, combo_names);

template <class C>
constexpr bool is_aos_v = std::is_same_v<typename C::layout_type, layout::policy::aos>;

/// Element k as the argument the caller would pass: under AoS a reference into the container's
/// own block (the aliasing case); elsewhere no T object exists in memory, so the proxy (which
/// converts to a temporary T).
template <class C>
decltype(auto) own_element(C& c, std::size_t k) {
    if constexpr (is_aos_v<C>)
        return static_cast<const typename C::value_type&>(c.data()[k]);
    else
        return c[k];
}

/// A container and its model with n random elements and no spare capacity.
template <class C, class T>
void fill_tight(C& c, std::vector<T>& m, std::mt19937& g, std::size_t n) {
    m = random_values<T>(g, n);
    c.assign(m.begin(), m.end());
    c.shrink_to_fit();
    while (c.size() < c.capacity()) { // AoSoA rounds capacity up to whole blocks
        m.push_back(random_value<T>(g));
        c.push_back(m.back());
    }
}

TYPED_TEST(aliasing, push_back_own_element_when_reallocating) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(1);
    for (std::size_t n : {1u, 2u, 3u, 7u, 32u, 33u}) {
        for (std::size_t k : {std::size_t{0}, n / 2, n - 1}) {
            C c;
            std::vector<T> m;
            fill_tight(c, m, g, n);
            ASSERT_EQ(c.size(), c.capacity());
            const std::size_t at = k < c.size() ? k : 0;
            c.push_back(own_element(c, at)); // reallocates
            m.push_back(m[at]);
            ASSERT_TRUE(container_matches(c, m)) << "n " << n << ", k " << at;
            // and a run of them, growing several times, always from the first element
            for (int r = 0; r < 40; ++r) {
                c.push_back(own_element(c, 0));
                m.push_back(m[0]);
            }
            ASSERT_TRUE(container_matches(c, m)) << "n " << n;
        }
    }
}

TYPED_TEST(aliasing, insert_own_element) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(2);
    for (bool grow : {false, true}) {
        for (std::size_t at : {0u, 1u, 4u, 9u}) {
            for (std::size_t k : {0u, 3u, 5u, 9u}) {
                C c;
                std::vector<T> m;
                fill_tight(c, m, g, 10);
                if (!grow) c.reserve(c.size() + 10); // no reallocation: only the gap moves it
                const auto pos = c.begin() + static_cast<std::ptrdiff_t>(at);
                const auto it = c.insert(pos, own_element(c, k));
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), T(m[k]));
                EXPECT_EQ(it - c.begin(), static_cast<std::ptrdiff_t>(at));
                ASSERT_TRUE(container_matches(c, m))
                    << "insert at " << at << " of element " << k << (grow ? ", growing" : "");
            }
        }
    }
}

TYPED_TEST(aliasing, insert_count_copies_of_own_element) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(3);
    for (bool grow : {false, true}) {
        for (std::size_t at : {0u, 2u, 9u}) {
            for (std::size_t k : {0u, 2u, 8u}) {
                for (std::size_t count : {1u, 3u, 17u}) {
                    C c;
                    std::vector<T> m;
                    fill_tight(c, m, g, 10);
                    if (!grow) c.reserve(c.size() + count);
                    c.insert(c.begin() + static_cast<std::ptrdiff_t>(at), count, own_element(c, k));
                    m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), count, T(m[k]));
                    ASSERT_TRUE(container_matches(c, m))
                        << "insert " << count << " at " << at << " of element " << k;
                }
            }
        }
    }
}

TYPED_TEST(aliasing, resize_with_own_element) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(4);
    for (std::size_t k : {0u, 3u, 6u}) {
        for (std::size_t grow_to : {8u, 40u, 300u}) {
            C c;
            std::vector<T> m;
            fill_tight(c, m, g, 7);
            c.resize(c.size() + grow_to, own_element(c, k)); // reallocates
            m.resize(m.size() + grow_to, T(m[k]));
            ASSERT_TRUE(container_matches(c, m)) << "element " << k << ", +" << grow_to;
        }
    }
}

TYPED_TEST(aliasing, emplace_from_an_element_proxy) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(5);
    C c;
    std::vector<T> m;
    fill_tight(c, m, g, 5);
    for (int r = 0; r < 50; ++r) {
        const std::size_t k = static_cast<std::size_t>(r) % m.size();
        auto&& ref = c.emplace_back(c[k]); // a proxy of this container, reallocating at times
        m.emplace_back(m[k]);
        EXPECT_TRUE(same(T(ref), m.back()));
        const auto at = static_cast<std::ptrdiff_t>(r % 3);
        c.emplace(c.begin() + at, c[k]);
        m.emplace(m.begin() + at, T(m[k]));
        ASSERT_TRUE(container_matches(c, m)) << "round " << r;
    }
    // from a read-only proxy and from another layout's proxy
    const C& cc = c;
    c.emplace_back(cc[1]);
    m.emplace_back(m[1]);
    layout::soa_vector<T> other(m.begin(), m.begin() + 3);
    c.emplace_back(other[2]);
    m.emplace_back(m[2]);
    EXPECT_TRUE(container_matches(c, m));
}

TYPED_TEST(aliasing, iterators_survive_push_back_without_reallocation) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(6);
    std::vector<T> m = random_values<T>(g, 9);
    C c(m.begin(), m.end());
    c.reserve(40);
    m.reserve(40);
    const std::size_t capacity = c.capacity();
    const auto first = c.begin();
    const typename C::const_iterator cfirst = c.cbegin();
    const auto old_end = c.end();
    for (int r = 0; r < 20; ++r) {
        m.push_back(random_value<T>(g));
        c.push_back(m.back());
    }
    ASSERT_EQ(c.capacity(), capacity); // no reallocation happened
    // past the size the iterators were taken at: valid under std::vector's rules
    for (std::size_t i = 0; i < m.size(); ++i) {
        EXPECT_TRUE(same(T(first[static_cast<std::ptrdiff_t>(i)]), m[i])) << i;
        EXPECT_TRUE(same(T(*(cfirst + static_cast<std::ptrdiff_t>(i))), m[i])) << i;
    }
    std::size_t i = 9;
    for (auto it = old_end; it != c.end(); ++it, ++i) EXPECT_TRUE(same(T(*it), m[i])) << i;
    EXPECT_EQ(i, m.size());
    *(first + 25) = m[0]; // and writable there
    m[25] = m[0];
    EXPECT_TRUE(container_matches(c, m));
}

// ---- a reallocation whose byte copy throws --------------------------------------------------------

} // namespace

namespace layout_test {

/// A memory space that the host can reach but declares it cannot (as device memory), with its own
/// transfer (below): its copies throw after arm(), as a failed cudaMemcpy would, and live counts
/// the blocks handed out and not taken back.
struct throwing_copy_memory {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = false;

    static inline bool armed = false;
    static inline long live = 0;
    static inline long copies = 0;

    struct resource {
        static constexpr bool host_accessible = false;
        static constexpr bool device_accessible = false;
        void* allocate(std::size_t bytes, std::size_t alignment) {
            void* p = layout::host_resource{}.allocate(bytes, alignment);
            ++live;
            return p;
        }
        void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
            --live;
            layout::host_resource{}.deallocate(p, bytes, alignment);
        }
        bool operator==(const resource&) const = default;
    };
    static layout::resource_ref default_resource() noexcept {
        static resource r;
        return r;
    }
    static void copy_bytes(void* dst, const void* src, std::size_t bytes) {
        layout::host_memory::copy_bytes(dst, src, bytes);
    }
};

} // namespace layout_test

/// How elements move to and from throwing_copy_memory: a user's specialization of the
/// customization point.
template <class Dst, class Src>
    requires(std::is_same_v<Dst, layout_test::throwing_copy_memory> ||
             std::is_same_v<Src, layout_test::throwing_copy_memory>)
struct layout::transfer<Dst, Src> {
    using space = layout_test::throwing_copy_memory;
    template <class T, class DstLayout, class SrcLayout>
    static void copy(const layout::view<const T, SrcLayout>& src,
                     const layout::view<T, DstLayout>& dst, layout::stream_ref) {
        ++space::copies;
        if (space::armed) throw std::runtime_error("copy failed (as a failed cudaMemcpy would)");
        layout::copy(src, dst);
    }
    template <class T, class Layout>
    static void prepare_block(const layout::view<T, Layout>&, layout::stream_ref) noexcept {}
    template <class T, class Layout>
    static void fill(const layout::view<T, Layout>& v, std::size_t first, std::size_t last,
                     const T& value, layout::stream_ref) {
        for (std::size_t i = first; i < last; ++i) v[i] = value;
    }
};

namespace {

template <class L>
class throwing_copy : public ::testing::Test {};
TYPED_TEST_SUITE(throwing_copy, all_layouts, layout_names);

TYPED_TEST(throwing_copy, reallocation_frees_the_new_block) {
    using T = Particle;
    using C = layout::vector<T, typename TypeParam::policy, throwing_copy_memory>;
    std::mt19937 g(7);
    const T value = random_value<T>(g);
    throwing_copy_memory::live = 0;
    {
        C c(10, value);
        ASSERT_EQ(throwing_copy_memory::live, 1);
        const std::size_t capacity = c.capacity();

        throwing_copy_memory::armed = true;
        throwing_copy_memory::copies = 0;
        EXPECT_THROW(c.reserve(1000), std::runtime_error);
        EXPECT_GT(throwing_copy_memory::copies, 0) << "the test space's copy was not used";
        EXPECT_EQ(throwing_copy_memory::live, 1) << "reserve: the new block leaked";
        EXPECT_THROW(c.resize(1000), std::runtime_error);
        EXPECT_EQ(throwing_copy_memory::live, 1) << "resize: the new block leaked";
        throwing_copy_memory::armed = false;
        c.reserve(capacity + 100); // spare capacity, so that shrink_to_fit reallocates
        throwing_copy_memory::armed = true;
        EXPECT_THROW(c.shrink_to_fit(), std::runtime_error);
        EXPECT_EQ(throwing_copy_memory::live, 1) << "shrink_to_fit: the new block leaked";
        EXPECT_THROW(C copy(c), std::runtime_error);
        EXPECT_EQ(throwing_copy_memory::live, 1) << "copy construction leaked";
        throwing_copy_memory::armed = false;

        // strong guarantee: the container is as it was
        EXPECT_EQ(c.size(), 10u);
        const layout::vector<T, typename TypeParam::policy> back(c);
        ASSERT_EQ(back.size(), 10u);
        for (std::size_t i = 0; i < back.size(); ++i) EXPECT_TRUE(same(T(back[i]), value)) << i;
    }
    EXPECT_EQ(throwing_copy_memory::live, 0);
    throwing_copy_memory::armed = false;
}

} // namespace
