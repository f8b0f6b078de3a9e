// view.select<Keys...>() under every layout: loads and stores of the chosen fields alone,
// structured bindings, nested paths, and layout::copy between selections of any two layouts,
// which must move the chosen leaves and leave every other leaf of the destination as it was.
// Each result is checked against a std::vector model on random data.

#include "test_types.hpp"

#include <boost/pfr/core.hpp>

#include <cstddef>
#include <random>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using namespace layout_test;

template <class C>
class selections : public ::testing::Test {};
TYPED_TEST_SUITE(selections, all_combos, combo_names);

template <class T>
std::vector<T> random_model(std::mt19937& g, std::size_t n) {
    std::vector<T> model(n);
    for (auto& m : model) m = random_value<T>(g);
    return model;
}

/// The model of a copy of fields 0 and 2 (whole, nested members included) from `from`.
template <class T>
T with_fields_0_2_of(T to, const T& from) {
    boost::pfr::get<0>(to) = boost::pfr::get<0>(from);
    boost::pfr::get<2>(to) = boost::pfr::get<2>(from);
    return to;
}

// ---- the handle ---------------------------------------------------------------------------------

template <class L>
constexpr bool handles() {
    using P = typename L::policy;
    using S = decltype(std::declval<layout::view<Particle, P>>().template select<0, 2>());
    using CS = decltype(std::declval<layout::view<const Body, P>>().template select<0, 2>());
    return std::is_trivially_copyable_v<S> && std::is_trivially_copyable_v<CS> &&
           std::is_standard_layout_v<S>;
}
static_assert(handles<aos_layout>() && handles<soa_layout>() && handles<aosoa_layout<4>>() &&
              handles<split_aos_soa>() && handles<split_aosoa_aos>());

// A selection carries what reaches its leaves alone: under SoA their columns, under AoS the one
// pointer, under a split layout only the parts they lie in.
using soa_xyz = decltype(std::declval<layout::view<Particle, layout::policy::soa>>()
                             .select<&Particle::x, &Particle::y, &Particle::z>());
static_assert(sizeof(soa_xyz) == 3 * sizeof(void*) + sizeof(std::size_t));
using aos_xyz = decltype(std::declval<layout::view<Particle, layout::policy::aos>>()
                             .select<&Particle::x, &Particle::y, &Particle::z>());
static_assert(sizeof(aos_xyz) == sizeof(void*) + sizeof(std::size_t));
using hot_cold = layout::policy::split<layout::policy::aos, layout::policy::soa, &Particle::x,
                                       &Particle::y, &Particle::z>;
using split_xyz = decltype(std::declval<layout::view<Particle, hot_cold>>()
                               .select<&Particle::x, &Particle::y, &Particle::z>());
static_assert(sizeof(split_xyz) == sizeof(void*) + sizeof(std::size_t));
using split_x_vx = decltype(std::declval<layout::view<Particle, hot_cold>>()
                                .select<&Particle::x, &Particle::vx>());
static_assert(sizeof(split_x_vx) == 2 * sizeof(void*) + sizeof(std::size_t));

// Leaves named by keys: a struct member whole, a nested path, an index.
using body_sel = decltype(std::declval<layout::view<Body, layout::policy::soa>>()
                              .select<layout::path<&Body::pos, &Vec3::y>, &Body::id, 4>());
static_assert(body_sel::leaves == std::array<std::size_t, 3>{1, 6, 13});
static_assert(decltype(std::declval<layout::view<Body, layout::policy::aos>>()
                           .select<&Body::vel, 0>())::leaves ==
              std::array<std::size_t, 6>{3, 4, 5, 0, 1, 2});

// ---- loads and stores ---------------------------------------------------------------------------

TYPED_TEST(selections, stores_only_the_chosen_fields) {
    using T = typename TypeParam::value_type;
    std::mt19937 g(17);
    for (std::size_t n : {1u, 37u, 200u}) {
        auto model = random_model<T>(g, n);
        const auto other = random_model<T>(g, n);
        typename TypeParam::container c(model.begin(), model.end());
        const typename TypeParam::container o(other.begin(), other.end());
        const auto sel = c.template select<0, 2>();
        const auto from = o.template select<0, 2>();
        ASSERT_EQ(sel.size(), n);
        for (std::size_t i = 0; i < n; i += 2) sel[i] = from[i]; // proxy to proxy
        for (std::size_t i = 1; i < n; i += 2) {
            const typename decltype(sel)::value_type values = from[i]; // load
            sel[i] = values;                                           // store
        }
        for (std::size_t i = 0; i < n; ++i) model[i] = with_fields_0_2_of(model[i], other[i]);
        EXPECT_TRUE(matches(c, model));
    }
}

