// A const member cannot be assigned leaf by leaf (it compiled before, until the first store).
// expected-error: layout: the element type has a const or volatile member
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    const float x;
    int id;
};

layout::view<S, layout::policy::soa> v;
