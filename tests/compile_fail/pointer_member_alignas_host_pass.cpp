// Under nvcc only: an alignas that moves a member next to a pointer but keeps the struct's size
// and alignment (d at 12, not 9) looks right to the front end; nvcc's host pass (g++), which
// finds every offset, sees the front end's table is wrong and refuses the struct.
// cuda-only
// expected-error: layout: under nvcc, cannot find the member offsets of a struct with pointer
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    float* p;
    char c;
    alignas(4) char d;
};

layout::view<S, layout::policy::aos> v;
