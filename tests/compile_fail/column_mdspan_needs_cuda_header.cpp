// column::mdspan() is a cuda::std::mdspan, defined by <layout/cuda/columns.hpp> (nvcc; the
// umbrella header includes it there). Without that header the call says which header it needs.
// expected-error: layout: column::mdspan\(\) needs <layout/cuda/columns.hpp>
#include <layout/vector.hpp>

struct S {
    float x;
    int id;
};

void f(layout::aos_vector<S>& v) {
    auto m = v.column<&S::x>().mdspan();
    (void)m;
}
