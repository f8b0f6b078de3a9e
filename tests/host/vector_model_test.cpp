// layout::vector against a std::vector model: every container operation, on randomized
// operation sequences with fixed seeds, under every (element type, layout) pair. After every
// step the whole container is compared with the model, through operator[] and through
// iterators.

#include "test_types.hpp"

#include <algorithm>
#include <iterator>
#include <list>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace layout_test;

/// A single-pass iterator over an array (like std::istream_iterator): copies share one read
/// position, *it returns a value, and it is an input iterator and nothing more. Ends at a
/// std::default_sentinel_t, or at a default-constructed input_only (the classic pair form).
template <class T>
class input_only {
public:
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = T;
    using pointer = void;
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;

    input_only() = default;
    input_only(const T** cursor, const T* end) : cursor_(cursor), end_(end) {}

    T operator*() const { return **cursor_; }
    input_only& operator++() {
        ++*cursor_;
        return *this;
    }
    void operator++(int) { ++*this; }

    bool at_end() const { return cursor_ == nullptr || *cursor_ == end_; }
    friend bool operator==(const input_only& a, std::default_sentinel_t) { return a.at_end(); }
    friend bool operator==(const input_only& a, const input_only& b) {
        return a.at_end() == b.at_end();
    }

private:
    const T** cursor_ = nullptr;
    const T* end_ = nullptr;
};

static_assert(std::input_iterator<input_only<Particle>>);
static_assert(!std::forward_iterator<input_only<Particle>>);
static_assert(std::sentinel_for<std::default_sentinel_t, input_only<Particle>>);

/// Emplaces the top-level fields of value as separate arguments: emplace_back(pos, vel, id, ...).
template <class C, class T>
auto emplace_fields(C& c, const T& value) {
    return std::apply([&](const auto&... field) { return c.emplace_back(field...); },
                      fields(value));
}

/// begin, middle, end, or anywhere: insertion and erasure positions in [0, size].
std::size_t pick_position(std::mt19937& g, std::size_t size) {
    switch (random_int(g, 0, 3)) {
    case 0:
        return 0;
    case 1:
        return size / 2;
    case 2:
        return size;
    default:
        return static_cast<std::size_t>(random_int(g, 0, static_cast<int>(size)));
    }
}

template <class C>
class vector_model : public ::testing::Test {};
TYPED_TEST_SUITE(vector_model, all_combos, combo_names);

TYPED_TEST(vector_model, traits) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    static_assert(std::is_same_v<typename C::value_type, T>);
    static_assert(std::is_nothrow_move_constructible_v<C>);
    static_assert(std::is_nothrow_move_assignable_v<C>);
    static_assert(std::is_nothrow_default_constructible_v<C>);
    static_assert(std::is_copy_constructible_v<C> && std::is_copy_assignable_v<C>);
    static_assert(noexcept(std::declval<C&>().swap(std::declval<C&>())));
    static_assert(!std::is_convertible_v<std::size_t, C>, "vector(n) must be explicit");
    static_assert(std::is_same_v<decltype(std::declval<const C&>().size()), std::size_t>);
    EXPECT_GE(C::max_size(), std::size_t{1} << 40);
}

