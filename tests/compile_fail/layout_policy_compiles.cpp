// Positive check: every layout of the library satisfies layout::layout_policy, under each
// compiler that runs these checks (the C++ compiler, and nvcc as layout_policy_compiles.cuda
// where CUDA is enabled). nvcc 13 once found the concept false for every layout: its
// requires-expression held lambdas, which nvcc 13 does not take there (layouts/concept.hpp).
// expected: compiles
#include <layout/layout.hpp>

#include <cstddef>
#include <cstdint>

struct Vec3 {
    float x, y, z;
};
struct P {
    Vec3 pos;
    float mass;
    std::int32_t id;
};

using namespace layout::policy;
static_assert(layout::layout_policy<aos, P>);
static_assert(layout::layout_policy<soa, P>);
static_assert(layout::layout_policy<aosoa<32>, P>);
static_assert(layout::layout_policy<aosoa<1>, P>);
static_assert(layout::layout_policy<split<aos, soa, &P::pos>, P>);
static_assert(layout::layout_policy<split<aosoa<8>, aos, &P::mass, &P::id>, P>);
static_assert(layout::layout_policy<split<soa, aosoa<4>, 0>, P>);

// And false for what is not a layout, or lacks a piece: a storage that cannot be rebuilt from
// its pointers (what for_each_index and the CUDA kernels need) is not one.
struct not_a_layout {};
static_assert(!layout::layout_policy<not_a_layout, P>);
struct no_rebuild : aos {
    template <class E>
    struct storage : aos::storage<E> {
        template <class F>
        void split(F&&) const {}
    };
};
static_assert(!layout::layout_policy<no_rebuild, P>);

int main() { return 0; }
