// Field and leaf names (names.hpp) of the shapes the typed suites store, checked at compile time
// against names written out by hand, and against the library's own leaf order (column paths).
#include <layout/names.hpp>
#include <layout/path.hpp>

#include "common/shapes.hpp"
#include "host/test_types.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using layout::field_name;
using layout::leaf_name_v;
using layout::leaf_names;
using sv = std::string_view;

template <class T, std::size_t N>
constexpr bool names_are(const std::array<sv, N>& want) {
    constexpr auto got = leaf_names<T>();
    if (got.size() != N) return false;
    for (std::size_t i = 0; i < N; ++i)
        if (got[i] != want[i]) return false;
    return true;
}

// ---- tests/common/shapes.hpp ------------------------------------------------------------------

static_assert(names_are<shapes::Particle>(std::array<sv, 8>{"x", "y", "z", "vx", "vy", "vz", "m",
                                                            "q"}));
static_assert(names_are<shapes::Mixed>(std::array<sv, 4>{"d", "i", "c", "b"}));
static_assert(names_are<shapes::Vec3>(std::array<sv, 3>{"x", "y", "z"}));
static_assert(names_are<shapes::Nested>(std::array<sv, 7>{"pos.x", "pos.y", "pos.z", "v[0]", "v[1]",
                                                          "v[2]", "id"}));
static_assert(names_are<shapes::Grid>(std::array<sv, 8>{"tag", "cells[0][0]", "cells[0][1]",
                                                        "cells[1][0]", "cells[1][1]", "cells[2][0]",
                                                        "cells[2][1]", "w"}));

static_assert(field_name<&shapes::Particle::vz> == "vz");
static_assert(field_name<&shapes::Mixed::b> == "b");
static_assert(field_name<&shapes::Nested::pos> == "pos"); // a struct member
static_assert(field_name<&shapes::Nested::v> == "v");     // a std::array member
static_assert(field_name<&shapes::Grid::cells> == "cells");
static_assert(field_name<&shapes::Grid::tag> == "tag"); // at offset 0, as the struct itself

// ---- tests/host/test_types.hpp ------------------------------------------------------------------

static_assert(names_are<layout_test::Particle>(std::array<sv, 8>{"x", "y", "z", "vx", "vy", "vz",
                                                                 "mass", "charge"}));
static_assert(names_are<layout_test::Mixed>(std::array<sv, 5>{"d", "i", "c", "b", "s"}));
static_assert(names_are<layout_test::Body>(std::array<sv, 14>{
    "pos.x", "pos.y", "pos.z", "vel[0]", "vel[1]", "vel[2]", "id", "pair[0].x", "pair[0].y",
    "pair[0].z", "pair[1].x", "pair[1].y", "pair[1].z", "w"}));
static_assert(field_name<&layout_test::Body::pair> == "pair");
static_assert(field_name<&layout_test::Mixed::s> == "s");
static_assert(field_name<&layout_test::Particle::charge> == "charge");

// ---- other shapes: enums, pointers, deep nesting, long and odd names, const T, scalars ---------

enum class colour : std::uint8_t { red, green };
struct Odd {
    colour c;
    const void* ptr;
    std::int64_t a_rather_long_member_name_with_digits_42;
    std::array<std::array<layout_test::Vec3, 2>, 2> deep;
    double _x;
};
static_assert(names_are<Odd>(std::array<sv, 16>{
    "c", "ptr", "a_rather_long_member_name_with_digits_42", "deep[0][0].x", "deep[0][0].y",
    "deep[0][0].z", "deep[0][1].x", "deep[0][1].y", "deep[0][1].z", "deep[1][0].x", "deep[1][0].y",
    "deep[1][0].z", "deep[1][1].x", "deep[1][1].y", "deep[1][1].z", "_x"}));
static_assert(field_name<&Odd::_x> == "_x");
static_assert(field_name<&Odd::a_rather_long_member_name_with_digits_42> ==
              "a_rather_long_member_name_with_digits_42");
static_assert(names_are<const shapes::Vec3>(std::array<sv, 3>{"x", "y", "z"}));
static_assert(names_are<float>(std::array<sv, 1>{""}));                          // one unnamed leaf
static_assert(names_are<std::array<short, 2>>(std::array<sv, 2>{"[0]", "[1]"})); // no field name

// Two structs with the same member names at different offsets, and one whose members share
// names with the probe's own ("value"): names come from the member, not from an offset.
struct Value {
    int other;
    float value;
};
struct Swapped {
    float value;
    int other;
};
static_assert(names_are<Value>(std::array<sv, 2>{"other", "value"}));
static_assert(names_are<Swapped>(std::array<sv, 2>{"value", "other"}));

template <class T>
struct Wrapped {
    T inner;
    T outer;
};
static_assert(names_are<Wrapped<shapes::Vec3>>(std::array<sv, 6>{"inner.x", "inner.y", "inner.z",
                                                                 "outer.x", "outer.y", "outer.z"}));
static_assert(field_name<&Wrapped<int>::outer> == "outer");

// A leaf's name is where column<path...>() finds the leaf: the order is the columns' order.
static_assert(leaf_name_v<layout_test::Body,
                          layout::detail::leaf_of_path<layout_test::Body, &layout_test::Body::pair,
                                                       1, &layout_test::Vec3::y>()> == "pair[1].y");
static_assert(
    leaf_name_v<shapes::Grid,
                layout::detail::leaf_of_path<shapes::Grid, &shapes::Grid::cells, 2, 0>()> ==
    "cells[2][0]");

// The same names at run time (the arrays are constants, not rebuilt per call).
TEST(names, run_time_names_point_into_one_table) {
    const auto a = leaf_names<layout_test::Body>();
    const auto b = leaf_names<layout_test::Body>();
    ASSERT_EQ(a.size(), 14u);
    EXPECT_EQ(a[7], "pair[0].x");
    EXPECT_EQ(a[13].data(), b[13].data());
    // Consecutive names are adjacent in the table: nothing but the names is stored.
    EXPECT_EQ(a[1].data(), a[0].data() + a[0].size());
}

TEST(names, local_struct) {
    struct Local {
        double mass;
        std::array<float, 2> uv;
    };
    constexpr auto names = leaf_names<Local>();
    EXPECT_EQ(names[0], "mass");
    EXPECT_EQ(names[2], "uv[1]");
    EXPECT_EQ(field_name<&Local::uv>, "uv");
}

} // namespace
