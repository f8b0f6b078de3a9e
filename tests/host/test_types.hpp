/// \file test_types.hpp
/// Element types, layouts and oracles shared by the container and view tests.
///
///     using combos = layout_test::all_combos;          // 3 element types x 7 layouts
///     TYPED_TEST_SUITE(my_suite, combos, layout_test::combo_names);
///     typename TypeParam::container v(10);             // e.g. layout::aosoa<Body, 3>
///     auto x = layout_test::random_value<Body>(rng);   // deterministic, exactly representable
///     EXPECT_TRUE(layout_test::same(Body(v[0]), x));   // leafwise, written out by hand
///
/// The oracles (tie, same, less) are written out field by field rather than through the
/// library or Boost.PFR, so that a reflection bug cannot hide itself in the expected values.
#pragma once

#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <numeric>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace layout_test {

// ---- element types ----------------------------------------------------------------------------

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

/// Leaves of different sizes: 8, 4, 1, 1, 2 bytes (offsets 0, 8, 12, 13, 14; size 16).
struct Mixed {
    double d;
    int i;
    char c;
    bool b;
    short s;
};

struct Vec3 {
    float x, y, z;
};

/// Nested struct, std::array of scalars, std::array of structs: 14 leaves.
struct Body {
    Vec3 pos;
    std::array<float, 3> vel;
    int id;
    std::array<Vec3, 2> pair;
    double w;
};

// ---- leafwise oracles ---------------------------------------------------------------------------

inline auto tie(const Particle& p) {
    return std::tie(p.x, p.y, p.z, p.vx, p.vy, p.vz, p.mass, p.charge);
}
inline auto tie(const Mixed& m) { return std::tie(m.d, m.i, m.c, m.b, m.s); }
inline auto tie(const Vec3& v) { return std::tie(v.x, v.y, v.z); }
inline auto tie(const Body& b) {
    return std::tie(b.pos.x, b.pos.y, b.pos.z, b.vel[0], b.vel[1], b.vel[2], b.id, b.pair[0].x,
                    b.pair[0].y, b.pair[0].z, b.pair[1].x, b.pair[1].y, b.pair[1].z, b.w);
}

/// The top-level fields (what T{...} takes without brace elision).
inline auto fields(const Particle& p) { return tie(p); }
inline auto fields(const Mixed& m) { return tie(m); }
inline auto fields(const Body& b) { return std::tie(b.pos, b.vel, b.id, b.pair, b.w); }

/// Leafwise equality (what the containers must preserve).
template <class T>
bool same(const T& a, const T& b) {
    return tie(a) == tie(b);
}

/// Lexicographic order over every leaf: a total order, so that any correct sort gives one result.
template <class T>
bool less(const T& a, const T& b) {
    return tie(a) < tie(b);
}

/// The first leaf: a sort key with ties (x, d, pos.x).
inline float key(const Particle& p) { return p.x; }
inline double key(const Mixed& m) { return m.d; }
inline float key(const Body& b) { return b.pos.x; }

template <class Tuple>
void print_tuple(std::ostream& os, const Tuple& t) {
    os << '{';
    std::apply(
        [&](const auto&... leaf) {
            const char* sep = "";
            ((os << sep << +leaf, sep = ", "), ...);
        },
        t);
    os << '}';
}

inline std::ostream& operator<<(std::ostream& os, const Particle& v) {
    print_tuple(os, tie(v));
    return os;
}
inline std::ostream& operator<<(std::ostream& os, const Mixed& v) {
    print_tuple(os, tie(v));
    return os;
}
inline std::ostream& operator<<(std::ostream& os, const Vec3& v) {
    print_tuple(os, tie(v));
    return os;
}
inline std::ostream& operator<<(std::ostream& os, const Body& v) {
    print_tuple(os, tie(v));
    return os;
}

template <class T>
std::string type_name();
template <>
inline std::string type_name<Particle>() {
    return "Particle";
}
template <>
inline std::string type_name<Mixed>() {
    return "Mixed";
}
template <>
inline std::string type_name<Body>() {
    return "Body";
}

// ---- random values --------------------------------------------------------------------------------

/// A float k/16 with |k| <= 16000: exactly representable, and x + v * 0.25f stays exact, so
/// that results computed in different orders or on the GPU (with FMA) compare bit for bit.
inline float random_float(std::mt19937& g) {
    return static_cast<float>(std::uniform_int_distribution<int>(-16000, 16000)(g)) / 16.0f;
}
inline double random_double(std::mt19937& g) {
    return static_cast<double>(std::uniform_int_distribution<int>(-1000000, 1000000)(g)) / 64.0;
}
inline int random_int(std::mt19937& g, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(g);
}

template <class T>
T random_value(std::mt19937& g);

