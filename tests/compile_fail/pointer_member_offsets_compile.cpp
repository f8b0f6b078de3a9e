// Positive control for the offset checks: under g++, clang and nvcc (front end and host pass)
// these compile with the compiler's offsets, pointers and long double included. The struct
// pointer_member_alignas_host_pass.cpp refuses under nvcc differs from P below only by its alignas.
// expected: compiles
#include <layout/layout.hpp>

#include <cstddef>

struct P { // tail padding the front end cannot see into: right because nothing moved
    float* p;
    char c;
    char d;
};
struct Q { // a member moved by alignas: the front end reads it from the bytes
    char a;
    alignas(2) char b;
    char c;
};
struct R { // an alignas that moves nothing, next to pointers and long double
    double* p;
    Q q;
    long double x;
    alignas(8) int i;
};

template <class T, std::size_t L>
constexpr std::size_t at = layout::detail::leaf_offset<T, L>();
static_assert(at<P, 1> == offsetof(P, c) && at<P, 2> == offsetof(P, d));
static_assert(at<Q, 1> == offsetof(Q, b) && at<Q, 2> == offsetof(Q, c));
static_assert(at<R, 2> == offsetof(R, q) + offsetof(Q, b) && at<R, 5> == offsetof(R, i));

layout::view<P, layout::policy::aos> p;
layout::view<Q, layout::policy::soa> q;
layout::view<R, layout::policy::aosoa<4>> r;
