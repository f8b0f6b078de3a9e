// An AoSoA column jumps between blocks: it is not one stride, and stride() refuses it.
// expected-error: layout: column::stride\(\): this column is not one stride
#include <layout/layout.hpp>

struct S {
    float x;
    int id;
};

void f(layout::aosoa<S, 8>& v) {
    auto s = v.column<&S::x>().stride();
    (void)s;
}
