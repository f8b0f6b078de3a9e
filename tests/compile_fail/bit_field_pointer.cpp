// A bit-field as wide as its type next to a pointer member: the struct is as large as without
// the bit-field, and no constant bit_cast reads a pointer. It got Boost.PFR's own error (138
// lines under g++ 12, 1,178 under clang 14) and no layout: line.
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    int a : 32;
    float* p;
};

layout::view<S, layout::policy::soa> v;
