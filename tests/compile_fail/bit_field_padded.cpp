// A lone narrow bit-field whose padding keeps the struct as large as without it.
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    double x;
    bool flag : 1;
};

layout::view<S, layout::policy::aos> v;
