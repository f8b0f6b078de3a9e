// Offsets of a struct with a pointer member cannot be read in constant evaluation; an alignas
// that moves a member is refused rather than mapped to the wrong bytes.
// expected-error: layout: cannot find the member offsets of a struct with pointer
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    char tag;
    alignas(16) float* p;
};

layout::view<S, layout::policy::aos> v;
