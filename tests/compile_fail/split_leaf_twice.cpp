// A split whose keys name one leaf twice (a field and a member of it).
// expected-error: layout: split<First, Second, Keys...>: a leaf is named twice
// expected-max-lines: 30
#include <layout/vector.hpp>

#include <array>

struct P {
    std::array<float, 3> pos;
    float mass;
};

using twice = layout::policy::split<layout::policy::aos, layout::policy::soa, &P::pos,
                                    layout::path<&P::pos, 1>>;

void f() {
    layout::vector<P, twice> v(3);
    (void)v;
}