TYPED_TEST(vector_model, constructors) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(7);

    {
        const C c;
        EXPECT_TRUE(c.empty());
        EXPECT_EQ(c.size(), 0u);
        EXPECT_TRUE(container_matches(c, std::vector<T>{}));
        EXPECT_TRUE(c.begin() == c.end());
    }
    for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 31u, 32u, 33u, 100u}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        // count: value-initialized, like std::vector<T>(n)
        EXPECT_TRUE(container_matches(C(n), std::vector<T>(n)));
        // count + value
        const T value = random_value<T>(g);
        EXPECT_TRUE(container_matches(C(n, value), std::vector<T>(n, value)));

        const std::vector<T> values = random_values<T>(g, n);
        // iterator range from a std::vector (random access)
        EXPECT_TRUE(container_matches(C(values.begin(), values.end()), values));
        // a contiguous range, and a view of another layout: one copy each
        EXPECT_TRUE(container_matches(C(std::span<const T>(values)), values));
        const layout::soa_vector<T> other(values.begin(), values.end());
        EXPECT_TRUE(container_matches(C(other.cview()), values));
        // from a std::list (bidirectional, so only forward traversal is known in advance)
        const std::list<T> list(values.begin(), values.end());
        EXPECT_TRUE(container_matches(C(list.begin(), list.end()), values));
        // from an input-only iterator, with a sentinel and with an end iterator
        {
            const T* cursor = values.data();
            input_only<T> first(&cursor, values.data() + values.size());
            EXPECT_TRUE(container_matches(C(first, std::default_sentinel), values));
            EXPECT_EQ(cursor, values.data() + values.size()) << "read every value once";
        }
        {
            const T* cursor = values.data();
            input_only<T> first(&cursor, values.data() + values.size());
            EXPECT_TRUE(container_matches(C(first, input_only<T>()), values));
        }
        // from another container's iterators (proxy references), in another layout
        const layout::soa_vector<T> soa(values.begin(), values.end());
        EXPECT_TRUE(container_matches(C(soa.begin(), soa.end()), values));
        const C same(values.begin(), values.end());
        EXPECT_TRUE(container_matches(C(same.begin(), same.end()), values));
    }
    {
        const T a = random_value<T>(g), b = random_value<T>(g), c = random_value<T>(g);
        const C list{a, b, c};
        EXPECT_TRUE(container_matches(list, std::vector<T>{a, b, c}));
        const C one{a};
        EXPECT_TRUE(container_matches(one, std::vector<T>{a}));
        C assigned;
        assigned = {c, b};
        EXPECT_TRUE(container_matches(assigned, std::vector<T>{c, b}));
    }
}

TYPED_TEST(vector_model, resize_value_initializes_reused_slots) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(11);
    const std::vector<T> values = random_values<T>(g, 40);
    C c(values.begin(), values.end());
    std::vector<T> m = values;
    c.resize(5);
    m.resize(5);
    ASSERT_TRUE(container_matches(c, m));
    const std::size_t capacity = c.capacity();
    EXPECT_GE(capacity, 40u) << "shrinking resize does not release memory";
    c.resize(30); // inside the capacity: slots 5..29 still hold the old values
    m.resize(30);
    ASSERT_TRUE(container_matches(c, m));
    EXPECT_EQ(c.capacity(), capacity);
    c.resize(3);
    m.resize(3);
    const T value = random_value<T>(g);
    c.resize(35, value);
    m.resize(35, value);
    ASSERT_TRUE(container_matches(c, m));
    c.resize(80); // past the capacity
    m.resize(80);
    ASSERT_TRUE(container_matches(c, m));
}

TYPED_TEST(vector_model, reserve_shrink_clear) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(13);
    C c;
    std::vector<T> m;
    c.reserve(0);
    EXPECT_TRUE(container_matches(c, m));
    c.reserve(100);
    EXPECT_GE(c.capacity(), 100u);
    EXPECT_TRUE(container_matches(c, m));
    const std::size_t capacity = c.capacity();
    for (int i = 0; i < 100; ++i) {
        m.push_back(random_value<T>(g));
        c.push_back(m.back());
        ASSERT_EQ(c.capacity(), capacity) << "push_back within the reserved capacity reallocated";
    }
    EXPECT_TRUE(container_matches(c, m));
    c.reserve(10); // smaller: no effect
    EXPECT_EQ(c.capacity(), capacity);
    EXPECT_TRUE(container_matches(c, m));
    c.erase(c.begin() + 10, c.end());
    m.erase(m.begin() + 10, m.end());
    c.shrink_to_fit();
    EXPECT_GE(c.capacity(), c.size());
    EXPECT_LT(c.capacity(), capacity);
    EXPECT_TRUE(container_matches(c, m));
    c.clear();
    m.clear();
    EXPECT_TRUE(container_matches(c, m));
    EXPECT_GE(c.capacity(), 10u) << "clear keeps the capacity";
    c.shrink_to_fit();
    EXPECT_TRUE(container_matches(c, m));
    EXPECT_THROW(c.reserve(C::max_size() + 1), std::length_error);
    EXPECT_TRUE(container_matches(c, m));
}

