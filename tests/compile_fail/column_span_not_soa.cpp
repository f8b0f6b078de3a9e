// An AoS column is not contiguous, so it has no std::span: span() says what to use instead.
// expected-error: layout: column::span\(\) needs a SoA view or container
#include <layout/layout.hpp>

struct S {
    float x;
    int id;
};

void f(layout::aos_vector<S>& v) {
    auto x = v.column<&S::x>().span();
    (void)x;
}
