// Reflection: leaf counts, leaf types, field indices of member pointers, and the byte offsets
// layout computes for each leaf against the real addresses of the members.
#define LAYOUT_CHECK_BOUNDS 1 // the death tests below need the checks, in any build type
#include <layout/policies.hpp>
#include <layout/vector.hpp>
#include <layout/view.hpp>

#include "common/shapes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
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
    expect_leaves_at(p,
                     std::array<const void*, 8>{&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m, &p.q});
}

TEST(reflect, mixed_leaves_are_its_members) {
    Mixed m{};
    expect_leaves_at(m, std::array<const void*, 4>{&m.d, &m.i, &m.c, &m.b});
}

TEST(reflect, nested_leaves_are_its_members) {
    Nested n{};
    expect_leaves_at(n, std::array<const void*, 7>{&n.pos.x, &n.pos.y, &n.pos.z, &n.v[0], &n.v[1],
                                                   &n.v[2], &n.id});
}

TEST(reflect, grid_leaves_are_its_members) {
    Grid g{};
    expect_leaves_at(g, std::array<const void*, 8>{&g.tag, &g.cells[0][0], &g.cells[0][1],
                                                   &g.cells[1][0], &g.cells[1][1], &g.cells[2][0],
                                                   &g.cells[2][1], &g.w});
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

// ---- alignas and padding the ABI rule does not predict: offsets against real addresses ------

struct Padded { // b at 2 and c at 3; the ABI rule from the member types says 1 and 2
    char a;
    alignas(2) char b;
    char c;
};
struct alignas(16) Vec4 { // alignas on the struct: its size is 16, its members where they were
    float x, y, z;
};
struct OverAligned { // b at 12, f at 16: the same size as without the alignas
    double d;
    char a;
    alignas(4) char b;
    float f;
};
enum class Kind : unsigned char { gas, dust };
struct Composite { // alignas inside nested structs, in a std::array of them, on a nested member
    char tag;
    Vec4 v;
    alignas(8) int i;
    std::array<Padded, 2> ps;
    bool on;
    Kind kind;
    alignas(32) OverAligned o;
    double d;
};
struct FarOffsets { // offsets past 255 take more than one byte of the probe
    std::array<double, 40> big;
    alignas(64) char c;
    short s;
    std::array<std::array<std::uint8_t, 3>, 60> bytes;
    alignas(128) float last;
};
struct alignas(64) Chunk {
    double x;
};
struct Large { // past the byte probe's 4 KiB limit
    std::array<Chunk, 70> chunks;
    Padded p;
};
struct alignas(16) PaddedLarge { // past 4 KiB, alignas on the struct
    std::array<char, 4097> a;
};
struct WithPointer { // pointers cannot be built by bit_cast
    char c;
    const float* p;
    Padded padded;
    int n;
};
struct WithLongDouble {
    char c;
    long double x;
    std::array<short, 3> s;
};

static_assert(layout::detail::leaf_offset<Padded, 1>() == 2);
static_assert(layout::detail::leaf_offset<Padded, 2>() == 3);
static_assert(layout::detail::leaf_offset<OverAligned, 2>() == offsetof(OverAligned, b));

TEST(reflect, alignas_members_are_where_the_compiler_put_them) {
    Padded p{};
    expect_leaves_at(p, std::array<const void*, 3>{&p.a, &p.b, &p.c});
    Vec4 v{};
    expect_leaves_at(v, std::array<const void*, 3>{&v.x, &v.y, &v.z});
    OverAligned o{};
    expect_leaves_at(o, std::array<const void*, 4>{&o.d, &o.a, &o.b, &o.f});
}

TEST(reflect, nested_alignas_members_are_where_the_compiler_put_them) {
    Composite c{};
    expect_leaves_at(c, std::array<const void*, 18>{&c.tag, &c.v.x, &c.v.y, &c.v.z, &c.i,
                                                    &c.ps[0].a, &c.ps[0].b, &c.ps[0].c, &c.ps[1].a,
                                                    &c.ps[1].b, &c.ps[1].c, &c.on, &c.kind, &c.o.d,
                                                    &c.o.a, &c.o.b, &c.o.f, &c.d});
}

TEST(reflect, offsets_past_255_bytes) {
    static FarOffsets f{};
    std::array<const void*, leaf_count_v<FarOffsets>> members{};
    std::size_t l = 0;
    for (auto& x : f.big) members[l++] = &x;
    members[l++] = &f.c;
    members[l++] = &f.s;
    for (auto& row : f.bytes)
        for (auto& b : row) members[l++] = &b;
    members[l++] = &f.last;
    ASSERT_EQ(l, members.size());
    expect_leaves_at(f, members);
}

TEST(reflect, structs_past_4_kib) {
    static_assert(sizeof(Large) > layout::detail::byte_probe_max_size);
    static Large big{};
    std::array<const void*, leaf_count_v<Large>> members{};
    std::size_t l = 0;
    for (auto& c : big.chunks) members[l++] = &c.x;
    members[l++] = &big.p.a;
    members[l++] = &big.p.b;
    members[l++] = &big.p.c;
    ASSERT_EQ(l, members.size());
    expect_leaves_at(big, members);
}

TEST(reflect, pointer_and_long_double_members) {
    WithPointer w{};
    expect_leaves_at(
        w, std::array<const void*, 6>{&w.c, &w.p, &w.padded.a, &w.padded.b, &w.padded.c, &w.n});
    WithLongDouble d{};
    expect_leaves_at(d, std::array<const void*, 5>{&d.c, &d.x, &d.s[0], &d.s[1], &d.s[2]});
}

// ---- Types layout refuses, and why (each has a must-not-compile test too) ------------------

struct with_const {
    const float x;
    int id;
};
struct empty {};
struct with_empty {
    empty e;
    int id;
};
struct with_empty_array {
    std::array<float, 0> nothing;
};
struct with_empty_array_and_more {
    float x;
    std::array<float, 0> nothing;
};
struct with_bit_fields {
    unsigned a : 3;
    unsigned b : 5;
};
union number {
    float f;
    int i;
};
struct with_union {
    number n;
    int id;
};
float global_value = 0;
struct with_defaulted_reference {
    float& r = global_value;
    int id;
};
struct with_many_fields { // 101
    std::array<float, 1> f0;
    float f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20,
        f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38,
        f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55, f56,
        f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69, f70, f71, f72, f73, f74,
        f75, f76, f77, f78, f79, f80, f81, f82, f83, f84, f85, f86, f87, f88, f89, f90, f91, f92,
        f93, f94, f95, f96, f97, f98, f99, f100;
};
struct with_100_fields {
    float f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
        f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37,
        f38, f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55,
        f56, f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69, f70, f71, f72, f73,
        f74, f75, f76, f77, f78, f79, f80, f81, f82, f83, f84, f85, f86, f87, f88, f89, f90, f91,
        f92, f93, f94, f95, f96, f97, f98, f99;
};

TEST(reflect, more_rejected_types_say_why) {
    using layout::detail::check_element_type;
    using layout::detail::reflect_error;
    EXPECT_EQ(check_element_type<Padded>(), reflect_error::none);
    EXPECT_EQ(check_element_type<Composite>(), reflect_error::none);
    EXPECT_EQ(check_element_type<WithPointer>(), reflect_error::none);
    EXPECT_EQ(check_element_type<Large>(), reflect_error::none);
    EXPECT_EQ(check_element_type<PaddedLarge>(), reflect_error::none);
    EXPECT_EQ(check_element_type<with_100_fields>(), reflect_error::none);
    EXPECT_EQ(check_element_type<with_const>(), reflect_error::const_member);
    EXPECT_EQ(check_element_type<with_empty>(), reflect_error::empty_or_class_member);
    EXPECT_EQ(check_element_type<empty>(), reflect_error::no_fields);
    EXPECT_EQ(check_element_type<with_empty_array>(), reflect_error::zero_length_array);
    EXPECT_EQ(check_element_type<with_empty_array_and_more>(), reflect_error::zero_length_array);
    EXPECT_EQ((check_element_type<std::array<float, 0>>()), reflect_error::zero_length_array);
    EXPECT_EQ(check_element_type<with_bit_fields>(), reflect_error::bit_field);
    EXPECT_EQ(check_element_type<with_union>(), reflect_error::union_type);
    EXPECT_EQ(check_element_type<with_defaulted_reference>(), reflect_error::not_standard_layout);
    EXPECT_EQ(check_element_type<with_many_fields>(), reflect_error::too_many_fields);
}

// Bit-fields as wide as their type, where the struct's size, alignment and bytes look like its
// plain members' (these got Boost.PFR's error before: a pointer, an alignas move, over 4 KiB),
// and the last field of 100; next to the same shapes without a bit-field.
struct full_width_next_to_pointer {
    int a : 32;
    float* p;
};
struct full_width_after_alignas {
    char a;
    alignas(2) char b;
    int c : 32;
};
struct full_width_in_large {
    std::array<float, 1100> samples;
    unsigned count : 32;
};
struct alignas_next_to_pointer {
    char a;
    alignas(4) char b;
    int c;
    float* p;
};
struct bit_field_100th {
    float f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
        f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37,
        f38, f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55,
        f56, f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69, f70, f71, f72, f73,
        f74, f75, f76, f77, f78, f79, f80, f81, f82, f83, f84, f85, f86, f87, f88, f89, f90, f91,
        f92, f93, f94, f95, f96, f97, f98;
    int f99 : 32;
};
static_assert(layout::detail::has_bit_field<full_width_next_to_pointer>());
static_assert(layout::detail::has_bit_field<full_width_after_alignas>());
static_assert(layout::detail::has_bit_field<full_width_in_large>());
static_assert(layout::detail::has_bit_field<bit_field_100th>());
static_assert(layout::detail::has_bit_field<with_bit_fields>());
static_assert(!layout::detail::has_bit_field<alignas_next_to_pointer>());
static_assert(!layout::detail::has_bit_field<with_100_fields>());
static_assert(!layout::detail::has_bit_field<WithPointer>());

// A refused type is one opaque leaf to everything downstream, so that only the static_assert
// that names the problem fires (the must-not-compile tests count the lines).
static_assert(layout::detail::is_leaf_v<with_union>);
static_assert(leaf_count_v<with_many_fields> == 1);
static_assert(!layout::detail::is_leaf_v<with_100_fields>);
static_assert(leaf_count_v<with_100_fields> == 100);

// ---- Bounds checks --------------------------------------------------------------------------

struct Body {
    float m;
    std::array<float, 3> vel;
    int id;
};

TEST(reflect_death, std_array_member_index_is_bounds_checked) {
    layout::soa_vector<Body> v(2);
    auto vel = v[1].get<1>();
    vel[2] = 5.0f;
    EXPECT_EQ(v[1].get<1>()[2], 5.0f);
    EXPECT_DEATH(vel[3] = 1.0f, "layout: index out of range \\(index 3, size 3\\)");
}

TEST(reflect_death, negative_indices_print_signed) {
    const int i = -1;
    EXPECT_DEATH(LAYOUT_BOUNDS_CHECK(i, 3), "index -1, size 3\\)");
    const long long lowest = LLONG_MIN;
    EXPECT_DEATH(LAYOUT_BOUNDS_CHECK(lowest, 3), "index -9223372036854775808, size 3\\)");
    const std::size_t huge = SIZE_MAX;
    EXPECT_DEATH(LAYOUT_BOUNDS_CHECK(huge, 3), "index 18446744073709551615, size 3\\)");
}

TEST(reflect, in_range_indices_pass_the_check) {
    EXPECT_TRUE(layout::detail::index_in_range(2, 3u));
    EXPECT_FALSE(layout::detail::index_in_range(-1, 3u));
    EXPECT_FALSE(layout::detail::index_in_range(3u, 3u));
    EXPECT_TRUE(layout::detail::index_in_range(std::size_t{0}, 1));
}

} // namespace