TYPED_TEST(vector_model, insert_at_begin_middle_end) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(17);
    for (int where = 0; where < 3; ++where) {
        for (int kind = 0; kind < 6; ++kind) {
            SCOPED_TRACE("where " + std::to_string(where) + ", kind " + std::to_string(kind));
            std::vector<T> m = random_values<T>(g, static_cast<std::size_t>(random_int(g, 0, 9)));
            C c(m.begin(), m.end());
            const std::size_t at = where == 0 ? 0 : where == 1 ? m.size() / 2 : m.size();
            const std::vector<T> src = random_values<T>(g, 3);
            const std::list<T> list(src.begin(), src.end());
            typename C::iterator it;
            switch (kind) {
            case 0:
                it = c.insert(c.begin() + static_cast<std::ptrdiff_t>(at), src[0]);
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), src[0]);
                break;
            case 1:
                it = c.insert(c.cbegin() + static_cast<std::ptrdiff_t>(at), 3, src[1]);
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), 3, src[1]);
                break;
            case 2:
                it = c.insert(c.begin() + static_cast<std::ptrdiff_t>(at), src.begin(), src.end());
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), src.begin(), src.end());
                break;
            case 3:
                it =
                    c.insert(c.begin() + static_cast<std::ptrdiff_t>(at), list.begin(), list.end());
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), list.begin(), list.end());
                break;
            case 4: {
                const T* cursor = src.data();
                it = c.insert(c.begin() + static_cast<std::ptrdiff_t>(at),
                              input_only<T>(&cursor, src.data() + src.size()),
                              std::default_sentinel);
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), src.begin(), src.end());
                break;
            }
            default:
                it = c.insert(c.begin() + static_cast<std::ptrdiff_t>(at), {src[2], src[0]});
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), {src[2], src[0]});
                break;
            }
            EXPECT_EQ(it - c.begin(), static_cast<std::ptrdiff_t>(at));
            EXPECT_TRUE(container_matches(c, m));
        }
    }
}

TYPED_TEST(vector_model, at_front_back) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(19);
    const std::vector<T> m = random_values<T>(g, 10);
    C c(m.begin(), m.end());
    const C& cc = c;
    for (std::size_t i = 0; i < m.size(); ++i) {
        EXPECT_TRUE(same(T(c.at(i)), m[i]));
        EXPECT_TRUE(same(T(cc.at(i)), m[i]));
    }
    EXPECT_THROW((void)c.at(10), std::out_of_range);
    EXPECT_THROW((void)cc.at(10), std::out_of_range);
    EXPECT_THROW((void)c.at(std::size_t(-1)), std::out_of_range);
    EXPECT_TRUE(same(T(c.front()), m.front()));
    EXPECT_TRUE(same(T(c.back()), m.back()));
    EXPECT_TRUE(same(T(cc.front()), m.front()));
    EXPECT_TRUE(same(T(cc.back()), m.back()));
    const T value = random_value<T>(g);
    c.front() = value;
    c.back() = value;
    c.at(4) = value;
    std::vector<T> expected = m;
    expected.front() = expected.back() = expected[4] = value;
    EXPECT_TRUE(container_matches(c, expected));
    const C empty;
    EXPECT_THROW((void)empty.at(0), std::out_of_range);
}

