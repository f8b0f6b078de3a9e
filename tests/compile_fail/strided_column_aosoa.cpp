// An AoSoA column jumps between blocks: it is not one stride, and strided_column refuses it.
// expected-error: layout: strided_column: an AoSoA column is not one stride
#include <layout/span.hpp>

struct S {
    float x;
    int id;
};

void f(layout::aosoa<S, 8>& v) {
    auto x = layout::strided_column<&S::x>(v);
    (void)x;
}
