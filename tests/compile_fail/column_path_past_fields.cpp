// A field index past the last field of the struct.
// expected-error: layout: column<...> or path<...>: a path index is out of range
// expected-max-lines: 30
#include <layout/view.hpp>

struct P {
    float x;
    int id;
};

void f(layout::view<P, layout::policy::soa> v) {
    auto c = v.column<2>();
    (void)c;
}
