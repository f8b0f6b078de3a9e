// An empty member struct holds no leaf (it was reported as a C array member before). nvcc's
// front end reaches the empty struct itself and says so.
// expected-error: layout: the element type (has an empty member struct|\(or a member struct\) is empty)
// expected-max-lines: 30
#include <layout/view.hpp>

struct Empty {};
struct S {
    Empty e;
    int id;
};

layout::view<S, layout::policy::soa> v;
