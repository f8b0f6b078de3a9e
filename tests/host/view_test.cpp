// Views and element proxies under every layout: structured bindings, get by member pointer and
// by index, nested and std::array member proxies, whole-element load and store, read-only
// views, columns, views over memory the user owns, proxy swap and equality. Every write goes
// to a std::vector model too, and the container is compared with it.

#include "test_types.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace layout_test;

template <class L>
class views : public ::testing::Test {};
TYPED_TEST_SUITE(views, all_layouts, layout_names);

// ---- compile-time properties ------------------------------------------------------------------

template <class View>
constexpr bool is_handle_v = std::is_trivially_copyable_v<View> && std::is_standard_layout_v<View>;

template <class L>
constexpr bool handles_for_all_types() {
    using P = typename L::policy;
    return is_handle_v<layout::view<Particle, P>> && is_handle_v<layout::view<const Particle, P>> &&
           is_handle_v<layout::view<Mixed, P>> && is_handle_v<layout::view<const Mixed, P>> &&
           is_handle_v<layout::view<Body, P>> && is_handle_v<layout::view<const Body, P>> &&
           is_handle_v<layout::view<Vec3, P>> && is_handle_v<layout::view<const Vec3, P>>;
}
static_assert(handles_for_all_types<aos_layout>());
static_assert(handles_for_all_types<soa_layout>());
static_assert(handles_for_all_types<aosoa_layout<4>>());
static_assert(handles_for_all_types<aosoa_layout<32>>());
static_assert(handles_for_all_types<aosoa_layout<3>>());
static_assert(handles_for_all_types<split_aos_soa>());
static_assert(handles_for_all_types<split_aosoa_aos>());

/// Writing a whole element through v[0].
template <class View, class T>
concept stores_element = requires(View v, const T& t) { v[0] = t; };
/// Writing one leaf through get<&T::x>.
template <class View, auto Member>
concept stores_leaf = requires(View v) { layout::get<Member>(v[0]) = {}; };
/// Copying one element onto another.
template <class View>
concept copies_element = requires(View v) { v[0] = v[1]; };
/// Swapping two elements.
template <class View>
concept swaps_elements = requires(View v) { swap(v[0], v[1]); };

TYPED_TEST(views, read_only_views_do_not_write) {
    using P = typename TypeParam::policy;
    using V = layout::view<Particle, P>;
    using CV = layout::view<const Particle, P>;
    // positive controls, so a typo cannot make the negative checks pass
    static_assert(stores_element<V, Particle>);
    static_assert(stores_leaf<V, &Particle::x>);
    static_assert(copies_element<V>);
    static_assert(swaps_elements<V>);
    static_assert(stores_leaf<layout::view<Body, P>, &Body::id>);
    static_assert(stores_element<layout::view<Body, P>, Body>);

    static_assert(!stores_element<CV, Particle>);
    static_assert(!stores_leaf<CV, &Particle::x>);
    static_assert(!copies_element<CV>);
    static_assert(!swaps_elements<CV>);
    static_assert(!stores_leaf<layout::view<const Body, P>, &Body::id>);
    static_assert(!stores_element<layout::view<const Body, P>, Body>);
    static_assert(!stores_leaf<layout::view<const Mixed, P>, &Mixed::b>);
    static_assert(
        std::is_same_v<decltype(layout::get<&Particle::x>(std::declval<CV>()[0])), const float&>);
    static_assert(
        std::is_same_v<decltype(layout::get<&Particle::x>(std::declval<V>()[0])), float&>);
    // nested members of a read-only element are read-only too
    using CB = layout::view<const Body, P>;
    static_assert(!requires(CB v) { layout::get<&Body::pos>(v[0]) = Vec3{}; });
    static_assert(!requires(CB v) { layout::get<&Body::vel>(v[0])[1] = 1.0f; });
    static_assert(!requires(CB v) { layout::get<&Vec3::y>(layout::get<&Body::pos>(v[0])) = 1.0f; });
    static_assert(requires(layout::view<Body, P> v) { layout::get<&Body::vel>(v[0])[1] = 1.0f; });

    // conversions: mutable -> read-only only
    static_assert(std::is_convertible_v<V, CV>);
    static_assert(!std::is_convertible_v<CV, V>);
    static_assert(std::is_convertible_v<typename V::iterator, typename CV::iterator>);
    static_assert(!std::is_convertible_v<typename CV::iterator, typename V::iterator>);

    // containers hand out read-only views from const access
    using C = typename TypeParam::template container<Particle>;
    static_assert(std::is_same_v<decltype(std::declval<const C&>().view()), CV>);
    static_assert(std::is_same_v<decltype(std::declval<C&>().cview()), CV>);
    static_assert(!stores_element<const C&, Particle>);
    static_assert(stores_element<C&, Particle>);
    SUCCEED();
}

