// A union member: its fields overlap, so there is nothing to split into columns. The message
// comes first, and nothing after it takes the union apart (1,119 lines of g++ output before).
// expected-error: layout: unions cannot be split
// expected-max-lines: 30
#include <layout/view.hpp>

union U {
    float f;
    int i;
};
struct S {
    U u;
    int id;
};

layout::view<S, layout::policy::soa> v;
