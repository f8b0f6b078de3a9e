// A full-width bit-field in a struct larger than 4 KiB, past which no constant bit_cast was
// tried: Boost.PFR's error (138 lines under g++ 12, 1,175 under clang 14), no layout: line.
// expected-error: layout: the element type has bit-fields
// expected-max-lines: 30
#include <layout/view.hpp>

#include <array>

struct S {
    std::array<float, 1100> samples;
    unsigned count : 32;
};

layout::view<S, layout::policy::soa> v;