// ---- structured bindings ----------------------------------------------------------------------

TYPED_TEST(views, structured_bindings_particle) {
    using C = typename TypeParam::template container<Particle>;
    std::mt19937 g(1);
    std::vector<Particle> m = random_values<Particle>(g, 37);
    C c(m.begin(), m.end());
    const auto v = c.view();
    const float dt = 0.25f;
    for (std::size_t i = 0; i < v.size(); ++i) {
        auto&& [x, y, z, vx, vy, vz, mass, charge] = v[i];
        static_assert(std::is_same_v<decltype(x), float>);
        static_assert(std::is_lvalue_reference_v<decltype((x))>);
        EXPECT_EQ(&x, &layout::get<&Particle::x>(v[i]));
        EXPECT_EQ(&charge, &layout::get<7>(v[i]));
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        mass = mass * 2;
        charge = -charge;
        Particle& p = m[i];
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
        p.mass = p.mass * 2;
        p.charge = -p.charge;
    }
    EXPECT_TRUE(matches(c, m));

    // through an iterator
    for (auto it = c.begin(); it != c.end(); ++it) {
        auto&& [x, y, z, vx, vy, vz, mass, charge] = *it;
        (void)y, (void)z, (void)vx, (void)vy, (void)vz, (void)charge;
        x = mass;
    }
    for (auto& p : m) p.x = p.mass;
    EXPECT_TRUE(matches(c, m));

    // `const auto&` binds const references, as it does for a const Particle&
    {
        const auto& [x, y, z, vx, vy, vz, mass, charge] = c[4];
        static_assert(std::is_same_v<decltype(x), const float>);
        EXPECT_EQ(&x, &layout::get<&Particle::x>(c[4]));
        EXPECT_EQ(charge, m[4].charge);
        (void)y, (void)z, (void)vx, (void)vy, (void)vz, (void)mass;
    }

    // read-only view: bindings are const references
    const layout::view<const Particle, typename TypeParam::policy> r = c.view();
    auto&& [rx, ry, rz, rvx, rvy, rvz, rm, rq] = r[5];
    static_assert(std::is_same_v<decltype(rx), const float>);
    EXPECT_EQ(rx, m[5].x);
    EXPECT_EQ(ry, m[5].y);
    EXPECT_EQ(rq, m[5].charge);
    EXPECT_EQ(&rvz, &layout::get<&Particle::vz>(c[5]));
    (void)rz, (void)rvx, (void)rvy, (void)rm;
}

TYPED_TEST(views, structured_bindings_mixed) {
    using C = typename TypeParam::template container<Mixed>;
    std::mt19937 g(2);
    std::vector<Mixed> m = random_values<Mixed>(g, 33);
    C c(m.begin(), m.end());
    for (std::size_t k = 0; k < c.size(); ++k) {
        auto&& [d, i, ch, b, s] = c[k];
        static_assert(std::is_same_v<decltype(d), double>);
        static_assert(std::is_same_v<decltype(i), int>);
        static_assert(std::is_same_v<decltype(ch), char>);
        static_assert(std::is_same_v<decltype(b), bool>);
        static_assert(std::is_same_v<decltype(s), short>);
        d = d * 0.5;
        i = i + 1;
        ch = static_cast<char>(ch ^ 0x5a);
        b = !b;
        s = static_cast<short>(-s / 2);
        Mixed& x = m[k];
        x.d = x.d * 0.5;
        x.i = x.i + 1;
        x.c = static_cast<char>(x.c ^ 0x5a);
        x.b = !x.b;
        x.s = static_cast<short>(-x.s / 2);
    }
    EXPECT_TRUE(matches(c, m));
}

