// A temporary container's column would dangle at the end of the statement: the rvalue overload
// of vector::column is deleted, and the line the compiler shows says why ("layout: would
// dangle; name the container").
// expected-error: deleted (member )?function
#include <layout/layout.hpp>

struct S {
    float x;
    int id;
};

layout::soa_vector<S> make();

float f() {
    auto x = make().column<&S::x>(); // make()'s block is freed at the ';'
    return x[0];
}