template <>
inline Particle random_value<Particle>(std::mt19937& g) {
    Particle p;
    p.x = random_float(g);
    p.y = random_float(g);
    p.z = random_float(g);
    p.vx = random_float(g);
    p.vy = random_float(g);
    p.vz = random_float(g);
    p.mass = random_float(g);
    p.charge = random_float(g);
    return p;
}
template <>
inline Mixed random_value<Mixed>(std::mt19937& g) {
    Mixed m;
    m.d = random_double(g);
    m.i = random_int(g, -1000000000, 1000000000);
    m.c = static_cast<char>(random_int(g, -128, 127));
    m.b = random_int(g, 0, 1) == 1;
    m.s = static_cast<short>(random_int(g, -32768, 32767));
    return m;
}
template <>
inline Vec3 random_value<Vec3>(std::mt19937& g) {
    Vec3 v;
    v.x = random_float(g);
    v.y = random_float(g);
    v.z = random_float(g);
    return v;
}
template <>
inline Body random_value<Body>(std::mt19937& g) {
    Body b;
    b.pos = random_value<Vec3>(g);
    for (auto& v : b.vel) v = random_float(g);
    b.id = random_int(g, -1000000, 1000000);
    b.pair[0] = random_value<Vec3>(g);
    b.pair[1] = random_value<Vec3>(g);
    b.w = random_double(g);
    return b;
}

template <class T>
std::vector<T> random_values(std::mt19937& g, std::size_t n) {
    std::vector<T> values;
    values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) values.push_back(random_value<T>(g));
    return values;
}

/// count indices in [0, bound), uniformly (all 0 when bound is 0).
template <class I>
std::vector<I> random_indices(std::mt19937& g, std::size_t count, std::size_t bound) {
    std::vector<I> idx(count);
    if (bound == 0) return idx;
    std::uniform_int_distribution<std::size_t> pick(0, bound - 1);
    for (auto& i : idx) i = static_cast<I>(pick(g));
    return idx;
}

/// A random permutation of 0 .. n-1.
template <class I>
std::vector<I> random_permutation(std::mt19937& g, std::size_t n) {
    std::vector<I> p(n);
    std::iota(p.begin(), p.end(), I{0});
    std::shuffle(p.begin(), p.end(), g);
    return p;
}

/// Two std::vectors of elements, leafwise, naming the first difference.
template <class T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!same(got[i], want[i]))
            return ::testing::AssertionFailure()
                   << "element " << i << " is " << got[i] << ", want " << want[i];
    return ::testing::AssertionSuccess();
}

// ---- layouts and (layout, type) combinations --------------------------------------------------------

struct aos_layout {
    using policy = layout::policy::aos;
    template <class T>
    using container = layout::aos_vector<T>;
    static std::string name() { return "aos"; }
};
struct soa_layout {
    using policy = layout::policy::soa;
    template <class T>
    using container = layout::soa_vector<T>;
    static std::string name() { return "soa"; }
};
template <std::size_t N>
struct aosoa_layout {
    using policy = layout::policy::aosoa<N>;
    template <class T>
    using container = layout::aosoa<T, N>;
    static std::string name() { return "aosoa" + std::to_string(N); }
};

/// Hot and cold: field Key (whole, with its leaves) in First, the rest in Second (every test
/// type has at least two fields).
template <class First, class Second, std::size_t Key>
struct split_layout {
    using policy = layout::policy::split<First, Second, Key>;
    template <class T>
    using container = layout::vector<T, policy>;
    static std::string name() { return "split_" + First::name() + "_" + Second::name(); }
};
using split_aos_soa = split_layout<layout::policy::aos, layout::policy::soa, 0>;
using split_aosoa_aos = split_layout<layout::policy::aosoa<4>, layout::policy::aos, 1>;

template <class T, class Layout>
struct combo {
    using value_type = T;
    using layout_kind = Layout;
    using policy = typename Layout::policy;
    using container = typename Layout::template container<T>;
    using view = layout::view<T, policy>;
    using const_view = layout::view<const T, policy>;
};

#define LAYOUT_TEST_COMBOS_OF(T)                                                                   \
    ::layout_test::combo<T, ::layout_test::aos_layout>,                                            \
        ::layout_test::combo<T, ::layout_test::soa_layout>,                                        \
        ::layout_test::combo<T, ::layout_test::aosoa_layout<4>>,                                   \
        ::layout_test::combo<T, ::layout_test::aosoa_layout<32>>,                                  \
        ::layout_test::combo<T, ::layout_test::aosoa_layout<3>>,                                   \
        ::layout_test::combo<T, ::layout_test::split_aos_soa>,                                     \
        ::layout_test::combo<T, ::layout_test::split_aosoa_aos>

/// Every (element type, layout) pair.
using all_combos = ::testing::Types<LAYOUT_TEST_COMBOS_OF(Particle), LAYOUT_TEST_COMBOS_OF(Mixed),
                                    LAYOUT_TEST_COMBOS_OF(Body)>;

/// Test names such as `soa_Body` rather than `3`.
struct combo_names {
    template <class C>
    static std::string GetName(int) {
        return C::layout_kind::name() + "_" + type_name<typename C::value_type>();
    }
};

/// Every layout.
using all_layouts = ::testing::Types<aos_layout, soa_layout, aosoa_layout<4>, aosoa_layout<32>,
                                     aosoa_layout<3>, split_aos_soa, split_aosoa_aos>;