TYPED_TEST(views, structured_bindings_nested) {
    using C = typename TypeParam::template container<Body>;
    std::mt19937 g(3);
    std::vector<Body> m = random_values<Body>(g, 35);
    C c(m.begin(), m.end());
    for (std::size_t k = 0; k < c.size(); ++k) {
        auto&& [pos, vel, id, pair, w] = c[k];
        static_assert(std::is_same_v<decltype(id), int>);
        static_assert(std::is_same_v<decltype(w), double>);
        static_assert(
            std::is_same_v<typename std::remove_cvref_t<decltype(pos)>::value_type, Vec3>);
        static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(vel)>::value_type,
                                     std::array<float, 3>>);
        static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(pair)>::value_type,
                                     std::array<Vec3, 2>>);
        // nested bindings bind the leaves
        auto&& [px, py, pz] = pos;
        px += vel[0] * 0.25f;
        py += vel[1] * 0.25f;
        pz += vel[2] * 0.25f;
        auto&& [first, second] = pair;
        auto&& [sx, sy, sz] = second;
        sy = sx + sz;
        layout::get<&Vec3::z>(first) = static_cast<float>(id % 100);
        id = -id;
        w = w + 1.0;
        vel = std::array<float, 3>{1.0f, 2.0f, 3.0f}; // whole std::array store

        Body& b = m[k];
        b.pos.x += b.vel[0] * 0.25f;
        b.pos.y += b.vel[1] * 0.25f;
        b.pos.z += b.vel[2] * 0.25f;
        b.pair[1].y = b.pair[1].x + b.pair[1].z;
        b.pair[0].z = static_cast<float>(b.id % 100);
        b.id = -b.id;
        b.w = b.w + 1.0;
        b.vel = {1.0f, 2.0f, 3.0f};
    }
    EXPECT_TRUE(matches(c, m));
}

/// `auto [..] = v[i]` copies the proxy, not the element, so, unlike with std::vector<T>, the
/// names still refer to the container's element. Documented here so that a change is noticed.
TYPED_TEST(views, auto_binding_copies_the_proxy) {
    using C = typename TypeParam::template container<Particle>;
    C c(3);
    auto [x, y, z, vx, vy, vz, mass, charge] = c[1];
    x = 5.0f;
    EXPECT_EQ(layout::get<&Particle::x>(c[1]), 5.0f);
    Particle copy = c[2]; // a value: the way to get a copy
    copy.x = 7.0f;
    EXPECT_EQ(layout::get<&Particle::x>(c[2]), 0.0f);
    EXPECT_EQ(copy.x, 7.0f);
    (void)y, (void)z, (void)vx, (void)vy, (void)vz, (void)mass, (void)charge;
}

// ---- get, nested proxies, std::array members ---------------------------------------------------

TYPED_TEST(views, get_by_member_pointer_and_index) {
    using C = typename TypeParam::template container<Particle>;
    std::mt19937 g(4);
    std::vector<Particle> m = random_values<Particle>(g, 40);
    C c(m.begin(), m.end());
    const auto v = c.view();
    for (std::size_t i = 0; i < v.size(); ++i) {
        static_assert(std::is_same_v<decltype(layout::get<&Particle::vy>(v[i])), float&>);
        EXPECT_EQ(&layout::get<&Particle::x>(v[i]), &layout::get<0>(v[i]));
        EXPECT_EQ(&layout::get<&Particle::vy>(v[i]), &layout::get<4>(v[i]));
        EXPECT_EQ(&layout::get<&Particle::charge>(v[i]), &v[i].template get<7>());
        layout::get<&Particle::x>(v[i]) += layout::get<&Particle::vx>(v[i]) * 0.5f;
        layout::get<6>(v[i]) = static_cast<float>(i);
        m[i].x += m[i].vx * 0.5f;
        m[i].mass = static_cast<float>(i);
    }
    EXPECT_TRUE(matches(c, m));
    // distinct elements and distinct leaves never share an address
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
        EXPECT_NE(&layout::get<0>(v[i]), &layout::get<0>(v[i + 1]));
        EXPECT_NE(&layout::get<0>(v[i]), &layout::get<1>(v[i]));
    }

    using M = typename TypeParam::template container<Mixed>;
    std::vector<Mixed> mm = random_values<Mixed>(g, 9);
    M mc(mm.begin(), mm.end());
    for (std::size_t i = 0; i < mc.size(); ++i) {
        static_assert(std::is_same_v<decltype(layout::get<&Mixed::b>(mc[i])), bool&>);
        static_assert(std::is_same_v<decltype(layout::get<&Mixed::c>(mc[i])), char&>);
        static_assert(std::is_same_v<decltype(layout::get<4>(mc[i])), short&>);
        EXPECT_EQ(layout::get<&Mixed::d>(mc[i]), mm[i].d);
        EXPECT_EQ(layout::get<&Mixed::i>(mc[i]), mm[i].i);
        EXPECT_EQ(layout::get<&Mixed::c>(mc[i]), mm[i].c);
        EXPECT_EQ(layout::get<&Mixed::b>(mc[i]), mm[i].b);
        EXPECT_EQ(layout::get<&Mixed::s>(mc[i]), mm[i].s);
        layout::get<&Mixed::b>(mc[i]) = !mm[i].b;
        mm[i].b = !mm[i].b;
    }
    EXPECT_TRUE(matches(mc, mm));
}

