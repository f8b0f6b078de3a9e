// An AoS column is not contiguous, so it has no std::span: column_span says what to use instead.
// expected-error: layout: column_span needs a SoA view or container
#include <layout/span.hpp>

struct S {
    float x;
    int id;
};

void f(layout::aos_vector<S>& v) {
    auto x = layout::column_span<&S::x>(v);
    (void)x;
}
