// A user-written constructor makes the struct a non-aggregate: it cannot be reflected.
// expected-error: layout: the element type .* is not an aggregate
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    S(float x_, float y_) : x(x_), y(y_) {}
    float x, y;
};

layout::view<S, layout::policy::soa> v;
