// The same without a pointer: g++ alone let it through (138 lines, no layout: line).
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    char a;
    alignas(2) char b;
    int c : 32;
};

layout::view<S, layout::policy::soa> v;
