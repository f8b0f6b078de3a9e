// Data members in both a base and the derived struct: not standard-layout.
// expected-error: layout: the element type .*is not standard-layout
// expected-max-lines: 30
#include <layout/view.hpp>

struct Base {
    float x;
};
struct S : Base {
    float y;
};

layout::view<S, layout::policy::soa> v;