TYPED_TEST(views, nested_and_array_member_proxies) {
    using C = typename TypeParam::template container<Body>;
    std::mt19937 g(5);
    std::vector<Body> m = random_values<Body>(g, 34);
    C c(m.begin(), m.end());
    const auto v = c.view();
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto ref = v[i];
        // pos: a Vec3 proxy
        auto pos = layout::get<&Body::pos>(ref);
        EXPECT_TRUE(same(Vec3(pos), m[i].pos));
        EXPECT_EQ(layout::get<&Vec3::y>(pos), m[i].pos.y);
        layout::get<&Vec3::y>(pos) = 1.5f * static_cast<float>(i);
        m[i].pos.y = 1.5f * static_cast<float>(i);
        // vel: a std::array<float, 3> proxy with operator[] (run-time index) and get<k>
        auto vel = layout::get<&Body::vel>(ref);
        for (std::size_t k = 0; k < 3; ++k) {
            EXPECT_EQ(vel[k], m[i].vel[k]);
            static_assert(std::is_same_v<decltype(vel[k]), float&>);
        }
        EXPECT_EQ(&vel[2], &layout::get<2>(vel));
        vel[i % 3] = -vel[i % 3];
        m[i].vel[i % 3] = -m[i].vel[i % 3];
        const std::array<float, 3> vel_value = vel;
        EXPECT_EQ(vel_value, m[i].vel);
        // pair[1].y: get<1> of the std::array<Vec3, 2> proxy, then the member
        auto pair = layout::get<&Body::pair>(ref);
        float& p1y = layout::get<&Vec3::y>(layout::get<1>(pair));
        EXPECT_EQ(p1y, m[i].pair[1].y);
        p1y = 100.0f + static_cast<float>(i);
        m[i].pair[1].y = 100.0f + static_cast<float>(i);
        EXPECT_EQ(&p1y, &ref.template get<3>().template get<1>().template get<1>());
        // whole nested stores and loads
        const Vec3 q{1.0f, 2.0f, static_cast<float>(i)};
        layout::get<0>(pair) = q;
        m[i].pair[0] = q;
        const std::array<Vec3, 2> pair_value = pair;
        EXPECT_TRUE(same(pair_value[0], m[i].pair[0]));
        EXPECT_TRUE(same(pair_value[1], m[i].pair[1]));
        // copy a nested member from another element
        if (i > 0) {
            layout::get<&Body::pos>(v[i]) = layout::get<&Body::pos>(v[i - 1]);
            m[i].pos = m[i - 1].pos;
        }
        layout::get<&Body::id>(ref) = static_cast<int>(i);
        m[i].id = static_cast<int>(i);
    }
    EXPECT_TRUE(matches(c, m));

    // nested proxies from another layout
    layout::aosoa<Body, 3> other(m.begin(), m.end());
    std::reverse(m.begin(), m.end());
    for (std::size_t i = 0; i < c.size(); ++i) {
        layout::get<&Body::pos>(c[i]) = layout::get<&Body::pos>(other[c.size() - 1 - i]);
        layout::get<&Body::vel>(c[i]) = layout::get<&Body::vel>(other[c.size() - 1 - i]);
        layout::get<&Body::pair>(c[i]) = layout::get<&Body::pair>(other[c.size() - 1 - i]);
        layout::get<&Body::id>(c[i]) = m[i].id;
        layout::get<&Body::w>(c[i]) = m[i].w;
    }
    EXPECT_TRUE(matches(c, m));
}

TYPED_TEST(views, whole_element_load_and_store) {
    std::mt19937 g(6);
    const auto check = [&]<class T>(std::type_identity<T>) {
        using C = typename TypeParam::template container<T>;
        std::vector<T> m = random_values<T>(g, 70);
        C c(m.size());
        const auto v = c.view();
        for (std::size_t i = 0; i < m.size(); ++i) v[i] = m[i]; // store
        EXPECT_TRUE(matches(c, m));
        for (std::size_t i = 0; i < m.size(); ++i) {
            const T a = v[i]; // load by conversion
            const T b = v[i].load();
            const T d = static_cast<T>(c[i]);
            EXPECT_TRUE(same(a, m[i]));
            EXPECT_TRUE(same(b, m[i]));
            EXPECT_TRUE(same(d, m[i]));
        }
        // element to element, same view, overlapping both ways
        for (std::size_t i = 0; i + 1 < m.size(); ++i) v[i] = v[i + 1];
        for (std::size_t i = 0; i + 1 < m.size(); ++i) m[i] = m[i + 1];
        EXPECT_TRUE(matches(c, m));
        // a proxy outlives the view and iterator it came from
        const auto ref = c.view()[3];
        const auto ref2 = *(c.begin() + 4);
        ref = m[10];
        ref2 = m[11];
        m[3] = m[10];
        m[4] = m[11];
        EXPECT_TRUE(matches(c, m));
    };
    check(std::type_identity<Particle>{});
    check(std::type_identity<Mixed>{});
    check(std::type_identity<Body>{});
}

