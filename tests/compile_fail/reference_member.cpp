// A reference member has no storage of its own to put in a column.
// expected-error: layout: the element type has a reference member
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    float& r;
    int id;
};

layout::view<S, layout::policy::soa> v;