TYPED_TEST(vector_model, equality) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    std::mt19937 g(23);
    const std::vector<T> m = random_values<T>(g, 33);
    const C a(m.begin(), m.end());
    C b = a;
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a != b);
    b.reserve(1000); // capacity does not matter
    EXPECT_TRUE(a == b);
    b[32] = random_value<T>(g);
    EXPECT_FALSE(a == b);
    EXPECT_TRUE(a != b);
    b = a;
    b.pop_back();
    EXPECT_FALSE(a == b);
    EXPECT_TRUE(C() == C());
    EXPECT_FALSE(a == C());
    // Across layouts.
    const layout::aos_vector<T> aos(m.begin(), m.end());
    const layout::aosoa<T, 3> blocks(m.begin(), m.end());
    EXPECT_TRUE(a == aos);
    EXPECT_TRUE(aos == a);
    EXPECT_TRUE(a == blocks);
    EXPECT_FALSE(b == aos);
    // Leafwise: one leaf differs.
    C c = a;
    c[5] = random_value<T>(g);
    EXPECT_FALSE(a == c);
}

/// The randomized sequence: a few thousand operations per seed, each applied to the container
/// and to the model, then the whole container compared with the model.
TYPED_TEST(vector_model, random_operations) {
    using C = typename TypeParam::container;
    using T = typename TypeParam::value_type;
    using diff = std::ptrdiff_t;
    constexpr int steps = 1500;

    for (unsigned seed : {1u, 2u, 3u}) {
        std::mt19937 g(seed);
        C c;
        std::vector<T> m;
        C other(random_values<T>(g, 5).size()); // a second container for swaps
        std::vector<T> other_m(5);
        int counts[32] = {};

        for (int step = 0; step < steps; ++step) {
            // Bias toward removal when large, so sizes wander over 0..~250.
            int op = random_int(g, 0, 31);
            if (m.size() > 250 && op < 12) op = 12 + op % 4;
            ++counts[op];
            const std::size_t n = m.size();
            std::string what;
            switch (op) {
            case 0:
            case 1: {
                what = "push_back";
                const T v = random_value<T>(g);
                c.push_back(v);
                m.push_back(v);
                break;
            }
            case 2: {
                what = "push_back of its own element";
                if (n == 0) break;
                const std::size_t j = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                c.push_back(c[j]);
                m.push_back(T(m[j]));
                break;
            }
            case 3: {
                what = "emplace_back(fields...)";
                const T v = random_value<T>(g);
                const T back = emplace_fields(c, v);
                m.push_back(v);
                if (!same(back, v)) ADD_FAILURE() << "emplace_back returned " << back;
                break;
            }
            case 4: {
                what = "emplace_back()";
                c.emplace_back();
                m.emplace_back();
                break;
            }
            case 5:
            case 6: {
                what = "pop_back";
                if (n == 0) break;
                c.pop_back();
                m.pop_back();
                break;
            }
            case 7: {
                const std::size_t at = pick_position(g, n);
                what = "insert(" + std::to_string(at) + ", value)";
                const T v = random_value<T>(g);
                const auto it = c.insert(c.begin() + diff(at), v);
                m.insert(m.begin() + diff(at), v);
                if (it - c.begin() != diff(at)) ADD_FAILURE() << "insert returned the wrong place";
                break;
            }
            case 8: {
                const std::size_t at = pick_position(g, n);
                const std::size_t count = static_cast<std::size_t>(random_int(g, 0, 6));
                what = "insert(" + std::to_string(at) + ", " + std::to_string(count) + ", value)";
                const T v = random_value<T>(g);
                const auto it = c.insert(c.cbegin() + diff(at), count, v);
                m.insert(m.begin() + diff(at), count, v);
                if (it - c.begin() != diff(at)) ADD_FAILURE() << "insert returned the wrong place";
                break;
            }
            case 9: {
                const std::size_t at = pick_position(g, n);
                const auto src = random_values<T>(g, static_cast<std::size_t>(random_int(g, 0, 7)));
                what = "insert(" + std::to_string(at) + ", vector range of " +
                       std::to_string(src.size()) + ")";
                const auto it = c.insert(c.begin() + diff(at), src.begin(), src.end());
                m.insert(m.begin() + diff(at), src.begin(), src.end());
                if (it - c.begin() != diff(at)) ADD_FAILURE() << "insert returned the wrong place";
                break;
            }
            case 10: {
                const std::size_t at = pick_position(g, n);
                const auto src = random_values<T>(g, static_cast<std::size_t>(random_int(g, 0, 7)));
                const std::list<T> list(src.begin(), src.end());
                what = "insert(" + std::to_string(at) + ", list range of " +
                       std::to_string(src.size()) + ")";
                c.insert(c.begin() + diff(at), list.begin(), list.end());
                m.insert(m.begin() + diff(at), src.begin(), src.end());
                break;
            }
            case 11: {
                const std::size_t at = pick_position(g, n);
                const auto src = random_values<T>(g, static_cast<std::size_t>(random_int(g, 0, 7)));
                what = "insert(" + std::to_string(at) + ", input-only range of " +
                       std::to_string(src.size()) + ")";
                const T* cursor = src.data();
                c.insert(c.begin() + diff(at), input_only<T>(&cursor, src.data() + src.size()),
                         input_only<T>());
                m.insert(m.begin() + diff(at), src.begin(), src.end());
                break;
            }
            case 12:
            case 13: {
                what = "erase(pos)";
                if (n == 0) break;
                const std::size_t at = std::min(pick_position(g, n), n - 1);
                what = "erase(" + std::to_string(at) + ")";
                const auto it = c.erase(c.begin() + diff(at));
                m.erase(m.begin() + diff(at));
                if (it - c.begin() != diff(at)) ADD_FAILURE() << "erase returned the wrong place";
                break;
            }
            case 14:
            case 15: {
                const std::size_t a = pick_position(g, n);
                const std::size_t b =
                    a + static_cast<std::size_t>(random_int(g, 0, static_cast<int>(n - a)));
                what = "erase(" + std::to_string(a) + ", " + std::to_string(b) + ")";
                const auto it = c.erase(c.cbegin() + diff(a), c.cbegin() + diff(b));
                m.erase(m.begin() + diff(a), m.begin() + diff(b));
                if (it - c.begin() != diff(a)) ADD_FAILURE() << "erase returned the wrong place";
                break;
            }
            case 16: {
                const std::size_t size = static_cast<std::size_t>(random_int(g, 0, int(n) + 40));
                what = "resize(" + std::to_string(size) + ")";
                c.resize(size);
                m.resize(size);
                break;
            }
            case 17: {
                const std::size_t size = static_cast<std::size_t>(random_int(g, 0, int(n) + 40));
                what = "resize(" + std::to_string(size) + ", value)";
                const T v = random_value<T>(g);
                c.resize(size, v);
                m.resize(size, v);
                break;
            }
            case 18: {
                const std::size_t cap = static_cast<std::size_t>(random_int(g, 0, int(n) + 100));
                what = "reserve(" + std::to_string(cap) + ")";
                const std::size_t before = c.capacity();
                c.reserve(cap);
                if (c.capacity() < cap) ADD_FAILURE() << "reserve did not reserve";
                if (cap <= before && c.capacity() != before)
                    ADD_FAILURE() << "reserve(" << cap << ") changed capacity " << before;
                break;
            }
            case 19: {
                what = "shrink_to_fit";
                c.shrink_to_fit();
                break;
            }
            case 20: {
                what = "clear";
                if (random_int(g, 0, 3) != 0) break; // rarely
                c.clear();
                m.clear();
                break;
            }
            case 21: {
                what = "swap";
                if (random_int(g, 0, 1) == 0)
                    c.swap(other);
                else
                    swap(c, other);
                m.swap(other_m);
                if (!container_matches(other, other_m)) ADD_FAILURE() << "swapped-out side";
                break;
            }
            case 22: {
                what = "copy construction, then copy assignment back";
                C copy(c);
                if (!container_matches(copy, m)) ADD_FAILURE() << "copy";
                copy.push_back(random_value<T>(g)); // deep: c must not change
                if (!container_matches(c, m)) ADD_FAILURE() << "copy shares storage";
                copy.pop_back();
                C target(3);
                target = copy;
                if (!container_matches(target, m)) ADD_FAILURE() << "copy assignment";
                c = target;
                const C& alias = c;
                c = alias; // self-assignment
                break;
            }
            case 23: {
                what = "move construction and move assignment";
                C moved(std::move(c));
                if (!container_matches(moved, m)) ADD_FAILURE() << "move construction";
                c = C(2); // the moved-from container is usable
                c = std::move(moved);
                break;
            }
            case 24: {
                what = "copy assignment to the other container";
                other = c;
                other_m = m;
                if (!container_matches(other, other_m)) ADD_FAILURE() << "other";
                break;
            }
            case 25:
            case 26: {
                what = "store through operator[]";
                if (n == 0) break;
                const std::size_t j = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                const T v = random_value<T>(g);
                c[j] = v;
                m[j] = v;
                break;
            }
            case 27: {
                what = "element copy c[i] = c[j]";
                if (n == 0) break;
                const std::size_t i = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                const std::size_t j = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                c[i] = c[j];
                m[i] = m[j];
                break;
            }
            case 28: {
                what = "at, front, back";
                if (n > 0) {
                    const std::size_t j = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                    if (!same(T(c.at(j)), m.at(j))) ADD_FAILURE() << "at(" << j << ")";
                    if (!same(T(c.front()), m.front())) ADD_FAILURE() << "front";
                    if (!same(T(c.back()), m.back())) ADD_FAILURE() << "back";
                }
                const std::size_t k = n + static_cast<std::size_t>(random_int(g, 0, 3));
                bool threw = false;
                try {
                    (void)c.at(k);
                } catch (const std::out_of_range&) {
                    threw = true;
                }
                if (!threw) ADD_FAILURE() << "at(" << k << ") did not throw";
                break;
            }
            case 29: {
                what = "equality";
                const C copy(m.begin(), m.end());
                if (!(c == copy) || c != copy) ADD_FAILURE() << "equal containers compare unequal";
                if (n > 0) {
                    C changed = c;
                    changed.pop_back();
                    if (c == changed) ADD_FAILURE() << "shorter container compares equal";
                }
                break;
            }
            case 30: {
                what = "insert a range of its own elements";
                if (n == 0) break;
                const std::size_t a = static_cast<std::size_t>(random_int(g, 0, int(n) - 1));
                const std::size_t b =
                    std::min(n, a + static_cast<std::size_t>(random_int(g, 0, 5)));
                const std::size_t at = pick_position(g, n);
                what = "insert(" + std::to_string(at) + ", own [" + std::to_string(a) + ", " +
                       std::to_string(b) + "))";
                c.insert(c.begin() + diff(at), c.begin() + diff(a), c.begin() + diff(b));
                const std::vector<T> src(m.begin() + diff(a), m.begin() + diff(b));
                m.insert(m.begin() + diff(at), src.begin(), src.end());
                break;
            }
            default: {
                what = "insert initializer_list";
                const std::size_t at = pick_position(g, n);
                const T v0 = random_value<T>(g), v1 = random_value<T>(g);
                const auto it = c.insert(c.begin() + diff(at), {v0, v1, v0});
                m.insert(m.begin() + diff(at), {v0, v1, v0});
                if (it - c.begin() != diff(at)) ADD_FAILURE() << "insert returned the wrong place";
                break;
            }
            }
            ASSERT_TRUE(container_matches(c, m))
                << "seed " << seed << ", step " << step << ": after " << what;
        }
        for (int op = 0; op < 32; ++op)
            EXPECT_GT(counts[op], 0) << "operation " << op << " never ran";
    }
}

