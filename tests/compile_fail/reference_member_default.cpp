// A reference member with a default member initializer keeps the struct default-constructible;
// the message must still name the reference member (it spoke only of base classes before).
// expected-error: layout: .*reference member
// expected-max-lines: 30
#include <layout/view.hpp>

inline float global_value = 0;

struct S {
    float& r = global_value;
    int id;
};

layout::view<S, layout::policy::soa> v;
