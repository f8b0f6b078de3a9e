// A span of a temporary container's column would dangle at the end of the statement: the
// rvalue overloads of column_span, strided_column and column_range are deleted, and the line
// the compiler shows says why.
// expected-error: deleted function
#include <layout/span.hpp>

struct S {
    float x;
    int id;
};

layout::soa_vector<S> make();

float f() {
    auto x = layout::column_span<&S::x>(make()); // make()'s block is freed at the ';'
    return x[0];
}
