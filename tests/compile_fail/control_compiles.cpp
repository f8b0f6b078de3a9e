// Positive control: the same compiler, flags and include paths as the must-not-compile tests,
// on code that must compile. Without it, a broken include path would make every negative test
// pass for the wrong reason.
// expected: compiles
#include <layout/view.hpp>

#include <array>

struct Vec3 {
    float x, y, z;
};
struct P {
    Vec3 pos;
    std::array<float, 3> v;
    int id;
};
struct Other {
    float x;
    int id;
};

float f(layout::view<P, layout::policy::soa> v, float* x, int* id) {
    layout::view<const P, layout::policy::soa> r = v; // mutable converts to read-only
    v[0] = P{};
    layout::get<&P::id>(v[1]) = 3;
    auto c = v.column<&P::pos, &Vec3::x>();
    layout::view<Other, layout::policy::soa> o(1, x, id);
    return c[0] + layout::get<&P::pos>(r[0]).get<1>() + layout::get<&Other::x>(o[0]);
}