// ---- assignment reuses capacity -----------------------------------------------------------------

} // namespace

namespace layout_test {

/// Host memory that counts the blocks it hands out: an assignment that fits in the destination's
/// capacity must not allocate at all, as with std::vector. (Outside the anonymous namespace: a
/// memory space's device_accessible is read by no code here, and clang flags an unused constant.)
struct counting_memory : layout::host_memory {
    static inline long allocations = 0;

    struct resource : layout::host_resource {
        void* allocate(std::size_t bytes, std::size_t alignment) {
            ++allocations;
            return host_resource::allocate(bytes, alignment);
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

/// dst = src for a destination of C's layout and a source of each layout (in counting_memory,
/// and in plain host memory for the cross-space path), on random data of sizes up to the
/// destination's capacity and then past it. Within capacity: no allocation, the capacity
/// unchanged, the contents equal to a std::vector model's after the same assignment.
template <class C, class SrcLayout>
void check_assignment_from(std::mt19937& g) {
    using T = typename C::value_type;
    using dst_type = layout::vector<T, typename C::policy, counting_memory>;
    using src_type = layout::vector<T, typename SrcLayout::policy, counting_memory>;
    using host_src_type = layout::vector<T, typename SrcLayout::policy>;
    SCOPED_TRACE("from " + SrcLayout::name());

    std::vector<T> model = random_values<T>(g, 20);
    dst_type dst(model.begin(), model.end());
    dst.reserve(70);
    const std::size_t capacity = dst.capacity();
    for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{45}, capacity}) {
        const std::vector<T> values = random_values<T>(g, n);
        const src_type src(values.begin(), values.end());
        const host_src_type host_src(values.begin(), values.end());
        const long before = counting_memory::allocations;
        dst = src;
        model = values;
        EXPECT_EQ(counting_memory::allocations, before) << "n = " << n;
        EXPECT_EQ(dst.capacity(), capacity) << "n = " << n;
        ASSERT_TRUE(container_matches(dst, model)) << "n = " << n;
        dst = dst_type(); // shrink to nothing: the next assignment must not see stale elements
        dst.reserve(capacity);
        const long reserved = counting_memory::allocations;
        dst = host_src;
        EXPECT_EQ(counting_memory::allocations, reserved) << "from host memory, n = " << n;
        ASSERT_TRUE(container_matches(dst, model)) << "from host memory, n = " << n;
    }
    // Past capacity: one new block, and the model's contents.
    const std::vector<T> more = random_values<T>(g, capacity + 5);
    const src_type big(more.begin(), more.end());
    const long before = counting_memory::allocations;
    dst = big;
    EXPECT_EQ(counting_memory::allocations, before + 1);
    EXPECT_GE(dst.capacity(), more.size());
    EXPECT_TRUE(container_matches(dst, more));
}

template <class C, class... SrcLayouts>
void check_assignment_from_each(std::mt19937& g, ::testing::Types<SrcLayouts...>) {
    (check_assignment_from<C, SrcLayouts>(g), ...);
}

TYPED_TEST(vector_model, assignment_reuses_capacity_from_every_layout) {
    std::mt19937 g(11);
    check_assignment_from_each<TypeParam>(g, all_layouts{});
}

TYPED_TEST(vector_model, copy_assign_fill_and_list_reuse_capacity) {
    using T = typename TypeParam::value_type;
    using C = layout::vector<T, typename TypeParam::policy, counting_memory>;
    std::mt19937 g(12);
    std::vector<T> model = random_values<T>(g, 60);
    C c(model.begin(), model.end());
    const std::size_t capacity = c.capacity();
    const long before = counting_memory::allocations;

    // Same-type copy assignment, smaller then larger (within capacity).
    for (std::size_t n : {std::size_t{9}, std::size_t{60}}) {
        const std::vector<T> values = random_values<T>(g, n);
        C other(values.begin(), values.end());
        const long made = counting_memory::allocations;
        c = other;
        model = values;
        EXPECT_EQ(counting_memory::allocations, made);
        ASSERT_TRUE(container_matches(c, model));
    }
    // Self-assignment: nothing changes.
    const C& alias = c;
    c = alias;
    ASSERT_TRUE(container_matches(c, model));

    // assign(n, value), value being one of the elements (AoS: a real T inside the block, which
    // the fill overwrites).
    if constexpr (std::is_same_v<typename TypeParam::policy, layout::policy::aos>) {
        const T kept = model[5];
        c.assign(50, c.data()[5]);
        model.assign(50, kept);
    } else {
        const T value = c[5];
        c.assign(50, value);
        model.assign(50, value);
    }
    ASSERT_TRUE(container_matches(c, model));

    const T a = random_value<T>(g), b = random_value<T>(g);
    c = {a, b, a};
    model = {a, b, a};
    ASSERT_TRUE(container_matches(c, model));
    c.assign({b, b});
    model.assign({b, b});
    ASSERT_TRUE(container_matches(c, model));

    EXPECT_EQ(counting_memory::allocations - before, 2) << "only the two sources allocate";
    EXPECT_EQ(c.capacity(), capacity);
}

// ---- the container's held pointers (issue 13, item 2) ------------------------------------------

template <class L>
class held_storage : public ::testing::Test {};
TYPED_TEST_SUITE(held_storage, all_layouts, layout_names);

/// The container keeps its view's pointers instead of recomputing them from the block per
/// access: after every operation that changes the block (growth, reserve, shrink_to_fit, swap,
/// move, assignment from a larger container), c[i], iterators, view() and a const view see
/// exactly the model's elements, and a view taken now has the pointers from_block gives.
TYPED_TEST(held_storage, pointers_follow_every_new_block) {
    using C = typename TypeParam::template container<Particle>;
    std::mt19937 g(21);
    auto values = random_values<Particle>(g, 300);
    auto expect_model = [](const C& c, const std::vector<Particle>& model, const char* after) {
        ASSERT_EQ(c.size(), model.size()) << after;
        const auto v = c.cview();
        std::size_t i = 0;
        for (const auto& e : c) {
            EXPECT_TRUE(same(static_cast<Particle>(e), model[i])) << after << ", element " << i;
            EXPECT_TRUE(same(static_cast<Particle>(c[i]), model[i])) << after;
            EXPECT_TRUE(same(static_cast<Particle>(v[i]), model[i])) << after;
            ++i;
        }
        EXPECT_EQ(i, model.size()) << after;
    };
    C c;
    std::vector<Particle> model;
    for (std::size_t k = 0; k < 100; ++k) { // growth: several reallocations
        c.push_back(values[k]);
        model.push_back(values[k]);
    }
    expect_model(c, model, "push_back");
    c.reserve(1000);
    expect_model(c, model, "reserve");
    for (std::size_t k = 0; k < 100; ++k) c[k] = values[100 + k]; // writes through c[i]
    std::copy(values.begin() + 100, values.begin() + 200, model.begin());
    expect_model(c, model, "writes");
    c.shrink_to_fit();
    expect_model(c, model, "shrink_to_fit");
    C other(values.begin() + 200, values.end());
    std::vector<Particle> other_model(values.begin() + 200, values.end());
    c.swap(other);
    std::swap(model, other_model);
    expect_model(c, model, "swap");
    expect_model(other, other_model, "swap (other)");
    C moved(std::move(other));
    expect_model(moved, other_model, "move construction");
    EXPECT_EQ(other.size(), 0u);
    other.push_back(values[0]); // the moved-from container's pointers are its own (none) again
    expect_model(other, {values[0]}, "push_back after move");
    c = std::move(moved);
    expect_model(c, other_model, "move assignment");
    C small(2);
    small = c; // larger than its capacity: a new block
    expect_model(small, other_model, "copy assignment");
}

} // namespace
