// A split whose keys name every leaf leaves its second part empty: use the first layout alone.
// expected-error: layout: split<First, Second, Keys...>: the keys name every leaf
// expected-max-lines: 30
#include <layout/vector.hpp>

struct P {
    float x, y;
};

using all_hot = layout::policy::split<layout::policy::aos, layout::policy::soa, &P::x, &P::y>;

void f() {
    layout::vector<P, all_hot> v(3);
    (void)v;
}
