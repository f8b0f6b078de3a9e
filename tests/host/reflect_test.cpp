// Reflection: leaf counts, leaf types, field indices of member pointers, and the byte offsets
// layout computes for each leaf against the real addresses of the members.
#include <layout/policies.hpp>
#include <layout/view.hpp>

#include "common/shapes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace {

using namespace shapes;
using layout::leaf_count_v;
using layout::leaf_t;

// ---- Counts and types ----------------------------------------------------------------------

static_assert(leaf_count_v<Particle> == 8);
static_assert(leaf_count_v<Mixed> == 4);
static_assert(leaf_count_v<Vec3> == 3);
static_assert(leaf_count_v<Nested> == 7);
static_assert(leaf_count_v<Grid> == 8);
static_assert(leaf_count_v<float> == 1);
static_assert(leaf_count_v<std::array<float, 3>> == 3);
static_assert(leaf_count_v<const Nested> == 7);

static_assert(layout::field_count_v<Particle> == 8);
static_assert(layout::field_count_v<Nested> == 3);
static_assert(layout::field_count_v<Grid> == 3);
static_assert(layout::field_count_v<std::array<short, 2>> == 2);

static_assert(std::is_same_v<leaf_t<Mixed, 0>, double>);
static_assert(std::is_same_v<leaf_t<Mixed, 1>, int>);
static_assert(std::is_same_v<leaf_t<Mixed, 2>, char>);
static_assert(std::is_same_v<leaf_t<Mixed, 3>, bool>);
static_assert(std::is_same_v<leaf_t<Nested, 0>, float>);
static_assert(std::is_same_v<leaf_t<Nested, 5>, float>);
static_assert(std::is_same_v<leaf_t<Nested, 6>, int>);
static_assert(std::is_same_v<leaf_t<Grid, 0>, char>);
static_assert(std::is_same_v<leaf_t<Grid, 1>, short>);
static_assert(std::is_same_v<leaf_t<Grid, 6>, short>);
static_assert(std::is_same_v<leaf_t<Grid, 7>, double>);
static_assert(std::is_same_v<leaf_t<const Grid, 7>, double>);

// ---- Member pointers to field indices --------------------------------------------------------

static_assert(layout::field_index_v<&Particle::x> == 0);
static_assert(layout::field_index_v<&Particle::vx> == 3);
static_assert(layout::field_index_v<&Particle::q> == 7);
static_assert(layout::field_index_v<&Mixed::b> == 3);
static_assert(layout::field_index_v<&Vec3::z> == 2);
static_assert(layout::field_index_v<&Nested::pos> == 0);
static_assert(layout::field_index_v<&Nested::v> == 1);
static_assert(layout::field_index_v<&Nested::id> == 2);
static_assert(layout::field_index_v<&Grid::cells> == 1);
static_assert(layout::field_index_v<&Grid::w> == 2);

// ---- What is reflectable -----------------------------------------------------------------------

struct with_c_array {
    float v[3];
};
struct with_constructor {
    with_constructor() : x(0) {}
    float x;
};
struct with_reference {
    float& r;
};
union either {
    float f;
    int i;
};
struct base {
    float x;
};
struct derived : base {
    float y;
};

static_assert(layout::reflectable<Particle> && layout::reflectable<Mixed> &&
              layout::reflectable<Nested> && layout::reflectable<Grid> &&
              layout::reflectable<float>);
static_assert(!layout::reflectable<with_c_array>);
static_assert(!layout::reflectable<with_constructor>);
static_assert(!layout::reflectable<with_reference>);
static_assert(!layout::reflectable<either>);
static_assert(!layout::reflectable<derived>);

// ---- Leaf offsets: constant evaluation against offsetof ------------------------------------

template <class T, std::size_t L>
constexpr std::size_t leaf_offset = layout::detail::leaf_offset<T, L>();

