/// \file shapes.hpp
/// Element types the tests share: one of each shape layout must handle.
///
///     Particle  8 floats                               8 leaves, 32 B
///     Mixed     double, int, char, bool                4 leaves, 16 B (3 B of tail padding)
///     Nested    Vec3, std::array<float, 3>, int        7 leaves, 28 B
///     Grid      char, array<array<short, 2>, 3>, double 8 leaves, 24 B (inner padding)
#pragma once

#include <array>

namespace shapes {

struct Particle {
    float x, y, z, vx, vy, vz, m, q;
};

struct Mixed {
    double d;
    int i;
    char c;
    bool b;
};

struct Vec3 {
    float x, y, z;
};

struct Nested {
    Vec3 pos;
    std::array<float, 3> v;
    int id;
};

struct Grid {
    char tag;
    std::array<std::array<short, 2>, 3> cells;
    double w;
};

} // namespace shapes
