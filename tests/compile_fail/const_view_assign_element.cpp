// A read-only view's elements cannot be assigned.
// expected-error: operator=|overloaded '='|no operator "="
#include <layout/view.hpp>

struct S {
    float x, y;
};

void f(layout::view<const S, layout::policy::soa> v) { v[0] = S{1, 2}; }