/// Test names such as `aosoa32` for suites over all_layouts.
struct layout_names {
    template <class L>
    static std::string GetName(int) {
        return L::name();
    }
};

// ---- comparison of a container or view with a std::vector model ----------------------------------

/// Size, every element through operator[] (whole-element load), and every element again through
/// iterators (begin() to end()), each compared leafwise with the model.
template <class Container, class T>
::testing::AssertionResult matches(const Container& c, const std::vector<T>& model) {
    if (c.size() != model.size())
        return ::testing::AssertionFailure()
               << "size " << c.size() << ", model size " << model.size();
    if (c.empty() != model.empty()) return ::testing::AssertionFailure() << "empty() is wrong";
    for (std::size_t i = 0; i < model.size(); ++i) {
        const T value = c[i];
        if (!same(value, model[i]))
            return ::testing::AssertionFailure()
                   << "operator[](" << i << ") is " << value << ", model " << model[i];
    }
    const auto distance = std::distance(c.begin(), c.end());
    if (distance != static_cast<std::ptrdiff_t>(model.size()))
        return ::testing::AssertionFailure() << "end() - begin() is " << distance;
    std::size_t i = 0;
    for (auto it = c.begin(); it != c.end(); ++it, ++i) {
        const T value = *it;
        if (!same(value, model[i]))
            return ::testing::AssertionFailure()
                   << "*(begin() + " << i << ") is " << value << ", model " << model[i];
    }
    return ::testing::AssertionSuccess();
}

/// matches() plus the container's own invariants: capacity() >= size().
template <class Container, class T>
::testing::AssertionResult container_matches(const Container& c, const std::vector<T>& model) {
    if (c.capacity() < c.size())
        return ::testing::AssertionFailure()
               << "capacity " << c.capacity() << " < size " << c.size();
    return matches(c, model);
}

/// One pass over c.view() (for large sizes: cheaper than matches() in unoptimized builds, where
/// each container operator[] rebuilds a view).
template <class Container, class T>
::testing::AssertionResult view_matches(const Container& c, const std::vector<T>& model) {
    const auto v = c.view();
    if (v.size() != model.size())
        return ::testing::AssertionFailure()
               << "size " << v.size() << ", model size " << model.size();
    std::size_t i = 0;
    for (auto&& ref : v) {
        const T value = ref;
        if (!same(value, model[i]))
            return ::testing::AssertionFailure()
                   << "element " << i << " is " << value << ", model " << model[i];
        ++i;
    }
    return ::testing::AssertionSuccess();
}

/// The elements of a container as a std::vector (whole-element loads).
template <class Container>
auto to_std(const Container& c) {
    std::vector<typename Container::value_type> out;
    out.reserve(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
        out.push_back(static_cast<typename Container::value_type>(c[i]));
    return out;
}

/// values in a container of memory space Memory (a host container in the same layout, copied on
/// stream), and a container's elements back on the host (through a host copy in the same layout:
/// bulk copies both ways, so the container's own bytes are what is compared). For test bodies
/// that run on containers of any memory space (tests/common/*_cases.hpp).
template <class T, class P, class Memory>
layout::vector<T, P, Memory> in_memory(const std::vector<T>& values, layout::stream_ref stream) {
    return layout::vector<T, P, Memory>(layout::vector<T, P>(values.begin(), values.end()), stream);
}
template <class T, class P, class Memory>
std::vector<T> elements(const layout::vector<T, P, Memory>& c) {
    return to_std(layout::vector<T, P>(c));
}

/// The same view moved by `by` elements (whole blocks under AoSoA), n elements long: pointer
/// arithmetic on the storage, as a user's hand-made view would do (overlapping-copy tests).
template <class T, class L>
layout::view<T, L> shifted(const layout::view<T, L>& v, std::ptrdiff_t by, std::size_t n) {
    auto s = v.storage();
    if constexpr (std::is_same_v<L, layout::policy::soa>) {
        for (std::size_t l = 0; l < layout::leaf_count_v<std::remove_const_t<T>>; ++l)
            s.columns[l] = static_cast<std::byte*>(s.columns[l]) +
                           by * static_cast<std::ptrdiff_t>(
                                    layout::detail::leaf_table<std::remove_const_t<T>>[l].size);
    } else if constexpr (std::is_same_v<L, layout::policy::aos>) {
        s.data += by;
    } else if constexpr (requires { typename L::first_layout; }) { // split: each part by itself
        using parts = typename layout::mapping<std::remove_const_t<T>, L>::parts;
        using first = layout::detail::copy_const_t<T, typename parts::first_type>;
        using second = layout::detail::copy_const_t<T, typename parts::second_type>;
        s.first =
            shifted(layout::view<first, typename L::first_layout>(s.first, n), by, n).storage();
        s.second =
            shifted(layout::view<second, typename L::second_layout>(s.second, n), by, n).storage();
    } else {
        s.data +=
            by / static_cast<std::ptrdiff_t>(L::lanes) *
            static_cast<std::ptrdiff_t>(layout::mapping<std::remove_const_t<T>, L>::block_bytes);
    }
    return layout::view<T, L>(s, n);
}

} // namespace layout_test
