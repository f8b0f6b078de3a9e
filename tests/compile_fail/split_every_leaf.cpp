// A split whose keys name every leaf leaves its second part empty: use the first layout alone.
// (clang 14 goes on for 90 lines after the layout: line: mapping<T, split> is named again in
// the failed instantiation; g++ stops at about 20.)
// expected-error: layout: split<First, Second, Keys...>: the keys name every leaf
// expected-max-lines: 100
#include <layout/vector.hpp>

struct P {
    float x, y;
};

using all_hot = layout::policy::split<layout::policy::aos, layout::policy::soa, &P::x, &P::y>;

void f() {
    layout::vector<P, all_hot> v(3);
    (void)v;
}
