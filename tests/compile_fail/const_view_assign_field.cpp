// Nor can the fields of a read-only view's elements: they are const references.
// expected-error: read-only|returns a const value|const-qualified|modifiable lvalue
#include <layout/view.hpp>

struct S {
    float x, y;
};

void f(layout::view<const S, layout::policy::soa> v) { layout::get<&S::x>(v[0]) = 1; }