static_assert(leaf_offset<Particle, 3> == offsetof(Particle, vx));
static_assert(leaf_offset<Particle, 7> == offsetof(Particle, q));
static_assert(leaf_offset<Mixed, 0> == offsetof(Mixed, d));
static_assert(leaf_offset<Mixed, 1> == offsetof(Mixed, i));
static_assert(leaf_offset<Mixed, 2> == offsetof(Mixed, c));
static_assert(leaf_offset<Mixed, 3> == offsetof(Mixed, b));
static_assert(leaf_offset<Nested, 1> == offsetof(Nested, pos) + offsetof(Vec3, y));
static_assert(leaf_offset<Nested, 4> == offsetof(Nested, v) + 1 * sizeof(float));
static_assert(leaf_offset<Nested, 6> == offsetof(Nested, id));
static_assert(leaf_offset<Grid, 0> == offsetof(Grid, tag));
static_assert(leaf_offset<Grid, 1> == offsetof(Grid, cells));
static_assert(leaf_offset<Grid, 4> == offsetof(Grid, cells) + 3 * sizeof(short)); // cells[1][1]
static_assert(leaf_offset<Grid, 7> == offsetof(Grid, w));

// ---- Leaf offsets: run time, against the addresses of the members ----------------------------

/// Checks, for every leaf L of T, that leaf_offset, leaf_table and leaf_ref all agree with the
/// address of the member the test names by hand.
template <class T, std::size_t N>
void expect_leaves_at(T& obj, const std::array<const void*, N>& members) {
    static_assert(N == leaf_count_v<T>, "name one member per leaf");
    const auto* base = reinterpret_cast<const unsigned char*>(&obj);
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (
            [&] {
                const auto* member = static_cast<const unsigned char*>(members[L]);
                const auto real = static_cast<std::size_t>(member - base);
                const auto& info = layout::detail::leaf_table<T>[L];
                EXPECT_EQ((layout::detail::leaf_offset<T, L>()), real) << "leaf " << L;
                EXPECT_EQ(info.offset, real) << "leaf " << L;
                EXPECT_EQ(info.size, sizeof(leaf_t<T, L>)) << "leaf " << L;
                EXPECT_EQ(info.alignment, alignof(leaf_t<T, L>)) << "leaf " << L;
                EXPECT_EQ(static_cast<const void*>(&layout::detail::leaf_ref<L>(obj)), members[L])
                    << "leaf " << L;
                const T& cobj = obj;
                EXPECT_EQ(static_cast<const void*>(&layout::detail::leaf_ref<L>(cobj)), members[L])
                    << "leaf " << L << " (const)";
            }(),
            ...);
    }(std::make_index_sequence<N>{});
}

TEST(reflect, particle_leaves_are_its_members) {
    Particle p{};
    expect_leaves_at(p, std::array<const void*, 8>{&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m,
                                                   &p.q});
}

TEST(reflect, mixed_leaves_are_its_members) {
    Mixed m{};
    expect_leaves_at(m, std::array<const void*, 4>{&m.d, &m.i, &m.c, &m.b});
}

TEST(reflect, nested_leaves_are_its_members) {
    Nested n{};
    expect_leaves_at(n, std::array<const void*, 7>{&n.pos.x, &n.pos.y, &n.pos.z, &n.v[0],
                                                   &n.v[1], &n.v[2], &n.id});
}

TEST(reflect, grid_leaves_are_its_members) {
    Grid g{};
    expect_leaves_at(g, std::array<const void*, 8>{&g.tag, &g.cells[0][0], &g.cells[0][1],
                                                   &g.cells[1][0], &g.cells[1][1],
                                                   &g.cells[2][0], &g.cells[2][1], &g.w});
}

TEST(reflect, field_index_of_member_pointers) {
    EXPECT_EQ(layout::field_index_v<&Particle::vx>, 3u);
    EXPECT_EQ(layout::field_index_v<&Nested::id>, 2u);
    EXPECT_EQ(layout::field_index_v<&Grid::w>, 2u);
}

TEST(reflect, rejected_types_say_why) {
    using layout::detail::check_element_type;
    using layout::detail::reflect_error;
    EXPECT_EQ(check_element_type<Particle>(), reflect_error::none);
    EXPECT_EQ(check_element_type<Grid>(), reflect_error::none);
    EXPECT_EQ(check_element_type<with_c_array>(), reflect_error::c_array_member);
    EXPECT_EQ(check_element_type<with_constructor>(), reflect_error::not_aggregate);
    EXPECT_EQ(check_element_type<with_reference>(), reflect_error::reference_member);
    EXPECT_EQ(check_element_type<either>(), reflect_error::union_type);
    EXPECT_EQ(check_element_type<derived>(), reflect_error::not_standard_layout);
}

} // namespace