TYPED_TEST(selections, structured_bindings_reach_the_chosen_fields) {
    using T = typename TypeParam::value_type;
    std::mt19937 g(4);
    const std::size_t n = 45;
    const auto model = random_model<T>(g, n);
    typename TypeParam::container c(model.begin(), model.end());
    const auto& cc = c;
    std::size_t i = 0;
    for (auto&& ref : cc.template select<2, 0>()) { // a range of proxies, read-only
        auto&& [f2, f0] = ref;
        T got{}, expected = with_fields_0_2_of(T{}, model[i]);
        boost::pfr::get<0>(got) = f0;
        boost::pfr::get<2>(got) = f2;
        EXPECT_TRUE(same(got, expected)) << "element " << i;
        ++i;
    }
    EXPECT_EQ(i, n);
}

template <class L>
class particle_selections : public ::testing::Test {};
TYPED_TEST_SUITE(particle_selections, all_layouts, layout_names);

TYPED_TEST(particle_selections, drift_through_bindings) {
    std::mt19937 g(8);
    const std::size_t n = 100;
    auto model = random_model<Particle>(g, n);
    typename TypeParam::template container<Particle> c(model.begin(), model.end());
    const auto pos = c.template select<&Particle::x, &Particle::y, &Particle::z>();
    const auto vel = c.template select<&Particle::vx, &Particle::vy, &Particle::vz>();
    for (std::size_t i = 0; i < n; ++i) {
        auto&& [x, y, z] = pos[i];
        const auto [vx, vy, vz] = vel[i].load();
        x += vx * 0.5f;
        y += vy * 0.5f;
        z += vz * 0.5f;
        auto& m = model[i];
        m.x += m.vx * 0.5f;
        m.y += m.vy * 0.5f;
        m.z += m.vz * 0.5f;
    }
    EXPECT_TRUE(matches(c, model));
}

TEST(selection, nested_paths_and_struct_fields) {
    std::mt19937 g(2);
    auto model = random_model<Body>(g, 9);
    layout::aosoa<Body, 4> c(model.begin(), model.end());
    const auto sel = c.select<layout::path<&Body::pos, &Vec3::y>, &Body::pair, &Body::w>();
    for (std::size_t i = 0; i < model.size(); ++i) {
        auto&& [y, pair, w] = sel[i];
        y = float(i);
        pair.template get<1>().template get<2>() = -float(i); // proxies all the way down
        w *= 2;
        model[i].pos.y = float(i);
        model[i].pair[1].z = -float(i);
        model[i].w *= 2;
        const std::tuple<float, std::array<Vec3, 2>, double> values = sel[i];
        EXPECT_EQ(std::get<0>(values), model[i].pos.y);
        EXPECT_EQ(std::get<1>(values)[0].x, model[i].pair[0].x);
        EXPECT_EQ(std::get<2>(values), model[i].w);
    }
    EXPECT_TRUE(matches(c, model));
}

// ---- copies between selections ------------------------------------------------------------------

/// src.select<0, 2>() -> dst.select<0, 2>() for a destination of layout D from every layout.
template <class T, class D, class... Sources>
void copy_from_each(std::mt19937& g, ::testing::Types<Sources...>) {
    auto one = [&]<class S>(S) {
        for (std::size_t n : {0u, 1u, 33u, 1000u}) {
            const auto from = random_model<T>(g, n);
            auto model = random_model<T>(g, n);
            const typename S::template container<T> src(from.begin(), from.end());
            typename D::template container<T> dst(model.begin(), model.end());
            layout::copy(src.template select<0, 2>(), dst.template select<0, 2>());
            for (std::size_t i = 0; i < n; ++i) model[i] = with_fields_0_2_of(model[i], from[i]);
            EXPECT_TRUE(matches(dst, model)) << S::name() << " -> " << D::name() << ", n " << n;
        }
    };
    (one(Sources{}), ...);
}

TYPED_TEST(selections, copy_moves_the_chosen_leaves_alone) {
    std::mt19937 g(23);
    copy_from_each<typename TypeParam::value_type, typename TypeParam::layout_kind>(g,
                                                                                    all_layouts{});
}

TYPED_TEST(particle_selections, copy_between_other_fields_and_overlapping_selections) {
    std::mt19937 g(5);
    const std::size_t n = 70;
    auto model = random_model<Particle>(g, n);
    typename TypeParam::template container<Particle> c(model.begin(), model.end());
    // Other fields of the same elements: x, y <- vx, vy.
    layout::copy(c.template select<&Particle::vx, &Particle::vy>(),
                 c.template select<&Particle::x, &Particle::y>());
    for (auto& m : model) m.x = m.vx, m.y = m.vy;
    EXPECT_TRUE(matches(c, model));
    // A swap: each leaf is both read and written, so the copy must read the old values first.
    layout::copy(c.template select<&Particle::z, &Particle::mass>(),
                 c.template select<&Particle::mass, &Particle::z>());
    for (auto& m : model) std::swap(m.z, m.mass);
    EXPECT_TRUE(matches(c, model));
}

TEST(selection, copy_checks_sizes) {
    layout::soa_vector<Particle> a(3), b(4);
    EXPECT_THROW(layout::copy(a.select<&Particle::x>(), b.select<&Particle::x>()),
                 std::length_error);
}

} // namespace
