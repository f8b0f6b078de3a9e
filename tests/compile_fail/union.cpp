// Members of a union overlap: there is nothing to split into columns.
// expected-error: layout: unions cannot
// expected-max-lines: 30
#include <layout/view.hpp>

union S {
    float f;
    int i;
};

layout::view<S, layout::policy::soa> v;
