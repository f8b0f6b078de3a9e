// Bit-fields have no address: no reference to one, no column of them. (No layout: message
// before, and 136 lines of g++ output, 650 of clang.)
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    unsigned a : 3;
    unsigned b : 5;
};

layout::view<S, layout::policy::soa> v;
