// A SoA view over user-owned columns takes one pointer per leaf, of the leaf's type: an int*
// where the struct has a float is refused.
// expected-error: layout: a SoA view takes one pointer per leaf
#include <layout/view.hpp>

struct S {
    float x;
    int id;
};

void f(int* x, int* id) {
    layout::view<S, layout::policy::soa> v(16, x, id);
    (void)v;
}
