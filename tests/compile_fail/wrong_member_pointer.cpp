// get<&Other::x> on an element of S: the member pointer names a field of another struct.
// expected-error: layout: get<&S::m>: the member pointer belongs to another struct
#include <layout/view.hpp>

struct S {
    float x, y;
};
struct Other {
    float x, y;
};

float f(layout::view<S, layout::policy::soa> v) { return layout::get<&Other::x>(v[0]); }
