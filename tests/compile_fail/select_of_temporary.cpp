// A temporary container's selection would dangle at the end of the statement: the rvalue
// overload of vector::select is deleted, as column's is.
// expected-error: deleted (member )?function
#include <layout/layout.hpp>

struct S {
    float x, y;
    int id;
};

layout::soa_vector<S> make();

float f() {
    auto xy = make().select<&S::x, &S::y>(); // make()'s block is freed at the ';'
    return xy[0].get<0>();
}