/// Stores write every leaf, including a -0.0 and a NaN; equality is leafwise with each scalar's
/// own ==, so -0.0 == 0.0 and NaN != NaN.
TYPED_TEST(views, element_ref_equality) {
    using C = typename TypeParam::template container<Particle>;
    using P = typename TypeParam::policy;
    std::mt19937 g(7);
    std::vector<Particle> m = random_values<Particle>(g, 10);
    m[3] = m[2];
    C c(m.begin(), m.end());
    const layout::soa_vector<Particle> other(m.begin(), m.end());
    const layout::view<const Particle, P> r = c.view();

    EXPECT_TRUE(c[2] == c[3]);
    EXPECT_FALSE(c[2] != c[3]);
    EXPECT_FALSE(c[1] == c[2]);
    EXPECT_TRUE(c[1] != c[2]);
    EXPECT_TRUE(c[4] == m[4]);
    EXPECT_TRUE(m[4] == c[4]); // reversed operands
    EXPECT_FALSE(c[4] == m[5]);
    EXPECT_TRUE(c[4] == other[4]); // another layout
    EXPECT_FALSE(c[4] == other[5]);
    EXPECT_TRUE(r[6] == c[6]); // read-only against mutable
    EXPECT_TRUE(c[6] == r[6]);
    EXPECT_TRUE(r[7] == m[7]);

    Particle p = m[0];
    p.charge = std::nextafter(p.charge, 1e9f); // one leaf, one ulp
    EXPECT_FALSE(c[0] == p);

    Particle z = m[0];
    z.vx = 0.0f;
    c[0] = z;
    z.vx = -0.0f;
    EXPECT_TRUE(c[0] == z) << "leafwise ==, not bytewise";
    layout::get<&Particle::vx>(c[0]) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(c[0] == c[0]) << "leafwise ==: NaN != NaN";

    using B = typename TypeParam::template container<Body>;
    std::vector<Body> bm = random_values<Body>(g, 4);
    B b(bm.begin(), bm.end());
    EXPECT_TRUE(b[1] == bm[1]);
    EXPECT_TRUE(layout::get<&Body::pos>(b[1]) == bm[1].pos);
    EXPECT_FALSE(layout::get<&Body::pos>(b[1]) == layout::get<&Body::pos>(b[2]));
    layout::get<&Body::pos>(b[2]) = bm[1].pos;
    EXPECT_TRUE(layout::get<&Body::pos>(b[1]) == layout::get<&Body::pos>(b[2]));
    EXPECT_FALSE(b[1] == b[2]);
    b[2] = b[1];
    EXPECT_TRUE(b[1] == b[2]);
    EXPECT_TRUE(layout::get<&Body::vel>(b[0]) == bm[0].vel);
}

TYPED_TEST(views, proxy_swap) {
    using C = typename TypeParam::template container<Body>;
    std::mt19937 g(8);
    std::vector<Body> m = random_values<Body>(g, 12);
    C c(m.begin(), m.end());
    swap(c[1], c[7]); // ADL finds the proxy's swap
    std::swap(m[1], m[7]);
    EXPECT_TRUE(matches(c, m));
    {
        using std::swap;
        swap(c[0], c[11]);
        swap(m[0], m[11]);
    }
    EXPECT_TRUE(matches(c, m));
    std::ranges::swap(c[2], c[3]);
    std::ranges::swap(m[2], m[3]);
    EXPECT_TRUE(matches(c, m));
    swap(c[4], c[4]); // self-swap
    EXPECT_TRUE(matches(c, m));
    // nested proxies swap the member only
    swap(layout::get<&Body::pos>(c[5]), layout::get<&Body::pos>(c[6]));
    std::swap(m[5].pos, m[6].pos);
    EXPECT_TRUE(matches(c, m));
    std::iter_swap(c.begin() + 8, c.begin() + 9);
    std::iter_swap(m.begin() + 8, m.begin() + 9);
    EXPECT_TRUE(matches(c, m));
}

// ---- addresses: proxies reach the bytes the mapping names -------------------------------------------

