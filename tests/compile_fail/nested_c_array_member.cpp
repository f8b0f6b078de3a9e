// A C array member one level down is rejected like one at the top.
// expected-error: layout: the element type has a C array member
// expected-max-lines: 30
#include <layout/view.hpp>

struct Inner {
    float v[3];
};
struct S {
    Inner inner;
    int id;
};

layout::view<S, layout::policy::soa> v;
