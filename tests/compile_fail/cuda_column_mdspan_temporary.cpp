// A libcu++ mdspan of a temporary device container's column would point into a block freed at
// the end of the statement: the rvalue overload of vector::column is deleted, and the line the
// compiler shows says why. (cuda/columns.hpp needs nvcc: this check runs only through nvcc's
// front end, when CUDA is enabled.)
// cuda-only
// expected-error: deleted function
#include <layout/layout.hpp>

struct S {
    float x;
    int id;
};

const layout::cuda::aosoa<S, 32> make_const();

void f() {
    auto m = make_const().column<&S::id>().mdspan(); // make_const()'s block is freed at the ';'
    (void)m;
}
