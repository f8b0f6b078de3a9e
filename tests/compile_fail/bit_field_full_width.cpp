// A bit-field as wide as its type packs nothing, so the struct is as large as without it: it
// got Boost.PFR's own error (a reference to a bit-field) and no layout: line.
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    int a : 32;
    float b;
};

layout::view<S, layout::policy::soa> v;
