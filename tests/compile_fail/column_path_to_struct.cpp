// A column is one scalar leaf: a path that stops at a nested struct does not name one.
// expected-error: layout: column<...>: the path must end at a scalar member
#include <layout/view.hpp>

struct Vec3 {
    float x, y, z;
};
struct P {
    Vec3 pos;
    int id;
};

void f(layout::view<P, layout::policy::soa> v) {
    auto c = v.column<&P::pos>();
    (void)c;
}
