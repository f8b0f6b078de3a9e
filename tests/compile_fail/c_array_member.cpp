// A C array member: Boost.PFR would count each element as a field.
// expected-error: layout: the element type has a C array member
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    float v[3];
    int id;
};

layout::view<S, layout::policy::soa> v;
