// Errors: out-of-range access aborts with a message (bounds checks forced on here, whatever the
// build type), at() throws, and allocation failure at any point of any growing operation leaves
// the container exactly as it was and leaks nothing.

#undef LAYOUT_CHECK_BOUNDS
#define LAYOUT_CHECK_BOUNDS 1

#include "test_types.hpp"

#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace layout_test {

/// A host memory space whose allocate throws std::bad_alloc on the N-th call after arm(N), and
/// which counts the blocks it has handed out and not taken back.
struct failing_memory : layout::host_memory {
    static inline long countdown = 0; // 0: never fail
    static inline long calls = 0;
    static inline long live = 0;

    static void arm(long n) {
        countdown = n;
        calls = 0;
    }
    static void disarm() { countdown = 0; }

    struct resource {
        static constexpr bool host_accessible = true;
        static constexpr bool device_accessible = false;
        void* allocate(std::size_t bytes, std::size_t alignment) {
            ++calls;
            if (countdown > 0 && --countdown == 0) throw std::bad_alloc();
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
};

} // namespace layout_test

namespace {

using namespace layout_test;

// ---- out-of-range access -------------------------------------------------------------------------

template <class L>
class bounds : public ::testing::Test {};
TYPED_TEST_SUITE(bounds, all_layouts, layout_names);

/// The process dies, whatever it prints (separates "does not abort" from "wrong message").
TYPED_TEST(bounds, out_of_range_access_aborts) {
    using C = typename TypeParam::template container<Particle>;
    C c(5);
    const C& cc = c;
    EXPECT_DEATH((void)c[5], "");
    EXPECT_DEATH((void)cc[5], "");
    EXPECT_DEATH((void)c.view()[5], "");
    EXPECT_DEATH((void)c.cview()[7], "");
    EXPECT_DEATH((void)c.view().template column<&Particle::y>()[5], "");
    // Container iterators are bounded by the capacity (valid past a non-reallocating push_back).
    EXPECT_DEATH((void)*(c.begin() + static_cast<std::ptrdiff_t>(c.capacity())), "");
    if (c.capacity() == c.size()) {
        EXPECT_DEATH((void)*c.end(), "");
    }
    EXPECT_DEATH((void)*c.view().end(), "");
    EXPECT_DEATH((void)c[std::size_t(-1)], "");
    C empty;
    EXPECT_DEATH((void)empty.front(), "");
    EXPECT_DEATH((void)empty.back(), "");
    EXPECT_DEATH(empty.pop_back(), "");
    EXPECT_DEATH(c.erase(c.begin() + 3, c.begin() + 6), "");
    EXPECT_DEATH(c.insert(c.begin() + 6, Particle{}), "");
}

/// The message the library promises: "layout: index out of range".
TYPED_TEST(bounds, out_of_range_access_message) {
    using C = typename TypeParam::template container<Particle>;
    C c(5);
    const C& cc = c;
    EXPECT_DEATH((void)c[5], "layout: index out of range");
    EXPECT_DEATH((void)cc[5], "layout: index out of range");
    EXPECT_DEATH((void)c.view()[5], "layout: index out of range");
    EXPECT_DEATH((void)c.cview()[7], "layout: index out of range");
    EXPECT_DEATH((void)c.view().template column<&Particle::y>()[5], "layout: index out of range");
    EXPECT_DEATH((void)c[std::size_t(-1)], "layout: index out of range");
    C empty;
    EXPECT_DEATH((void)empty.front(), "layout: index out of range");
    EXPECT_DEATH(empty.pop_back(), "layout: index out of range");
    EXPECT_DEATH(c.erase(c.begin() + 3, c.begin() + 6), "layout: erase: range out of bounds");
    EXPECT_DEATH(c.insert(c.begin() + 6, Particle{}), "layout: insert: position out of bounds");
}

TYPED_TEST(bounds, in_range_access_does_not_abort) {
    using C = typename TypeParam::template container<Body>;
    C c(5);
    c[4] = Body{};
    (void)c.view()[0];
    (void)c.back();
    c.erase(c.begin() + 4, c.end());
    c.insert(c.end(), Body{});
    c.pop_back();
    EXPECT_EQ(c.size(), 4u);
}

TYPED_TEST(bounds, at_throws_out_of_range) {
    using C = typename TypeParam::template container<Mixed>;
    C c(3);
    const C& cc = c;
    for (std::size_t i : {std::size_t{3}, std::size_t{4}, std::size_t{1000}, std::size_t(-1)}) {
        try {
            (void)c.at(i);
            ADD_FAILURE() << "at(" << i << ") did not throw";
        } catch (const std::out_of_range& e) {
            EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(std::to_string(i)), std::string::npos)
                << "names the index: " << e.what();
        }
        EXPECT_THROW((void)cc.at(i), std::out_of_range);
    }
    EXPECT_NO_THROW((void)c.at(2));
    EXPECT_THROW((void)C().at(0), std::out_of_range);
}

// ---- allocation failure ------------------------------------------------------------------------

template <class L, class T>
using failing_container = layout::vector<T, typename L::policy, failing_memory>;

/// Runs op(container) with the N-th allocation failing, for N = 1, 2, ... until op makes
/// fewer than N allocations. Each time: either op succeeds and the container equals
/// expected(model), or op throws std::bad_alloc and the container is exactly as before (size,
/// capacity, every element). make() builds a fresh container (allocations not armed).
template <class T, class Make, class Op, class Expected>
void for_each_failure_point(const char* what, Make make, Op op, Expected expected) {
    SCOPED_TRACE(what);
    bool failed_once = false;
    for (long n = 1; n < 50; ++n) {
        auto c = make();
        const std::vector<T> before = to_std(c);
        const std::size_t capacity = c.capacity();
        failing_memory::arm(n);
        bool threw = false;
        try {
            op(c);
        } catch (const std::bad_alloc&) {
            threw = true;
        }
        failing_memory::disarm();
        if (threw) {
            failed_once = true;
            EXPECT_EQ(c.capacity(), capacity) << "allocation " << n << " failed";
            EXPECT_TRUE(container_matches(c, before)) << "allocation " << n << " failed";
        } else {
            EXPECT_TRUE(container_matches(c, expected(before))) << "allocation " << n;
            EXPECT_LT(failing_memory::calls, n) << "allocation " << n << " failed silently";
            break;
        }
    }
    EXPECT_TRUE(failed_once) << "the operation never allocated";
}

template <class L>
class allocation_failure : public ::testing::Test {
protected:
    void TearDown() override {
        failing_memory::disarm();
        EXPECT_EQ(failing_memory::live, 0) << "blocks leaked";
        failing_memory::live = 0;
    }
};
TYPED_TEST_SUITE(allocation_failure, all_layouts, layout_names);

TYPED_TEST(allocation_failure, growing_operations_are_strong) {
    using T = Body;
    using C = failing_container<TypeParam, T>;
    std::mt19937 g(1);
    // 96 elements fill whole blocks under every layout (3, 4 and 32 lanes), so that after
    // shrink_to_fit there is no spare capacity and the next growth must reallocate
    const std::vector<T> init = random_values<T>(g, 96);
    const T v = random_value<T>(g);
    const std::vector<T> src = random_values<T>(g, 9);
    const auto full = [&] {
        C c(init.begin(), init.end());
        c.shrink_to_fit();
        EXPECT_EQ(c.capacity(), c.size());
        return c;
    };
    const auto with = [](auto f) {
        return [f](std::vector<T> m) {
            f(m);
            return m;
        };
    };

    for_each_failure_point<T>(
        "push_back past capacity", full, [&](C& c) { c.push_back(v); },
        with([&](std::vector<T>& m) { m.push_back(v); }));
    for_each_failure_point<T>(
        "emplace_back past capacity", full, [&](C& c) { c.emplace_back(v); },
        with([&](std::vector<T>& m) { m.push_back(v); }));
    for_each_failure_point<T>(
        "reserve", full, [&](C& c) { c.reserve(1000); }, with([](std::vector<T>&) {}));
    for_each_failure_point<T>(
        "resize(n)", full, [&](C& c) { c.resize(130); },
        with([](std::vector<T>& m) { m.resize(130); }));
    for_each_failure_point<T>(
        "resize(n, value)", full, [&](C& c) { c.resize(100, v); },
        with([&](std::vector<T>& m) { m.resize(100, v); }));
    for_each_failure_point<T>(
        "insert(pos, value)", full, [&](C& c) { c.insert(c.begin() + 5, v); },
        with([&](std::vector<T>& m) { m.insert(m.begin() + 5, v); }));
    for_each_failure_point<T>(
        "insert(pos, count, value)", full, [&](C& c) { c.insert(c.begin(), 40, v); },
        with([&](std::vector<T>& m) { m.insert(m.begin(), 40, v); }));
    for_each_failure_point<T>(
        "insert(pos, first, last)", full, [&](C& c) { c.insert(c.end(), src.begin(), src.end()); },
        with([&](std::vector<T>& m) { m.insert(m.end(), src.begin(), src.end()); }));
    for_each_failure_point<T>(
        "insert(pos, {...})", full,
        [&](C& c) {
            c.insert(c.begin() + 1, {v, v});
        },
        with([&](std::vector<T>& m) {
            m.insert(m.begin() + 1, {v, v});
        }));
    for_each_failure_point<T>(
        "shrink_to_fit",
        [&] {
            C c(init.begin(), init.end());
            c.reserve(500);
            return c;
        },
        [&](C& c) { c.shrink_to_fit(); }, with([](std::vector<T>&) {}));
    for_each_failure_point<T>(
        "copy assignment", full, [&](C& c) { c = C(src.begin(), src.end()); },
        with([&](std::vector<T>& m) { m = src; }));
    // Assignments allocate only past capacity (within it they reuse the block: see
    // assignment_within_capacity_does_not_allocate), so the sources here are larger than full().
    const std::vector<T> big = random_values<T>(g, 130);
    const C other(big.begin(), big.end());
    for_each_failure_point<T>(
        "copy assignment from an lvalue", full, [&](C& c) { c = other; },
        with([&](std::vector<T>& m) { m = big; }));
    const layout::vector<T, layout::policy::aosoa<3>, failing_memory> other_layout(big.begin(),
                                                                                   big.end());
    for_each_failure_point<T>(
        "converting assignment", full, [&](C& c) { c = other_layout; },
        with([&](std::vector<T>& m) { m = big; }));
    for_each_failure_point<T>(
        "assign(n, value)", full, [&](C& c) { c.assign(200, v); },
        with([&](std::vector<T>& m) { m.assign(200, v); }));
}

/// Copy, converting, initializer-list and assign(n, value) assignment into a container whose
/// capacity holds the source reuse its block: with every allocation set to fail, they succeed,
/// and the capacity is unchanged (before, each built a new container and swapped it in).
TYPED_TEST(allocation_failure, assignment_within_capacity_does_not_allocate) {
    using T = Body;
    using C = failing_container<TypeParam, T>;
    std::mt19937 g(5);
    const std::vector<T> init = random_values<T>(g, 50);
    const std::vector<T> src = random_values<T>(g, 40);
    const T v = random_value<T>(g);
    const C same(src.begin(), src.end());
    const layout::vector<T, layout::policy::soa, failing_memory> soa_src(src.begin(), src.end());
    const layout::vector<T, layout::policy::aosoa<3>, failing_memory> blocks_src(src.begin(),
                                                                                 src.end());
    const layout::vector<T, layout::policy::aos> host_src(src.begin(), src.end());
    const auto attempt = [&](const char* what, auto op, const std::vector<T>& want) {
        SCOPED_TRACE(what);
        C c(init.begin(), init.end());
        const std::size_t capacity = c.capacity();
        failing_memory::arm(1); // the first allocation throws
        EXPECT_NO_THROW(op(c));
        failing_memory::disarm();
        EXPECT_EQ(failing_memory::calls, 0);
        EXPECT_EQ(c.capacity(), capacity);
        EXPECT_TRUE(container_matches(c, want));
    };
    attempt(
        "copy assignment", [&](C& c) { c = same; }, src);
    attempt(
        "from SoA", [&](C& c) { c = soa_src; }, src);
    attempt(
        "from AoSoA<3>", [&](C& c) { c = blocks_src; }, src);
    attempt(
        "from another memory space", [&](C& c) { c = host_src; }, src);
    attempt(
        "assign(n, value)", [&](C& c) { c.assign(45, v); }, std::vector<T>(45, v));
    attempt(
        "initializer list",
        [&](C& c) {
            c = {v, src[3]};
        },
        std::vector<T>{v, src[3]});
    attempt(
        "assign(initializer list)",
        [&](C& c) {
            c.assign({src[1], v, v});
        },
        std::vector<T>{src[1], v, v});
    attempt(
        "growing within capacity",
        [&](C& c) {
            c.resize(10);
            c = same;
        },
        src);
    attempt(
        "self-assignment",
        [&](C& c) {
            const C& alias = c;
            c = alias;
        },
        init);
}

/// Constructors that fail leave nothing behind: the source is unchanged and no block leaks.
TYPED_TEST(allocation_failure, constructors_do_not_leak) {
    using T = Particle;
    using C = failing_container<TypeParam, T>;
    std::mt19937 g(2);
    const std::vector<T> init = random_values<T>(g, 70);
    const C source(init.begin(), init.end());
    const layout::vector<T, layout::policy::soa, failing_memory> soa_source(init.begin(),
                                                                            init.end());
    const layout::vector<T, layout::policy::aosoa<32>, failing_memory> blocks_source(init.begin(),
                                                                                     init.end());
    const auto attempt = [&](const char* what, auto construct) {
        SCOPED_TRACE(what);
        for (long n = 1; n < 5; ++n) {
            const long live = failing_memory::live;
            failing_memory::arm(n);
            bool threw = false;
            try {
                const C c = construct();
                EXPECT_TRUE(container_matches(c, init));
            } catch (const std::bad_alloc&) {
                threw = true;
            }
            failing_memory::disarm();
            EXPECT_EQ(failing_memory::live, live) << "allocation " << n << ": a block leaked";
            if (!threw) break;
        }
    };
    attempt("copy construction", [&] { return C(source); });
    attempt("converting construction from SoA", [&] { return C(soa_source); });
    attempt("converting construction from AoSoA<32>", [&] { return C(blocks_source); });
    attempt("from a std::vector range", [&] { return C(init.begin(), init.end()); });
    attempt("count and value", [&] {
        C c(init.size(), init[0]);
        for (std::size_t i = 0; i < init.size(); ++i) c[i] = init[i];
        return c;
    });
    EXPECT_TRUE(container_matches(source, init));
    EXPECT_TRUE(container_matches(soa_source, init));
    EXPECT_TRUE(container_matches(blocks_source, init));
}

/// A single-pass iterator over an array.
template <class T>
class input_only {
public:
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::input_iterator_tag;
    input_only() = default;
    input_only(const T** cursor, const T* end) : cursor_(cursor), end_(end) {}
    T operator*() const { return **cursor_; }
    input_only& operator++() {
        ++*cursor_;
        return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const input_only& a, std::default_sentinel_t) {
        return *a.cursor_ == a.end_;
    }

private:
    const T** cursor_ = nullptr;
    const T* end_ = nullptr;
};

/// Construction from an input-only range grows by push_back; when a later growth fails, the
/// blocks of the partly built container must be freed.
TYPED_TEST(allocation_failure, input_range_constructor_does_not_leak) {
    using T = Particle;
    using C = failing_container<TypeParam, T>;
    std::mt19937 g(3);
    const std::vector<T> init = random_values<T>(g, 100);
    for (long n = 1; n < 20; ++n) {
        const T* cursor = init.data();
        failing_memory::arm(n);
        bool threw = false;
        try {
            const C c(input_only<T>(&cursor, init.data() + init.size()), std::default_sentinel);
            EXPECT_TRUE(container_matches(c, init));
        } catch (const std::bad_alloc&) {
            threw = true;
        }
        failing_memory::disarm();
        ASSERT_EQ(failing_memory::live, 0) << "allocation " << n << " failed: a block leaked";
        if (!threw) break;
    }
}

/// shrink_to_fit on a container that is already as small as its layout allows does nothing:
/// no allocation (which could throw) and no copy. Under AoSoA the capacity is a whole number of
/// blocks, so "as small as it gets" is size rounded up to the lanes, not size itself.
TYPED_TEST(allocation_failure, shrink_to_fit_when_tight_does_not_allocate) {
    using C = failing_container<TypeParam, Particle>;
    for (std::size_t n : {0u, 1u, 5u, 33u, 96u}) {
        C c(n);
        c.shrink_to_fit();
        const std::size_t capacity = c.capacity();
        failing_memory::arm(1000);
        c.shrink_to_fit();
        failing_memory::disarm();
        EXPECT_EQ(failing_memory::calls, 0) << "n = " << n << ", capacity " << capacity;
        EXPECT_EQ(c.capacity(), capacity);
    }
}

/// What max_size() promises: a larger request throws std::length_error, changing nothing.
TYPED_TEST(allocation_failure, length_error_past_max_size) {
    using C = failing_container<TypeParam, Particle>;
    C c(10);
    const std::size_t capacity = c.capacity();
    EXPECT_THROW(c.reserve(C::max_size() + 1), std::length_error);
    EXPECT_THROW(c.resize(C::max_size() + 1), std::length_error);
    EXPECT_THROW(c.insert(c.begin(), C::max_size(), Particle{}), std::length_error);
    EXPECT_EQ(c.size(), 10u);
    EXPECT_EQ(c.capacity(), capacity);
}

/// Runs statement in a child process and exits 0 if it threw std::length_error, 1 for another
/// exception, 2 if it returned: a size computation that wraps around can crash instead, and
/// that must fail the test, not the test program.
#define EXPECT_LENGTH_ERROR_IN_CHILD(statement)                                                    \
    EXPECT_EXIT(                                                                                   \
        {                                                                                          \
            try {                                                                                  \
                statement;                                                                         \
            } catch (const std::length_error&) {                                                   \
                std::exit(0);                                                                      \
            } catch (...) {                                                                        \
                std::exit(1);                                                                      \
            }                                                                                      \
            std::exit(2);                                                                          \
        },                                                                                         \
        ::testing::ExitedWithCode(0), "")

/// Like std::vector, the count constructor and insert(pos, count, value) check the size against
/// max_size(). Without that check, n * sizeof(T) wraps around: vector(1 << 60) of 32-byte
/// elements asks for 0 bytes and fills through a null pointer; insert of a count near SIZE_MAX
/// makes size + count wrap and moves elements before the start of the block.
/// A count the optimizer cannot see: with a constant, g++ warns (as an error) about the fill loop
/// the length check never lets run.
std::size_t opaque(std::size_t n) {
    volatile std::size_t hidden = n;
    return hidden;
}

TYPED_TEST(allocation_failure, counts_past_max_size_throw_length_error) {
    using C = failing_container<TypeParam, Particle>;
    EXPECT_LENGTH_ERROR_IN_CHILD(C c(C::max_size() + 1));
    EXPECT_LENGTH_ERROR_IN_CHILD(C c(opaque(std::size_t{1} << 60)));
    EXPECT_LENGTH_ERROR_IN_CHILD(C c(opaque(std::size_t{1} << 60), Particle{}));
    EXPECT_LENGTH_ERROR_IN_CHILD({
        C c(10);
        c.insert(c.begin(), opaque(std::size_t(-1) - 5), Particle{});
    });
    EXPECT_LENGTH_ERROR_IN_CHILD({
        C c(10);
        c.resize(opaque(std::size_t(-1)));
    });
}

} // namespace
