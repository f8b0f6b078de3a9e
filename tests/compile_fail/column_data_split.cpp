// A split layout's column is not described by one pointer and stride (its part's storage is):
// data() refuses it with the layout: message, not one about AoSoA.
// expected-error: layout: column::data\(\): this column is not one stride; index the column
#include <layout/layout.hpp>

struct P {
    float x, y, z;
};

using hot_x = layout::policy::split<layout::policy::aos, layout::policy::soa, &P::x>;

void f(layout::vector<P, hot_x>& v) {
    auto* d = v.column<&P::y>().data();
    (void)d;
}
