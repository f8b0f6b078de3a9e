// column<&Body::vel, 3> on a std::array<float, 3> named the next field's column before.
// expected-error: layout: column<...> or path<...>: a path index is out of range
// expected-max-lines: 30
#include <layout/view.hpp>

#include <array>

struct Body {
    std::array<float, 3> vel;
    float mass;
};

void f(layout::view<Body, layout::policy::soa> v) {
    auto c = v.column<&Body::vel, 3>();
    (void)c;
}