/// Every leaf reached through a proxy is at block + mapping::offset(i, leaf, capacity).
template <class T, class P, class C, std::size_t... L>
void check_addresses(const C& c, std::index_sequence<L...>) {
    const auto v = c.view();
    const auto* block = static_cast<const std::byte*>(v.storage().first_byte());
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto cursor = v.storage().at(i);
        const bool ok = ((reinterpret_cast<const std::byte*>(&cursor.template leaf<L>()) ==
                          block + layout::mapping<T, P>::offset(i, L, c.capacity())) &&
                         ...);
        ASSERT_TRUE(ok) << "element " << i;
    }
}

TYPED_TEST(views, proxies_address_the_mapping) {
    using P = typename TypeParam::policy;
    std::mt19937 g(9);
    {
        using C = typename TypeParam::template container<Body>;
        const auto m = random_values<Body>(g, 45);
        C c(m.begin(), m.end());
        c.reserve(77);
        check_addresses<Body, P>(c, std::make_index_sequence<layout::leaf_count_v<Body>>{});
        // the member paths name the same leaves
        for (std::size_t i = 0; i < c.size(); ++i) {
            ASSERT_EQ(&layout::get<&Vec3::y>(layout::get<&Body::pos>(c[i])),
                      &c.view().storage().at(i).template leaf<1>());
            ASSERT_EQ(&layout::get<&Body::vel>(c[i])[2],
                      &c.view().storage().at(i).template leaf<5>());
            ASSERT_EQ(&layout::get<&Body::id>(c[i]), &c.view().storage().at(i).template leaf<6>());
            ASSERT_EQ(&layout::get<&Vec3::y>(layout::get<1>(layout::get<&Body::pair>(c[i]))),
                      &c.view().storage().at(i).template leaf<11>());
            ASSERT_EQ(&layout::get<&Body::w>(c[i]), &c.view().storage().at(i).template leaf<13>());
        }
    }
    {
        using C = typename TypeParam::template container<Mixed>;
        const auto m = random_values<Mixed>(g, 70);
        const C c(m.begin(), m.end());
        check_addresses<Mixed, P>(c, std::make_index_sequence<layout::leaf_count_v<Mixed>>{});
    }
}

// ---- columns -------------------------------------------------------------------------------------

TYPED_TEST(views, columns) {
    using P = typename TypeParam::policy;
    std::mt19937 g(10);
    {
        using C = typename TypeParam::template container<Particle>;
        std::vector<Particle> m = random_values<Particle>(g, 65);
        C c(m.begin(), m.end());
        const auto x = c.view().template column<&Particle::x>();
        const auto q = c.view().template column<&Particle::charge>();
        static_assert(std::is_same_v<decltype(x[0]), float&>);
        ASSERT_EQ(x.size(), m.size());
        for (std::size_t i = 0; i < m.size(); ++i) {
            EXPECT_EQ(x[i], m[i].x);
            EXPECT_EQ(&x[i], &layout::get<&Particle::x>(c[i]));
            x[i] = q[i] * 2;
            m[i].x = m[i].charge * 2;
        }
        EXPECT_TRUE(matches(c, m));
        const auto by_index = c.view().template column<6>();
        const auto by_leaf = c.view().template leaf_column<6>();
        EXPECT_EQ(&by_index[3], &layout::get<&Particle::mass>(c[3]));
        EXPECT_EQ(&by_leaf[3], &layout::get<&Particle::mass>(c[3]));
        // read-only column
        const auto rx = c.cview().template column<&Particle::x>();
        static_assert(std::is_same_v<decltype(rx[0]), const float&>);
        EXPECT_EQ(&rx[10], &x[10]);

        using X = decltype(x);
        static_assert(X::is_contiguous == std::is_same_v<P, layout::policy::soa>,
                      "span() exactly where the column is contiguous");
        static_assert(X::is_strided == (std::is_same_v<P, layout::policy::soa> ||
                                        std::is_same_v<P, layout::policy::aos>),
                      "data() and stride() exactly where the column is one stride");
        if constexpr (X::is_strided) {
            for (std::size_t i = 0; i < m.size(); ++i) EXPECT_EQ(x.data() + i * x.stride(), &x[i]);
        }
        if constexpr (std::is_same_v<P, layout::policy::soa>) {
            EXPECT_EQ(x.stride(), 1u);
            EXPECT_EQ(x.span().data(), x.data());
            EXPECT_EQ(x.span().size(), m.size());
            EXPECT_EQ(static_cast<void*>(x.data()), c.view().storage().columns[0]);
            EXPECT_EQ(static_cast<void*>(q.data()), c.view().storage().columns[7]);
            EXPECT_EQ(x.data() + 40, &x[40]);
            EXPECT_EQ(rx.data(), x.data());
            static_assert(std::is_same_v<decltype(rx.data()), const float*>);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x.data()) % 128, 0u)
                << "SoA columns start on a 128-byte boundary";
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q.data()) % 128, 0u);
        }
    }
    {
        using C = typename TypeParam::template container<Body>;
        std::vector<Body> m = random_values<Body>(g, 40);
        C c(m.begin(), m.end());
        const auto v = c.view();
        const auto pos_y = v.template column<&Body::pos, &Vec3::y>();
        const auto vel_2 = v.template column<&Body::vel, 2>();
        const auto pair1_z = v.template column<&Body::pair, 1, &Vec3::z>();
        const auto id = v.template column<&Body::id>();
        const auto w = v.template column<&Body::w>();
        static_assert(std::is_same_v<decltype(id[0]), int&>);
        static_assert(std::is_same_v<decltype(w[0]), double&>);
        for (std::size_t i = 0; i < m.size(); ++i) {
            EXPECT_EQ(pos_y[i], m[i].pos.y);
            EXPECT_EQ(vel_2[i], m[i].vel[2]);
            EXPECT_EQ(pair1_z[i], m[i].pair[1].z);
            EXPECT_EQ(id[i], m[i].id);
            EXPECT_EQ(w[i], m[i].w);
            pos_y[i] = -pos_y[i];
            pair1_z[i] += 1.0f;
            id[i] = static_cast<int>(i);
            m[i].pos.y = -m[i].pos.y;
            m[i].pair[1].z += 1.0f;
            m[i].id = static_cast<int>(i);
        }
        EXPECT_TRUE(matches(c, m));
        if constexpr (std::is_same_v<P, layout::policy::soa>) {
            EXPECT_EQ(static_cast<void*>(pos_y.data()), v.storage().columns[1]);
            EXPECT_EQ(static_cast<void*>(vel_2.data()), v.storage().columns[5]);
            EXPECT_EQ(static_cast<void*>(id.data()), v.storage().columns[6]);
            EXPECT_EQ(static_cast<void*>(pair1_z.data()), v.storage().columns[12]);
            EXPECT_EQ(static_cast<void*>(w.data()), v.storage().columns[13]);
        }
    }
}

