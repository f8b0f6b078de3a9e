// Bit-fields have no address: no reference to one, no column of them.
// expected-error: bit-field|bit field
#include <layout/view.hpp>

struct S {
    unsigned a : 3;
    unsigned b : 5;
};

layout::view<S, layout::policy::soa> v;
