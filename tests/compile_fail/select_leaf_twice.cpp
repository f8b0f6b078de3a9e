// A leaf selected twice (here: pos whole, and pos.y again) would be one value under two names.
// expected-error: layout: select<...>: a leaf is selected twice
// expected-max-lines: 30
#include <layout/view.hpp>

struct Vec3 {
    float x, y, z;
};
struct P {
    Vec3 pos;
    int id;
};

void f(layout::view<P, layout::policy::soa> v) {
    auto s = v.select<&P::pos, layout::path<&P::pos, &Vec3::y>>();
    (void)s;
}