// ---- views over memory the user owns ----------------------------------------------------------------

TEST(user_memory, aos_view_of_a_std_vector_no_copy) {
    std::mt19937 g(11);
    std::vector<Particle> ps = random_values<Particle>(g, 50);
    const std::vector<Particle> before = ps;
    layout::view<Particle, layout::policy::aos> v(ps.data(), ps.size());
    ASSERT_EQ(v.size(), ps.size());
    EXPECT_TRUE(matches(v, ps));
    for (std::size_t i = 0; i < ps.size(); ++i) {
        EXPECT_EQ(&layout::get<&Particle::y>(v[i]), &ps[i].y) << "no copy: the vector's bytes";
        auto&& [x, y, z, vx, vy, vz, m, q] = v[i];
        x += vx * 0.25f;
        (void)y, (void)z, (void)vy, (void)vz, (void)m, (void)q;
    }
    for (std::size_t i = 0; i < ps.size(); ++i)
        EXPECT_EQ(ps[i].x, before[i].x + before[i].vx * 0.25f);
    const Particle p = random_value<Particle>(g);
    v[17] = p;
    EXPECT_TRUE(same(ps[17], p));
    ps[18] = p;
    EXPECT_TRUE(same(Particle(v[18]), p)) << "writes to the vector show through the view";
    std::sort(v.begin(), v.end(), [](const Particle& a, const Particle& b) { return a.x < b.x; });
    EXPECT_TRUE(std::is_sorted(ps.begin(), ps.end(),
                               [](const Particle& a, const Particle& b) { return a.x < b.x; }));

    const layout::view<const Particle, layout::policy::aos> r(std::as_const(ps).data(), ps.size());
    EXPECT_TRUE(matches(r, ps));
}

