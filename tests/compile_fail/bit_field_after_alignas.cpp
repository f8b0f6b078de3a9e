// A full-width bit-field after a member that alignas moved: g++ took the move for the reason
// the struct differs from its plain members and let the bit-field through to Boost.PFR's error
// (108 lines, no layout: line); with the pointer member, clang did the same (1,178 lines).
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    char a;
    alignas(4) char b;
    int c : 32;
    float* p;
};

layout::view<S, layout::policy::aos> v;
