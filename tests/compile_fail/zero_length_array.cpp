// A struct whose members are all std::array<T, 0> has no leaf: SoA wrote out of bounds. (Two
// members: nvcc refuses any one-member struct first; reflect_test checks the one-member case.)
// expected-error: layout: the element type has a std::array<T, 0> member
// expected-max-lines: 30
#include <layout/vector.hpp>

#include <array>

struct S {
    std::array<float, 0> nothing;
    std::array<int, 0> none;
};

layout::vector<S, layout::policy::soa> v;
