// A path that goes on after reaching a scalar member.
// expected-error: layout: column<...> or path<...>: the path goes on past a scalar member
// expected-max-lines: 30
#include <layout/view.hpp>

struct P {
    float x;
    int id;
};

void f(layout::view<P, layout::policy::soa> v) {
    auto c = v.column<&P::x, 0>();
    (void)c;
}
