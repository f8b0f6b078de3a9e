// Under nvcc only (g++ and clang find these offsets, tests/host/reflect_alignas_test.cpp): the
// front end cannot read the offsets of a struct with a pointer member, and refuses an alignas
// that makes the ABI rule's size or alignment wrong rather than map the wrong bytes.
// cuda-only
// expected-error: layout: under nvcc, cannot find the member offsets of a struct with pointer
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {
    char tag;
    alignas(16) float* p;
};

layout::view<S, layout::policy::aos> v;
