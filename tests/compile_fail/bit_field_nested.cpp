// A bit-field in a member struct, beside other members.
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

#include <array>

struct Flags {
    unsigned char alive : 8;
    float weight;
};
struct S {
    std::array<float, 3> pos;
    Flags flags;
};

layout::view<S, layout::policy::aosoa<4>> v;
