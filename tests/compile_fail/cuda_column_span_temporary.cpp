// A libcu++ span or mdspan of a temporary device container's column would point into a block
// freed at the end of the statement: the rvalue overloads of layout::cuda::column_span and
// column_mdspan are deleted, and the line the compiler shows says why. (cuda/interop.hpp needs
// nvcc: this check runs only through nvcc's front end, when CUDA is enabled.)
// cuda-only
// expected-error: deleted function
#include <layout/cuda/interop.hpp>
#include <layout/cuda/vector.hpp>

struct S {
    float x;
    int id;
};

layout::cuda::soa_vector<S> make();
const layout::cuda::aosoa<S, 32> make_const();

void f() {
    auto x = layout::cuda::column_span<&S::x>(make()); // make()'s block is freed at the ';'
    auto m = layout::cuda::column_mdspan<&S::id>(make_const());
    (void)x;
    (void)m;
}