TEST(user_memory, soa_view_of_eight_vectors) {
    const std::size_t n = 45;
    std::mt19937 g(12);
    std::array<std::vector<float>, 8> cols;
    for (auto& col : cols) {
        col.resize(n);
        for (auto& f : col) f = random_float(g);
    }
    layout::view<Particle, layout::policy::soa> v(n, cols[0].data(), cols[1].data(), cols[2].data(),
                                                  cols[3].data(), cols[4].data(), cols[5].data(),
                                                  cols[6].data(), cols[7].data());
    std::vector<Particle> m(n);
    for (std::size_t i = 0; i < n; ++i)
        m[i] = {cols[0][i], cols[1][i], cols[2][i], cols[3][i],
                cols[4][i], cols[5][i], cols[6][i], cols[7][i]};
    EXPECT_TRUE(matches(v, m));
    EXPECT_EQ(v.column<&Particle::vz>().data(), cols[5].data());
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(&layout::get<&Particle::mass>(v[i]), &cols[6][i]);
        auto&& [x, y, z, vx, vy, vz, mass, q] = v[i];
        x += vx * 0.25f;
        y += vy * 0.25f;
        z += vz * 0.25f;
        (void)mass, (void)q;
    }
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(cols[0][i], m[i].x + m[i].vx * 0.25f);
        EXPECT_EQ(cols[1][i], m[i].y + m[i].vy * 0.25f);
        EXPECT_EQ(cols[2][i], m[i].z + m[i].vz * 0.25f);
    }
    const Particle p{1, 2, 3, 4, 5, 6, 7, 8};
    v[9] = p;
    for (std::size_t l = 0; l < 8; ++l) EXPECT_EQ(cols[l][9], static_cast<float>(l + 1));

    const layout::view<const Particle, layout::policy::soa> r(
        n, std::as_const(cols[0]).data(), std::as_const(cols[1]).data(),
        std::as_const(cols[2]).data(), std::as_const(cols[3]).data(), std::as_const(cols[4]).data(),
        std::as_const(cols[5]).data(), std::as_const(cols[6]).data(),
        std::as_const(cols[7]).data());
    EXPECT_TRUE(same(Particle(r[9]), p));
    EXPECT_TRUE(r[9] == v[9]);
}

TEST(user_memory, soa_view_of_mixed_columns) {
    const std::size_t n = 20;
    std::vector<double> d(n);
    std::vector<int> i(n);
    std::vector<char> c(n);
    std::unique_ptr<bool[]> b(new bool[n]());
    std::vector<short> s(n);
    layout::view<Mixed, layout::policy::soa> v(n, d.data(), i.data(), c.data(), b.get(), s.data());
    for (std::size_t k = 0; k < n; ++k)
        v[k] = Mixed{0.5 * double(k), int(k) * 3, char('a' + k), k % 2 == 1, short(-int(k))};
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_EQ(d[k], 0.5 * double(k));
        EXPECT_EQ(i[k], int(k) * 3);
        EXPECT_EQ(c[k], char('a' + k));
        EXPECT_EQ(b[k], k % 2 == 1);
        EXPECT_EQ(s[k], short(-int(k)));
    }
}

TEST(user_memory, aosoa_view_of_user_blocks) {
    using map = layout::mapping<Particle, layout::policy::aosoa<4>>;
    const std::size_t n = 10; // 3 blocks, the last one half full
    std::vector<float> blocks(map::bytes(n) / sizeof(float), -1.0f);
    ASSERT_EQ(map::bytes(n), 3 * 4 * sizeof(Particle));
    layout::view<Particle, layout::policy::aosoa<4>> v(blocks.data(), n);
    std::mt19937 g(13);
    const auto m = random_values<Particle>(g, n);
    for (std::size_t i = 0; i < n; ++i) v[i] = m[i];
    EXPECT_TRUE(matches(v, m));
    // element 6 is block 1, lane 2: its vx is float (1 * 32) + (3 * 4) + 2
    EXPECT_EQ(blocks[32 + 12 + 2], m[6].vx);
    EXPECT_EQ(blocks[8 + 1], m[1].z);
    EXPECT_EQ(blocks[64 + 4 * 7 + 1], m[9].charge);
    EXPECT_EQ(blocks[64 + 2], -1.0f) << "lane 2 of the last block is past the end: untouched";
}

// ---- containers hand out views that see their elements --------------------------------------

TYPED_TEST(views, container_views_track_the_container) {
    using C = typename TypeParam::template container<Mixed>;
    std::mt19937 g(14);
    std::vector<Mixed> m = random_values<Mixed>(g, 21);
    C c(m.begin(), m.end());
    auto v = c.view();
    EXPECT_EQ(v.size(), c.size());
    EXPECT_FALSE(v.empty());
    EXPECT_TRUE(matches(v, m));
    EXPECT_TRUE(matches(c.cview(), m));
    EXPECT_TRUE(matches(std::as_const(c).view(), m));
    // a copied view is the same handle
    const auto copy = v;
    EXPECT_EQ(&layout::get<&Mixed::s>(copy[20]), &layout::get<&Mixed::s>(c[20]));
    EXPECT_EQ(copy.size(), v.size());
    const decltype(v) empty;
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.size(), 0u);
    EXPECT_TRUE(empty.begin() == empty.end());
}

} // namespace
