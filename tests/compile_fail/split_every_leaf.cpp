// A split whose keys name every leaf leaves its second part empty: use the first layout alone.
// (clang 14 went on for 90 lines after the layout: line: the static_assert in split_parts made
// the whole class invalid, and each later use of its members failed again.)
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
